"""Plain-text API documentation (Markdown or HTML) -> tool descriptions, with a language model.

The document is cut into sections at its headings; for each, the model is asked for the
operations it describes as JSON (name, description, parameters with type, whether required, and
the exact words each was read from). Nothing is taken on the model's word: every tool and every
parameter must quote text that occurs in its section (compared with whitespace and case
normalized), or it is dropped with a warning; types are limited to JSON Schema's; names are
cleaned. Each kept tool records its section in ``source.locator`` and the quotes in
``source.quotes``, so every field traces back to the text it came from.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from envfactory.diagnostics import Diagnostics
from envfactory.errors import SpecError
from envfactory.ingest.common import clean_tool_name, make_tool
from envfactory.ir.tool import ToolSet, ToolSource

JSON = dict[str, Any]
SUFFIXES = (".md", ".markdown", ".html", ".htm", ".txt")
TYPES = {"string", "integer", "number", "boolean", "array", "object"}
MAX_SECTION_CHARS = 6000
SCHEMA: JSON = {
    "type": "object",
    "properties": {"tools": {"type": "array", "items": {"type": "object", "properties": {
        "name": {"type": "string"}, "description": {"type": "string"}, "quote": {"type": "string"},
        "parameters": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "type": {"type": "string"}, "required": {"type": "boolean"},
            "description": {"type": "string"}, "quote": {"type": "string"}},
            "required": ["name", "type", "quote"]}}},
        "required": ["name", "description", "quote"]}}},
    "required": ["tools"],
}  # fmt: skip


def plain_text(raw: str, suffix: str) -> str:
    """HTML as text with its headings kept as Markdown headings; Markdown as it is."""
    if suffix not in (".html", ".htm"):
        return raw
    text = re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", raw)
    text = re.sub(r"(?i)<h([1-6])[^>]*>", lambda m: "\n" + "#" * int(m.group(1)) + " ", text)
    text = re.sub(r"(?i)</h[1-6]>|<br\s*/?>|</p>|</li>|</tr>", "\n", text)
    return html.unescape(re.sub(r"<[^>]+>", " ", text))


def sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) at each Markdown heading; text before the first is its own section."""
    parts: list[tuple[str, str]] = []
    heading, lines = "(start)", list[str]()
    for line in text.splitlines():
        found = re.match(r"^\s*#{1,6}\s+(.*)", line)
        if found:
            if any(x.strip() for x in lines):
                parts.append((heading, "\n".join(lines)))
            heading, lines = found.group(1).strip(), [line]
        else:
            lines.append(line)
    if any(x.strip() for x in lines):
        parts.append((heading, "\n".join(lines)))
    return parts


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


def traced(quote: Any, section: str) -> bool:
    q = _norm(quote)
    return len(q) >= 3 and q in _norm(section)


def load_docs(path: Path, client: Any, diag: Diagnostics | None = None) -> ToolSet:
    """Tools described in the document at ``path``, read by ``client`` (an ``LLMClient``)."""
    from envfactory.llm.client import LLMError
    from envfactory.llm.toolcalls import json_in
    from envfactory.llm.types import ChatRequest

    diag = diag or Diagnostics(file=str(path))
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SpecError(f"cannot read the document: {err}", file=str(path)) from None
    tools = []
    names: set[str] = set()
    for number, (heading, body) in enumerate(sections(plain_text(raw, path.suffix.lower())), 1):
        body = body[:MAX_SECTION_CHARS]
        prompt = (
            "Below is a section of an API's documentation. List the operations (tools) it describes, as JSON "
            '{"tools": [{"name", "description", "quote", "parameters": [{"name", "type", "required", '
            '"description", "quote"}]}]}. "quote" must copy, word for word, the words of the section each item '
            f'was read from. Use JSON Schema types. If it describes none, answer {{"tools": []}}.\n\n{body}'
        )
        request = ChatRequest(messages=({"role": "user", "content": prompt},), json_schema=SCHEMA, max_tokens=800)
        try:
            answer = json_in(client.chat(request).text, "{")
        except LLMError as err:
            raise SpecError(f"the model did not answer for section {heading!r}: {err}", file=str(path)) from None
        for entry in (answer or {}).get("tools") or []:
            tool = _tool(entry, heading, body, number, path, diag)
            if tool is not None and tool.name not in names:
                names.add(tool.name)
                tools.append(tool)
    if not tools:
        raise SpecError("no operation could be read from the document (and traced to its text)", file=str(path))
    return ToolSet(name=path.stem, tools=tuple(tools), warnings=tuple(diag.warnings))


def _tool(entry: Any, heading: str, body: str, number: int, path: Path, diag: Diagnostics) -> Any:
    if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
        return None
    where = f"section {number} ({heading})"
    if not traced(entry.get("quote"), body):
        diag.warn(f"dropped tool {entry['name']!r}: its quote is not in {where}", tool=entry["name"])
        return None
    name = clean_tool_name(entry["name"], diag, where=where)
    props: JSON = {}
    required: list[str] = []
    quotes = {"tool": str(entry.get("quote"))}
    for param in entry.get("parameters") or []:
        if not isinstance(param, dict) or not isinstance(param.get("name"), str):
            continue
        pname = re.sub(r"[^A-Za-z0-9_]", "_", param["name"]).strip("_")
        if not pname or not traced(param.get("quote"), body):
            diag.warn(f"dropped parameter {param.get('name')!r}: its quote is not in {where}", tool=name, field=pname)
            continue
        typ = param.get("type") if param.get("type") in TYPES else "string"
        props[pname] = {"type": typ, **({"description": str(param["description"])} if param.get("description") else {})}
        quotes[pname] = str(param.get("quote"))
        if param.get("required") is True:
            required.append(pname)
    schema: JSON = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return make_tool(name=name, description=str(entry.get("description") or heading), input_schema=schema,
                     source=ToolSource(format="docs", file=str(path), locator=where, quotes=quotes),
                     diag=diag)  # fmt: skip


__all__ = ["SUFFIXES", "load_docs", "plain_text", "sections", "traced"]

"""OpenAI and Anthropic function-calling JSON -> ToolSet.

Accepted shapes: a ``tools=[...]`` list (chat completions ``{"type": "function", "function":
{...}}`` or the flat Responses-API form), legacy ``functions=[...]``, a single function, and
Anthropic's ``{"name", "description", "input_schema"}``. Function-calling formats have no
output schema; one given beside ``parameters`` under a common key (``output_schema``,
``outputSchema``, ``returns``, ``response``, ``response_schema``) is read, with a warning naming
the key when it is not ``output_schema``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envfactory.diagnostics import Diagnostics
from envfactory.errors import SpecError
from envfactory.ingest.common import clean_tool_name, make_tool
from envfactory.ir.tool import ToolSet, ToolSource

JSON = dict[str, Any]


def function_entries(doc: Any) -> list[JSON] | None:
    """Normalize the accepted shapes to a list of ``{name, description, parameters}``."""
    if isinstance(doc, dict):
        for key in ("tools", "functions"):
            if isinstance(doc.get(key), list):
                return function_entries(doc[key])
        doc = [doc]
    if not isinstance(doc, list) or not doc:
        return None
    out = []
    for item in doc:
        if not isinstance(item, dict):
            return None
        if isinstance(item.get("function"), dict):
            item = item["function"]
        if "name" not in item or not ({"parameters", "input_schema"} & item.keys() or "description" in item):
            return None
        out.append(item)
    return out


OUTPUT_KEYS = ("output_schema", "outputSchema", "returns", "response", "response_schema", "responseSchema")


def _output_schema(entry: JSON, diag: Diagnostics, tool: str) -> Any:
    for key in OUTPUT_KEYS:
        value = entry.get(key)
        if isinstance(value, dict) and value:
            if key != "output_schema":
                diag.warn(f"output schema read from {key!r}", tool=tool, field=key)
            return value
    return None


def load_functions(path: Path, diag: Diagnostics, doc: Any) -> ToolSet:
    entries = function_entries(doc)
    if entries is None:
        raise SpecError("not an OpenAI/Anthropic function list", file=str(path))
    flavour = "anthropic" if all("input_schema" in e for e in entries) else "openai"
    tools = []
    for i, entry in enumerate(entries):
        where = f"[{i}]"
        name = clean_tool_name(entry.get("name"), diag, where=where)
        tools.append(
            make_tool(
                name=name,
                description=entry.get("description"),
                input_schema=entry.get("parameters", entry.get("input_schema")),
                output_schema=_output_schema(entry, diag, name),
                source=ToolSource(format=flavour, file=str(path), locator=where),
                diag=diag,
                unwrap=True,
            )
        )
    given = doc.get("name") if isinstance(doc, dict) else None
    name = given if isinstance(given, str) else path.stem
    return ToolSet(name=name, tools=tuple(tools), warnings=tuple(diag.warnings))

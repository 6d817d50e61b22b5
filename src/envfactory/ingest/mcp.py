"""MCP tool lists -> ToolSet: a saved ``tools/list`` result, or a live server over stdio."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from envfactory.diagnostics import Diagnostics
from envfactory.errors import EnvFactoryError, SpecError
from envfactory.ingest.common import clean_tool_name, make_tool
from envfactory.ir.tool import ToolAnnotations, ToolSet, ToolSource

JSON = dict[str, Any]
_HINTS = {
    "readOnlyHint": "read_only",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "open_world",
}


def mcp_tools(doc: Any) -> list[Any] | None:
    """The tool entries of a saved MCP document, or None when it is not one."""
    if isinstance(doc, dict) and isinstance(doc.get("result"), dict):
        doc = doc["result"]
    if isinstance(doc, dict):
        doc = doc.get("tools")
    if isinstance(doc, list) and doc and all(isinstance(t, dict) and "inputSchema" in t for t in doc):
        return doc
    return None


def declared_output(schema: Any) -> Any:
    """A tool's ``outputSchema``, or ``None`` where it only says "a text": the MCP Python SDK
    declares a tool that returns text as ``{"result": {"type": "string"}}`` and wraps the text so,
    and the text is often JSON with a shape of its own (read as such by ``real.mcp``)."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    result = props.get("result") if isinstance(props, dict) and list(props) == ["result"] else None
    return None if isinstance(result, dict) and result.get("type") == "string" else schema


def load_mcp_file(path: Path, diag: Diagnostics, doc: Any) -> ToolSet:
    entries = mcp_tools(doc)
    if entries is None:
        raise SpecError("not an MCP tools/list document", file=str(path))
    given = doc.get("name") if isinstance(doc, dict) else None
    name = given if isinstance(given, str) else path.stem
    return _toolset(entries, name, str(path), diag, "mcp")


def _toolset(entries: list[Any], name: str, file: str, diag: Diagnostics, fmt: str) -> ToolSet:
    tools = []
    for i, entry in enumerate(entries):
        where = f"tools[{i}]"
        if not isinstance(entry, dict):
            raise SpecError(f"{where} is not an object", file=file)
        tool_name = clean_tool_name(entry.get("name"), diag, where=where)
        raw_hints = entry.get("annotations")
        hints: JSON = raw_hints if isinstance(raw_hints, dict) else {}
        tools.append(
            make_tool(
                name=tool_name,
                description=entry.get("description") or entry.get("title"),
                input_schema=entry.get("inputSchema"),
                output_schema=declared_output(entry.get("outputSchema")),
                annotations=ToolAnnotations(
                    **{ours: hints[theirs] for theirs, ours in _HINTS.items() if isinstance(hints.get(theirs), bool)}
                ),
                source=ToolSource(format=fmt, file=file, locator=where),
                diag=diag,
                unwrap=True,
            )
        )
    return ToolSet(name=name, tools=tuple(tools), warnings=tuple(diag.warnings))


def load_mcp_server(
    command: str | list[str], *, name: str | None = None, timeout: float = 30.0, env: dict[str, str] | None = None
) -> ToolSet:
    """Start an MCP server over stdio (``{tmp}`` in the command: a fresh empty folder), list its
    tools and stop it. The server's stderr is discarded."""
    from envfactory.real.mcp import McpSession, McpTarget

    text = command if isinstance(command, str) else shlex.join(command)
    target = McpTarget.parse(text, env)
    diag = Diagnostics(file=target.label)
    try:
        with McpSession(target, timeout=timeout) as session:
            listed, server_name = session.tools(), session.server_name
    except EnvFactoryError as err:
        raise SpecError(f"MCP server {str(err).removeprefix(f'{target.label}: ')}", file=target.label) from None
    except TimeoutError:
        raise SpecError(f"MCP server did not answer tools/list within {timeout:.0f}s", file=target.label) from None
    return _toolset(listed, name or server_name or Path(target.argv[-1]).stem, target.label, diag, "mcp-server")

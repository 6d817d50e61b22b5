"""MCP tool lists -> ToolSet: a saved ``tools/list`` result, or a live server over stdio."""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path
from typing import Any

from envfactory.diagnostics import Diagnostics
from envfactory.errors import SpecError
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
                output_schema=entry.get("outputSchema"),
                annotations=ToolAnnotations(
                    **{ours: hints[theirs] for theirs, ours in _HINTS.items() if isinstance(hints.get(theirs), bool)}
                ),
                source=ToolSource(format=fmt, file=file, locator=where),
                diag=diag,
            )
        )
    return ToolSet(name=name, tools=tuple(tools), warnings=tuple(diag.warnings))


def load_mcp_server(command: str | list[str], *, name: str | None = None, timeout: float = 30.0) -> ToolSet:
    """Start an MCP server over stdio, list its tools and stop it."""
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    if not argv:
        raise SpecError("empty MCP server command")
    label = shlex.join(argv)
    diag = Diagnostics(file=f"mcp+stdio:{label}")
    try:
        listed, server_name = asyncio.run(asyncio.wait_for(_list_tools(argv), timeout))
    except TimeoutError:
        raise SpecError(f"MCP server did not answer tools/list within {timeout:.0f}s", file=diag.file) from None
    except (OSError, ValueError) as err:
        raise SpecError(f"could not start MCP server: {err}", file=diag.file) from None
    except Exception as err:  # the SDK wraps transport failures in several exception groups
        raise SpecError(f"MCP server failed: {_root_cause(err)}", file=diag.file) from None
    return _toolset(listed, name or server_name or Path(argv[-1]).stem, diag.file or label, diag, "mcp-server")


async def _list_tools(argv: list[str]) -> tuple[list[JSON], str | None]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=argv[0], args=argv[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        tools: list[JSON] = []
        cursor: str | None = None
        while True:
            page = await session.list_tools(params=_page(cursor))
            tools.extend(t.model_dump(by_alias=True, exclude_none=True) for t in page.tools)
            cursor = getattr(page, "next_cursor", None) or getattr(page, "nextCursor", None)
            if not cursor:
                break
        server = getattr(init, "server_info", None) or getattr(init, "serverInfo", None)
        return tools, getattr(server, "name", None)


def _page(cursor: str | None) -> Any:
    if cursor is None:
        return None
    from mcp import types

    return types.PaginatedRequestParams(cursor=cursor)


def _root_cause(err: BaseException) -> str:
    while isinstance(err, BaseExceptionGroup) and err.exceptions:
        err = err.exceptions[0]
    return f"{type(err).__name__}: {err}"

"""A live MCP server over stdio, driven synchronously: one server process per ``McpSession``.

``McpTarget.parse("mcp+stdio:CMD")`` names a server; ``{tmp}`` in the command or in an
environment value becomes a fresh, empty folder per session (the server's working folder too),
so every session starts from the same empty state; in a call's arguments it is that folder, and
the folder reads ``{tmp}`` in answers::

    target = McpTarget.parse("mcp+stdio:mcp-server-memory", env={"MEMORY_FILE_PATH": "{tmp}/m.jsonl"})
    with McpSession(target, log=Path("server.log")) as server:
        outcome = server.call("create_entities", {"entities": [...]})

The server's stderr goes to ``log`` (or is discarded), never to the console. A tool call gives a
``ToolOutcome``: ``ok`` is the inverse of the result's ``isError``, ``data`` the structured content
when the server gives one, else the text content parsed as JSON when it is JSON, else the text.
Structured content that only wraps the text (``{"result": TEXT}``, as the MCP Python SDK wraps a
tool returning text) holding a JSON object or array is that JSON: the wrap says nothing.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import shlex
import shutil
import signal
import tempfile
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from envfactory.errors import EnvFactoryError
from envfactory.ingest import MCP_PREFIX as PREFIX

TMP = "{tmp}"


@dataclass(frozen=True)
class McpTarget:
    """How to start a server: its argv and the environment variables passed to it."""

    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, source: str, env: dict[str, str] | None = None) -> McpTarget:
        command = source.removeprefix(PREFIX)
        argv = tuple(shlex.split(command))
        if not argv:
            raise EnvFactoryError(f"empty MCP server command in {source!r}")
        if "/" in argv[0] and not os.path.isabs(argv[0]):  # the server runs in its own folder
            argv = (os.path.abspath(argv[0]), *argv[1:])
        return cls(argv=argv, env=tuple(sorted((env or {}).items())))

    @property
    def label(self) -> str:
        return PREFIX + shlex.join(self.argv)

    def resolved(self, tmp: str) -> tuple[list[str], dict[str, str]]:
        return [a.replace(TMP, tmp) for a in self.argv], {k: v.replace(TMP, tmp) for k, v in self.env}


def parse_env(pairs: list[str]) -> dict[str, str]:
    """``["KEY=VALUE", ...]`` as a dict; a pair without ``=`` is a clear error."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise EnvFactoryError(f"--env takes KEY=VALUE, got {pair!r}")
        out[key] = value
    return out


@dataclass(frozen=True)
class ToolOutcome:
    ok: bool
    data: Any = None
    error: str | None = None


@dataclass
class McpSession:
    """One running server; ``call`` blocks until it answers or ``timeout`` seconds pass."""

    target: McpTarget
    log: Path | None = None
    timeout: float = 30.0
    _loop: asyncio.AbstractEventLoop | None = field(default=None, init=False, repr=False)
    _thread: threading.Thread | None = field(default=None, init=False, repr=False)
    _stop: asyncio.Event | None = field(default=None, init=False, repr=False)
    _task: asyncio.Task[None] | None = field(default=None, init=False, repr=False)
    _groups: set[int] = field(default_factory=set, init=False, repr=False)
    _session: Any = field(default=None, init=False, repr=False)
    _tmp: str = field(default="", init=False, repr=False)
    _removal: weakref.finalize | None = field(default=None, init=False, repr=False)
    _errlog: TextIO | None = field(default=None, init=False, repr=False)
    server_name: str | None = field(default=None, init=False)

    def __enter__(self) -> McpSession:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        self._tmp = tempfile.mkdtemp(prefix="envfactory-mcp-")
        # the folder goes with the session even when nothing closes it: a spare still starting when the
        # process exits, a session dropped unclosed
        self._removal = weakref.finalize(self, shutil.rmtree, self._tmp, True)
        self._errlog = open(self.log, "a", encoding="utf-8") if self.log else open(os.devnull, "w")  # noqa: SIM115
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        # the server is the child process that appears while it starts: one start at a time, or a
        # spare starting in another thread would be taken for this one's (and stopped with it)
        with _STARTING:
            before = _children()
            self._thread = threading.Thread(target=lambda: asyncio.run(self._main(ready)), daemon=True)
            self._thread.start()
            try:
                ready.result(self.timeout)
                failed: Exception | None = None
            except Exception as err:  # answered below, once the lock is let go
                failed = err
            self._groups = _children() - before  # the server leads its own process group (the SDK's new session)
        if isinstance(failed, concurrent.futures.TimeoutError):
            self.close()
            raise EnvFactoryError(f"{self.target.label}: did not start within {self.timeout:.0f}s") from None
        if failed is not None:
            self.close()
            raise EnvFactoryError(f"{self.target.label}: could not start: {_root_cause(failed)}") from None

    async def _main(self, ready: concurrent.futures.Future[None]) -> None:
        from mcp import ClientSession, StdioServerParameters, stdio_client

        argv, env = self.target.resolved(self._tmp)
        params = StdioServerParameters(command=argv[0], args=argv[1:], env=env or None, cwd=self._tmp)
        self._loop, self._stop, self._task = asyncio.get_running_loop(), asyncio.Event(), asyncio.current_task()
        try:
            assert self._errlog is not None
            async with stdio_client(params, errlog=self._errlog) as (read, write), ClientSession(read, write) as s:
                init = await s.initialize()
                info = getattr(init, "server_info", None) or getattr(init, "serverInfo", None)
                self.server_name = getattr(info, "name", None)
                self._session = s
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as err:  # reported to the caller waiting on ready
            if not ready.done():
                ready.set_exception(err if isinstance(err, Exception) else RuntimeError(str(err)))

    def call(self, tool: str, arguments: dict[str, Any]) -> ToolOutcome:
        """Call ``tool``; ``{tmp}`` in the arguments is this session's folder, and the folder reads
        ``{tmp}`` in the answer (transcripts and state digests do not depend on where it was made)."""
        if self._loop is None or self._session is None:
            raise EnvFactoryError(f"{self.target.label}: the session is not started")
        call = self._session.call_tool(tool, replaced(arguments, TMP, self._tmp))
        future = asyncio.run_coroutine_threadsafe(call, self._loop)
        try:
            result = future.result(self.timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            return ToolOutcome(ok=False, error=f"timeout: no answer within {self.timeout:.0f}s")
        except Exception as err:  # a protocol-level error: the server refused the request itself
            return ToolOutcome(ok=False, error=_root_cause(err).replace(self._tmp, TMP))
        outcome = outcome_of(result)
        return ToolOutcome(ok=outcome.ok, data=replaced(outcome.data, self._tmp, TMP),
                           error=outcome.error.replace(self._tmp, TMP) if outcome.error else None)  # fmt: skip

    def tools(self) -> list[dict[str, Any]]:
        """The server's ``tools/list`` entries (every page), as JSON; a server that does not answer,
        answers with an error, dies or lists a malformed tool is a clear ``EnvFactoryError``."""
        if self._loop is None or self._session is None:
            raise EnvFactoryError(f"{self.target.label}: the session is not started")
        future = asyncio.run_coroutine_threadsafe(self._tools(), self._loop)
        try:
            return future.result(self.timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise EnvFactoryError(f"{self.target.label}: no answer to tools/list within {self.timeout:.0f}s") from None
        except Exception as err:
            raise EnvFactoryError(f"{self.target.label}: tools/list failed: {_root_cause(err)[:300]}") from None

    def tool_names(self) -> list[str]:
        return [t["name"] for t in self.tools()]

    async def _tools(self) -> list[dict[str, Any]]:
        from mcp import types

        tools: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page = await self._session.list_tools(params=params)
            tools += [t.model_dump(by_alias=True, exclude_none=True) for t in page.tools]
            # the SDK renamed nextCursor to next_cursor (reading the old name is deprecated there)
            cursor = page.next_cursor if hasattr(page, "next_cursor") else getattr(page, "nextCursor", None)
            if not cursor:
                return tools

    def close(self) -> None:
        """Stop the server (the SDK closes its stdin, then kills its whole process group), even
        when it never finished starting: the session's task is cancelled, not only asked to stop."""
        if self._loop is not None and self._stop is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._stop.set)
                if self._task is not None and self._session is None:  # stuck starting: cancel it
                    self._loop.call_soon_threadsafe(self._task.cancel)
        if self._thread is not None:
            self._thread.join(self.timeout)
        for group in self._groups:  # what the server left behind (a child that outlived it) goes too
            with contextlib.suppress(OSError):
                os.killpg(group, signal.SIGKILL)
        self._groups = set()
        if self._errlog is not None:
            self._errlog.close()
        if self._removal is not None:
            self._removal()  # the folder, once
        self._loop = self._session = self._thread = self._errlog = self._task = None


_STARTING = threading.Lock()


def _children() -> set[int]:
    """This process's child processes (read from ``/proc``; empty where there is none)."""
    me, found = os.getpid(), set()
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    if int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1]) == me:
                        found.add(int(entry))
    return found


def replaced(value: Any, old: str, new: str) -> Any:
    """``value`` with ``old`` replaced by ``new`` in every string inside it (a session's folder and ``{tmp}``)."""
    if not old:
        return value
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, dict):
        return {k: replaced(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [replaced(v, old, new) for v in value]
    return value


def outcome_of(result: Any) -> ToolOutcome:
    """A ``CallToolResult`` as a ``ToolOutcome`` (see the module docstring)."""
    texts = [getattr(c, "text", "") for c in getattr(result, "content", None) or () if getattr(c, "type", "") == "text"]
    text = "\n".join(texts)
    if _member(result, "is_error", "isError"):
        return ToolOutcome(ok=False, error=text or "error")
    structured = _member(result, "structured_content", "structuredContent")
    if structured is not None:
        inner = _wrapped_json(structured, text)
        return ToolOutcome(ok=True, data=structured if inner is None else inner)
    try:
        return ToolOutcome(ok=True, data=json.loads(text))
    except ValueError:
        return ToolOutcome(ok=True, data=text)


def _wrapped_json(structured: Any, text: str) -> Any:
    """The JSON object or array structured content only wraps, or ``None``: the MCP Python SDK
    answers a tool that returns text as ``{"result": TEXT}``, so JSON written as text is read as
    the JSON it is, as it is where a server gives no structured content."""
    if not (isinstance(structured, dict) and len(structured) == 1 and structured.get("result") == text):
        return None
    if text.lstrip()[:1] not in ("{", "["):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _member(result: Any, name: str, old_name: str) -> Any:
    """A member of an MCP SDK result under its SDK 2 name, else its SDK 1 name (read only where the
    new one is missing: SDK 2 warns on every read of the old one)."""
    return (
        getattr(result, name)
        if hasattr(type(result), name) or hasattr(result, name)
        else getattr(result, old_name, None)
    )


def _root_cause(err: BaseException) -> str:
    while isinstance(err, BaseExceptionGroup) and err.exceptions:
        err = err.exceptions[0]
    return f"{type(err).__name__}: {err}"


__all__ = ["McpSession", "McpTarget", "ToolOutcome", "outcome_of", "parse_env", "replaced"]

"""An environment's episode served over MCP, so any MCP client or agent can be evaluated on it.

``envfactory serve ENV_DIR --mcp`` (stdio) or ``--mcp-http --port N`` (streamable HTTP). The server
holds one episode per connection. It lists the environment's tools (description, input and
output schemas, read-only hints) and, only when asked (``control=True``, ``--control``), three
more for the harness — never by default, since an agent would see them among its tools:

- ``env_reset(task_id?, seed?)``: start the episode (on a task of ``--tasks``, or free play) and
  return the user's opening request;
- ``env_reply(text)``: say something to the user; returns the user's answer (or that the
  conversation is over);
- ``env_verify()``: the verdict of the task: success and reward only (the reasons would tell the
  agent's side the goal: "status is paid, expected cancelled").

Arguments of the wrong type (a list for ``task_id``, NaN for ``seed``) are refused with a clear
message. Over HTTP, ``token`` (``ENVFACTORY_TOKEN``) is required as a bearer token, bodies are
bounded in size and in the time they take to arrive, and a new session beyond ``max_sessions`` is
refused (an episode is dropped only when the SDK has ended its session, never while it is live).
Over stdio, a line the SDK cannot parse (a lone surrogate, nesting past 64 levels) is still
answered, with the reason, under its request id.

A tool call answers the tool's JSON content; a refusal is an MCP error result (``isError``)
carrying the same JSON, so an MCP agent sees exactly what an in-process agent sees.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from envfactory.ir.task import Task
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.users.scripted import ScriptedUser

JSON = dict[str, Any]
CONTROL = ("env_reset", "env_reply", "env_verify")
MAX_DEPTH = 64
REFUSED = "envfactory/refused"  # the tool name a refused stdio line is answered under
_ID = re.compile(r'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')


def control_tools() -> list[JSON]:
    return [
        {"name": "env_reset", "description": "Start the episode: on a task (by id) or free play; returns the "
         "user's opening request.", "inputSchema": {"type": "object", "properties": {
             "task_id": {"type": "string"}, "seed": {"type": "integer"}}}},
        {"name": "env_reply", "description": "Say something to the user; returns the user's answer.",
         "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
        {"name": "env_verify", "description": "Check the task: success, reward and the reasons.",
         "inputSchema": {"type": "object", "properties": {}}},
    ]  # fmt: skip


class EpisodeHost:
    """The episode behind one MCP connection, and the calls the server forwards to it."""

    def __init__(self, env: Environment, tasks: dict[str, Task], control: bool = False) -> None:
        self.env, self.tasks, self.control = env, tasks, control
        self.episode: Episode = env.episode(user=ScriptedUser())
        self.episode.reset()
        self._lock = threading.Lock()

    def tools(self) -> list[JSON]:
        listed = []
        for tool in self.env.spec.tools.tools:
            entry: JSON = {"name": tool.name, "description": tool.description or "", "inputSchema": tool.called_schema}
            if tool.annotations.read_only is not None:
                entry["annotations"] = {"readOnlyHint": tool.annotations.read_only}
            listed.append(entry)
        return listed + (control_tools() if self.control else [])

    def call(self, name: str, arguments: JSON) -> tuple[bool, str]:
        with self._lock:
            if self.control and name in CONTROL:
                return self._control(name, arguments)
            result = self.episode.call_tool(name, arguments)
            return result.ok, result.content

    def _control(self, name: str, arguments: JSON) -> tuple[bool, str]:
        if name == "env_reset":
            task_id, seed = arguments.get("task_id"), arguments.get("seed")
            if task_id is not None and not isinstance(task_id, str):
                return False, _refusal("invalid_arguments", "task_id must be a string")
            if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or abs(seed) >= 2**63):
                return False, _refusal("invalid_arguments", "seed must be an integer within 64 bits")
            if task_id is not None and task_id not in self.tasks:
                return False, _refusal("not_found", f"no task {task_id[:200]!r}")
            messages = self.episode.reset(task=self.tasks.get(task_id) if task_id else None, seed=seed)
            return True, json.dumps({"task_id": task_id, "request": messages[-1]["content"]})
        if name == "env_reply":
            text = arguments.get("text")
            if not isinstance(text, str):
                return False, _refusal("invalid_arguments", "text must be a string")
            answer = self.episode.respond(text)
            return True, json.dumps({"user": answer[0]["content"] if answer else None, "done": self.episode.done})
        verdict = self.episode.verify()  # success and reward only: the reasons state the goal
        return True, json.dumps({"success": verdict.success, "reward": verdict.reward})


def _refusal(code: str, message: str) -> str:
    return json.dumps({"error": {"code": code, "message": message}})


class AtCapacity(RuntimeError):
    """A new MCP session while ``max_sessions`` episodes are live: refused, nothing evicted."""


def build_server(host_factory: Any, name: str, *, max_hosts: int = 64, live: Callable[[], Any] | None = None) -> Any:
    """A low-level MCP server whose connections each get their own ``EpisodeHost``: at most
    ``max_hosts``; ``live()`` gives the session ids the transport still holds (an ended session's
    episode is dropped; a live one's never)."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    hosts: dict[str, EpisodeHost] = {}
    lock = threading.Lock()

    def host_of(ctx: Any) -> EpisodeHost:
        # over HTTP a connection is its Mcp-Session-Id; over stdio the process is the connection
        headers = getattr(getattr(ctx, "request", None), "headers", None)
        key = headers.get("mcp-session-id", "") if headers is not None else "stdio"
        with lock:
            if key not in hosts:
                current = live() if live is not None and len(hosts) >= max_hosts else None
                if current is not None:
                    alive = set(current)
                    for gone in [k for k in hosts if k not in alive]:
                        del hosts[gone]
                if len(hosts) >= max_hosts:
                    raise AtCapacity(f"the server holds its limit of {max_hosts} live sessions; try again later")
                hosts[key] = host_factory()
            return hosts[key]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in host_of(ctx).tools()])

    async def call_tool(ctx: Any, params: Any) -> Any:
        if params.name == REFUSED:  # a line the SDK could not have parsed (see ``_screened``)
            reason = str((params.arguments or {}).get("reason", "refused"))
            return types.CallToolResult(content=[types.TextContent(type="text", text=reason)], is_error=True)
        ok, content = host_of(ctx).call(params.name, dict(params.arguments or {}))
        return types.CallToolResult(content=[types.TextContent(type="text", text=content)], is_error=not ok)

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


def _problem(value: Any) -> str | None:
    """Why a parsed JSON-RPC line cannot go on to the SDK (too deep, a lone surrogate), or None."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"the request is nested deeper than {MAX_DEPTH} levels"
        if isinstance(node, str):
            if any("\ud800" <= ch <= "\udfff" for ch in node):
                return "the request holds a lone surrogate, which is not Unicode"
        elif isinstance(node, dict):
            stack.extend((k, depth + 1) for k in node)
            stack.extend((v, depth + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
    return None


def screen(line: str) -> str:
    """``line`` if the SDK can take it; else a ``tools/call`` of ``REFUSED`` under the same request
    id carrying the reason, so that every request is answered (the SDK drops lines it cannot parse)."""
    try:
        problem = _problem(json.loads(line))
    except RecursionError:
        problem = f"the request is nested deeper than {MAX_DEPTH} levels"
    except ValueError:
        return line  # not JSON: the SDK's own parse error
    if problem is None:
        return line
    found = _ID.search(line)
    if found is None:
        return line
    params = {"name": REFUSED, "arguments": {"reason": json.dumps({"error": {"code": "invalid_arguments",
                                                                             "message": problem}})}}  # fmt: skip
    return json.dumps({"jsonrpc": "2.0", "id": json.loads(found.group(1)), "method": "tools/call", "params": params})


class _ScreenedStdin:
    """The process's stdin as the SDK reads it (lines of text), each line screened first."""

    def __init__(self) -> None:
        import io

        import anyio

        self._file = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        async for line in self._file:
            yield screen(line)


def serve_stdio(env_dir: Path, tasks: dict[str, Task], *, control: bool = False, trust_code: bool = False) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    env = Environment.load(env_dir, trust_code=trust_code)
    server = build_server(lambda: EpisodeHost(env, tasks, control), env.name, max_hosts=1)

    async def main() -> None:
        async with stdio_server(stdin=_ScreenedStdin()) as (read, write):  # type: ignore[arg-type]
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def http_app(
    env_dir: Path, tasks: dict[str, Task], *, control: bool = False, trust_code: bool = False,
    max_sessions: int = 64, host: str = "127.0.0.1", token: str | None = None, max_body: int = 1 << 20,
    idle_s: float = 300.0, body_s: float = 10.0,
) -> Any:  # fmt: skip
    """The MCP streamable-HTTP app at ``/mcp``: a session (and an episode) per client, with the SDK's
    session limit, idle expiry and DNS-rebinding protection on loopback, behind the same guard as
    the OpenEnv server (``token`` required, bodies within ``max_body`` bytes and ``body_s`` seconds)."""
    from envfactory.serve.guard import Guard

    env = Environment.load(env_dir, trust_code=trust_code)
    holder: dict[str, Any] = {}

    def live() -> Any:  # the SDK's live sessions; None (prune nothing) if it keeps them elsewhere
        instances = getattr(holder.get("app"), "_server_instances", None)
        return instances.keys() if isinstance(instances, dict) else None

    server = build_server(lambda: EpisodeHost(env, tasks, control), env.name, max_hosts=max_sessions, live=live)
    app = server.streamable_http_app(max_sessions=max_sessions, host=host, session_idle_timeout=idle_s,
                                     max_request_body_size=max_body)  # fmt: skip
    holder["app"] = server._session_manager
    return Guard(app, token=token, max_body=max_body, idle_s=idle_s, body_s=body_s)


__all__ = ["CONTROL", "AtCapacity", "EpisodeHost", "build_server", "control_tools", "http_app", "screen",
           "serve_stdio"]  # fmt: skip

"""An environment's episode served over MCP, so any MCP client or agent can be evaluated on it.

``envfactory serve ENV_DIR --mcp`` (stdio) or ``--mcp-http --port N`` (streamable HTTP). The server
holds one episode per connection. It lists the environment's tools (description, input and
output schemas, read-only hints) and, unless ``control=False``, three more for the harness:

- ``env_reset(task_id?, seed?)``: start the episode (on a task of ``--tasks``, or free play) and
  return the user's opening request;
- ``env_reply(text)``: say something to the user; returns the user's answer (or that the
  conversation is over);
- ``env_verify()``: the verdict of the task (success, reward, reasons).

A tool call answers the tool's JSON content; a refusal is an MCP error result (``isError``)
carrying the same JSON, so an MCP agent sees exactly what an in-process agent sees.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from envfactory.ir.task import Task
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.users.scripted import ScriptedUser

JSON = dict[str, Any]
CONTROL = ("env_reset", "env_reply", "env_verify")
MAX_HOSTS = 1024


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

    def __init__(self, env: Environment, tasks: dict[str, Task], control: bool = True) -> None:
        self.env, self.tasks, self.control = env, tasks, control
        self.episode: Episode = env.episode(user=ScriptedUser())
        self.episode.reset()
        self._lock = threading.Lock()

    def tools(self) -> list[JSON]:
        listed = []
        for tool in self.env.spec.tools.tools:
            entry: JSON = {"name": tool.name, "description": tool.description or "", "inputSchema": tool.input_schema}
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
            task_id = arguments.get("task_id")
            if task_id is not None and task_id not in self.tasks:
                return False, json.dumps({"error": {"code": "not_found", "message": f"no task {task_id!r}"}})
            task = self.tasks.get(task_id) if isinstance(task_id, str) else None
            seed = arguments.get("seed")
            messages = self.episode.reset(task=task, seed=seed if isinstance(seed, int) else None)
            return True, json.dumps({"task_id": task_id, "request": messages[-1]["content"]})
        if name == "env_reply":
            answer = self.episode.respond(str(arguments.get("text") or ""))
            return True, json.dumps({"user": answer[0]["content"] if answer else None, "done": self.episode.done})
        verdict = self.episode.verify()
        return True, json.dumps(
            {"success": verdict.success, "reward": verdict.reward, "reasons": list(verdict.reasons)}
        )


def build_server(host_factory: Any, name: str) -> Any:
    """A low-level MCP server whose connections each get their own ``EpisodeHost``."""
    import mcp_types as types
    from mcp.server.lowlevel import Server

    hosts: dict[str, EpisodeHost] = {}

    def host_of(ctx: Any) -> EpisodeHost:
        # over HTTP a connection is its Mcp-Session-Id; over stdio the process is the connection
        headers = getattr(getattr(ctx, "request", None), "headers", None)
        key = headers.get("mcp-session-id", "") if headers is not None else "stdio"
        if key not in hosts:
            while len(hosts) >= MAX_HOSTS:  # sessions the transport expired leave their episodes behind
                hosts.pop(next(iter(hosts)))
            hosts[key] = host_factory()
        return hosts[key]

    async def list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in host_of(ctx).tools()])

    async def call_tool(ctx: Any, params: Any) -> Any:
        ok, content = host_of(ctx).call(params.name, dict(params.arguments or {}))
        return types.CallToolResult(content=[types.TextContent(type="text", text=content)], is_error=not ok)

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


def serve_stdio(env_dir: Path, tasks: dict[str, Task], *, control: bool = True, trust_code: bool = False) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    env = Environment.load(env_dir, trust_code=trust_code)
    server = build_server(lambda: EpisodeHost(env, tasks, control), env.name)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def http_app(
    env_dir: Path, tasks: dict[str, Task], *, control: bool = True, trust_code: bool = False,
    max_sessions: int = 64, host: str = "127.0.0.1",
) -> Any:  # fmt: skip
    """The MCP streamable-HTTP app at ``/mcp``: a session (and an episode) per client, with the SDK's
    session limit, idle expiry, request-size limit and DNS-rebinding protection on loopback."""
    env = Environment.load(env_dir, trust_code=trust_code)
    server = build_server(lambda: EpisodeHost(env, tasks, control), env.name)
    return server.streamable_http_app(max_sessions=max_sessions, host=host)


__all__ = ["CONTROL", "EpisodeHost", "build_server", "control_tools", "http_app", "serve_stdio"]

"""Environments whose tools a live MCP server answers: the real thing behind the same contract.

``synthesize("mcp+stdio:CMD", bind=True)`` makes every behaviour a :class:`ServedEffect`. Each
episode then gets its own server (``{tmp}`` in the command or its environment variables is a
fresh folder per server), taken from a :class:`ServerPool` that keeps spare servers started in
the background, so a reset does not wait for a process to boot. The server is the episode's
*owner* (like a bound Python object): ``state_hash`` digests what its read-everything tool
answers (``read_graph``, ``directory_tree``), or, without one, the writes it accepted;
``snapshot``/``restore`` replay the logged calls on a fresh server and check that it reaches the
recorded state; ids the replayed server mints anew are mapped onto those the agent saw
(:mod:`envfactory.real.idmap`), or the restore says plainly that it cannot be done. A refusal
becomes a tool error whose class is read from the server's message.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envfactory.errors import EnvSpecError
from envfactory.ir.effect import ServedEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.tool import ToolSpec, dump_tool, wrapped_args
from envfactory.real.idmap import IdMap
from envfactory.real.mcp import TMP, McpSession, McpTarget, ToolOutcome
from envfactory.runtime.behaviours import COMPILERS, CallContext, Executor, error_class, returned_error
from envfactory.runtime.result import ToolError

JSON = dict[str, Any]


@dataclass(frozen=True)
class _Reading:
    """How an environment's servers show their state (worked out once per environment)."""

    dump: str | None  # the read-everything tool, if the server has one
    dump_args: JSON  # ``{"path": "{tmp}"}`` for a file server's tree
    read_only: frozenset[str]  # tools annotated read-only: not writes
    wrappers: dict[str, str]  # the object each tool taking its arguments wrapped takes them in

    @classmethod
    def of(cls, spec: EnvSpec) -> _Reading:
        dump = dump_tool(spec.tools)
        args: JSON = {"path": TMP} if dump and spec.tools[dump].required == ["path"] else {}
        return cls(dump, args, frozenset(t.name for t in spec.tools.tools if t.annotations.read_only),
                   {t.name: t.wrapped for t in spec.tools.tools if t.wrapped})  # fmt: skip


class ServedServer:
    """One running server, an episode's owner (``{tmp}`` maps both ways in ``McpSession.call``)."""

    def __init__(self, session: McpSession, reading: _Reading) -> None:
        self.session, self.reading = session, reading
        self.writes: list[tuple[str, Any]] = []  # the state's record when there is no read-everything tool
        self.ids = IdMap()  # after a restore: the ids the agent saw <-> those this server minted
        self._close = weakref.finalize(self, _stop_soon, session)

    def call(self, tool: str, args: JSON) -> ToolOutcome:
        """Call the server with its own ids; the answer comes back in the agent's."""
        wrapper = self.reading.wrappers.get(tool)  # the episode reads them unwrapped, the server takes them wrapped
        sent = wrapped_args(args, wrapper) if wrapper else args
        outcome = self.session.call(tool, self.ids.server_side(sent))
        if self.ids:
            outcome = ToolOutcome(outcome.ok, self.ids.agent_side(outcome.data), self.ids.agent_side(outcome.error))
        if outcome.ok and tool not in self.reading.read_only:
            self.writes.append((tool, args))
        return outcome

    def replayed(self, seen: str | None, now: str | None) -> None:
        """A restore replayed one call: pair what the agent was answered with what this server
        answers now (ids it minted anew)."""
        self.ids.learn(_parsed(seen), _parsed(now))

    def restore_problem(self) -> str | None:
        """Why this server cannot stand for the recorded one, if it cannot."""
        if not self.ids.unpaired:
            return None
        return (f"a live server cannot be restored: replaying its calls, its answers differ beyond the ids it "
                f"mints ({'; '.join(self.ids.unpaired[:3])})")  # fmt: skip

    def state(self) -> Any:
        """What the read-everything tool answers now, else the writes the server accepted."""
        if self.reading.dump is None:
            return [[tool, args] for tool, args in self.writes]
        outcome = self.call(self.reading.dump, dict(self.reading.dump_args))
        return outcome.data if outcome.ok else {"unreadable": outcome.error}

    def close(self) -> None:
        self._close()


def _parsed(text: str | None) -> Any:
    try:
        return json.loads(text) if text is not None else None
    except ValueError:
        return text


def _stop_soon(session: McpSession) -> None:
    """Stop a server without making the episode that let go of it wait for the process to end."""
    threading.Thread(target=session.close, daemon=True).start()


class ServerPool:
    """Servers for the episodes of one environment: ``take()`` hands out a started one and starts
    ``spare`` replacements in the background. Every server stops when its episode lets go of it
    (or at exit)."""

    def __init__(self, spec: EnvSpec, target: McpTarget, *, spare: int = 1, log: Path | None = None) -> None:
        self.spec, self.target, self.spare, self.log = spec, target, max(0, spare), log
        self.setup = served_setup(spec)  # calls every fresh server gets before its episode
        self.reading = _Reading.of(spec)
        self._closed = False
        self._ready: deque[McpSession] = deque()
        self._starting = 0
        self._lock = threading.Lock()
        self._stop = weakref.finalize(self, _stop_all, self._ready)  # when the environment goes, or at exit

    def take(self) -> ServedServer:
        with self._lock:
            session = self._ready.popleft() if self._ready else None
        if session is None:
            session = self._start()  # none ready: start one now (a startup error surfaces here)
        self._refill()
        return ServedServer(session, self.reading)

    def _start(self) -> McpSession:
        session = McpSession(self.target, log=self.log)
        session.start()
        try:
            set_up(session, self.setup, self.spec.name)
        except EnvSpecError:
            session.close()
            raise
        return session

    def _refill(self) -> None:
        with self._lock:
            wanted = self.spare - len(self._ready) - self._starting
            self._starting += max(0, wanted)
        for _ in range(max(0, wanted)):
            threading.Thread(target=self._start_spare, daemon=True).start()

    def _start_spare(self) -> None:
        try:
            session = self._start()
        except Exception:  # the next take() starts its own, and its error is the one the caller sees
            with self._lock:
                self._starting -= 1
            return
        with self._lock:
            self._starting -= 1
            if not self._closed:
                self._ready.append(session)
                return
        session.close()

    def close(self) -> None:
        """Stop the spare servers (the episodes' own stop with their episodes)."""
        with self._lock:
            self._closed = True
            _stop_all(self._ready)


def _stop_all(ready: deque[McpSession]) -> None:
    while ready:
        ready.popleft().close()


def served_target(spec: EnvSpec) -> McpTarget | None:
    """The server an environment's served behaviours name (one per environment), if any."""
    effects = {b.effect for b in spec.behaviours if isinstance(b.effect, ServedEffect)}
    if not effects:
        return None
    if len({(e.target, e.env) for e in effects}) > 1:
        raise EnvSpecError(f"env {spec.name!r}: served behaviours must name one server, got "
                           f"{sorted({e.target for e in effects})}")  # fmt: skip
    effect = next(iter(effects))
    return McpTarget.parse(effect.target, dict(effect.env))


def served_setup(spec: EnvSpec) -> list[tuple[str, JSON]]:
    """The calls every fresh server of ``spec`` gets first: its scenario file (``synth --bind
    --scenario calls.json``)."""
    return read_setup(spec.config.scenario, spec.tools.names, spec.name) if spec.config.scenario else []


def read_setup(path: str, tools: list[str], env: str) -> list[tuple[str, JSON]]:
    """Setup calls: a JSON list of ``{"tool": ..., "arguments": {...}}``; a clear error names the
    file and the entry that is not one."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise EnvSpecError(f"env {env!r}: cannot read the setup calls {path}: {err}") from None
    calls = []
    for i, entry in enumerate(data if isinstance(data, list) else [data]):
        args = entry.get("arguments", entry.get("args", {})) if isinstance(entry, dict) else None
        if not isinstance(entry, dict) or entry.get("tool") not in tools or not isinstance(args, dict):
            raise EnvSpecError(f"env {env!r}: {path} entry {i} must be {{\"tool\": one of the server's tools, "
                               f"\"arguments\": {{...}}}}, got {str(entry)[:120]}")  # fmt: skip
        calls.append((str(entry["tool"]), args))
    return calls


def set_up(session: McpSession, calls: list[tuple[str, JSON]], env: str) -> list[Any]:
    """Make the setup calls on a fresh server, and return its answers; one it refuses is a clear
    error, never half a setup."""
    answers = []
    for i, (tool, args) in enumerate(calls):
        outcome = session.call(tool, args)
        if not outcome.ok:
            raise EnvSpecError(f"env {env!r}: setup call {i} ({tool}) was refused by the server: "
                               f"{(outcome.error or '')[:200]}")  # fmt: skip
        answers.append(outcome.data)
    return answers


def agreed(a: Any, b: Any) -> Any:
    """What two answers to the same call hold alike: members and items both hold, each value where
    they agree, ``None`` where they differ (a random id, a clock reading)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: agreed(v, b[k]) for k, v in a.items() if k in b}
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [agreed(x, y) for x, y in zip(a, b, strict=True)]
    return a if a == b and type(a) is type(b) else None


@COMPILERS.register("served")
def _served(effect: ServedEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    def run(ctx: CallContext, args: JSON) -> Any:
        if not isinstance(ctx.owner, ServedServer):
            raise ToolError("precondition_failed", f"no server is running for {tool.name!r}")
        outcome = ctx.owner.call(tool.name, args)
        if not outcome.ok:
            message = outcome.error or "the server refused the call"
            raise ToolError(error_class(message), message)
        refused = returned_error(outcome.data, args)  # "Error: ..." in a reply the server did not flag
        if refused is not None:
            raise refused
        return outcome.data

    return run


__all__ = ["ServedServer", "ServerPool", "agreed", "read_setup", "served_setup", "served_target", "set_up"]

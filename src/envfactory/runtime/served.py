"""Environments whose tools a live MCP server answers: the real thing behind the same contract.

``synthesize("mcp+stdio:CMD", bind=True)`` makes every behaviour a :class:`ServedEffect`. Each
episode then gets its own server (``{tmp}`` in the command or its environment variables is a
fresh folder per server), taken from a :class:`ServerPool` that keeps spare servers started in
the background, so a reset does not wait for a process to boot. The server is the episode's
*owner* (like a bound Python object): ``state_hash`` digests what its read-everything tool
answers (``read_graph``, ``directory_tree``), or, without one, the writes it accepted;
``snapshot``/``restore`` replay the logged calls on a fresh server and check that it reaches the
recorded state. A refusal becomes a tool error whose class is read from the server's message.
"""

from __future__ import annotations

import atexit
import threading
import weakref
from collections import deque
from pathlib import Path
from typing import Any

from envfactory.ir.effect import ServedEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.tool import ToolSpec, dump_tool
from envfactory.mcplive import TMP, McpSession, McpTarget, ToolOutcome, replaced
from envfactory.runtime.behaviours import COMPILERS, CallContext, Executor, error_class
from envfactory.runtime.result import ToolError

JSON = dict[str, Any]


class ServedServer:
    """One running server, an episode's owner. ``{tmp}`` in arguments is its folder, and its
    folder in answers reads ``{tmp}``, so transcripts and state digests do not depend on where
    the folder happened to be made."""

    def __init__(self, session: McpSession, spec: EnvSpec) -> None:
        self.session = session
        self.dump = dump_tool(spec.tools)
        self.dump_args: JSON = {"path": TMP} if self.dump and spec.tools[self.dump].required == ["path"] else {}
        self.read_only = frozenset(t.name for t in spec.tools.tools if t.annotations.read_only)
        self.writes: list[tuple[str, Any]] = []  # the state's record when there is no read-everything tool
        self._close = weakref.finalize(self, _stop_soon, session)

    def call(self, tool: str, args: JSON) -> ToolOutcome:
        folder = self.session.folder
        outcome = self.session.call(tool, replaced(args, TMP, folder))
        if outcome.ok and tool not in self.read_only:
            self.writes.append((tool, args))
        if outcome.error is not None:
            return ToolOutcome(ok=False, error=outcome.error.replace(folder, TMP))
        return ToolOutcome(ok=outcome.ok, data=replaced(outcome.data, folder, TMP))

    def state(self) -> Any:
        """What the read-everything tool answers now, else the writes the server accepted."""
        if self.dump is None:
            return [[tool, args] for tool, args in self.writes]
        outcome = self.call(self.dump, dict(self.dump_args))
        return outcome.data if outcome.ok else {"unreadable": outcome.error}

    def close(self) -> None:
        self._close()


def _stop_soon(session: McpSession) -> None:
    """Stop a server without making the episode that let go of it wait for the process to end."""
    threading.Thread(target=session.close, daemon=True).start()


class ServerPool:
    """Servers for the episodes of one environment: ``take()`` hands out a started one and starts
    ``spare`` replacements in the background. Every server stops when its episode lets go of it
    (or at exit)."""

    def __init__(self, spec: EnvSpec, target: McpTarget, *, spare: int = 1, log: Path | None = None) -> None:
        self.spec, self.target, self.spare, self.log = spec, target, max(0, spare), log
        self._ready: deque[McpSession] = deque()
        self._starting = 0
        self._lock = threading.Lock()
        self._failure: BaseException | None = None
        atexit.register(self.close)

    def take(self) -> ServedServer:
        with self._lock:
            session = self._ready.popleft() if self._ready else None
        if session is None:
            session = self._start()  # none ready: start one now (a startup error surfaces here)
        self._refill()
        return ServedServer(session, self.spec)

    def _start(self) -> McpSession:
        session = McpSession(self.target, log=self.log)
        session.start()
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
        except Exception as err:  # reported by the next take(), which starts its own
            with self._lock:
                self._starting -= 1
                self._failure = err
            return
        with self._lock:
            self._starting -= 1
            self._ready.append(session)

    def close(self) -> None:
        """Stop the spare servers (the episodes' own stop with their episodes)."""
        with self._lock:
            spares, self._ready = list(self._ready), deque()
        for session in spares:
            session.close()


def served_target(spec: EnvSpec) -> McpTarget | None:
    """The server an environment's served behaviours name (one per environment), if any."""
    effects = {b.effect for b in spec.behaviours if isinstance(b.effect, ServedEffect)}
    if not effects:
        return None
    if len({(e.target, e.env) for e in effects}) > 1:
        from envfactory.errors import EnvSpecError

        raise EnvSpecError(f"env {spec.name!r}: served behaviours must name one server, got "
                           f"{sorted({e.target for e in effects})}")  # fmt: skip
    effect = next(iter(effects))
    return McpTarget.parse(effect.target, dict(effect.env))


@COMPILERS.register("served")
def _served(effect: ServedEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    def run(ctx: CallContext, args: JSON) -> Any:
        if not isinstance(ctx.owner, ServedServer):
            raise ToolError("precondition_failed", f"no server is running for {tool.name!r}")
        outcome = ctx.owner.call(tool.name, args)
        if not outcome.ok:
            message = outcome.error or "the server refused the call"
            raise ToolError(error_class(message), message)
        return outcome.data

    return run


__all__ = ["ServedServer", "ServerPool", "served_target"]

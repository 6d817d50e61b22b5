"""The OpenEnv WebSocket session protocol (``/ws``), answered straight from ASGI messages.

OpenEnv's own ``/ws`` route wraps each message in and out in pydantic models, reads the reset's
signature on every reset and goes through Starlette's WebSocket object; on a 2-core machine that
was most of a served step's cost (``bench/serve.py``). This handler speaks the same protocol over
the same sessions, so OpenEnv clients cannot tell the difference:

- in: ``{"type": "reset", "data": {seed, episode_id, task_id}}``, ``{"type": "step", "data":
  ACTION}``, ``{"type": "state"}``, ``{"type": "close"}``;
- out: ``{"type": "observation", "data": {"observation", "reward", "done"}}``, ``{"type": "state",
  "data": STATE}`` or ``{"type": "error", "data": {"message", "code"}}`` with OpenEnv's codes
  (``INVALID_JSON``, ``UNKNOWN_TYPE``, ``VALIDATION_ERROR``, ``EXECUTION_ERROR``,
  ``CAPACITY_REACHED``, ``FACTORY_ERROR``); a bad message is answered and the session goes on.

Added (clients that never send them see nothing new): the batched step of
:mod:`envfactory.serve.batch`, ``{"type": "reset_batch", "data": {"resets": [{task_id, seed,
episode_id, slot}, ...]}}`` and ``{"type": "step_batch", "data": {"steps": [{"slot", "action"},
...]}}``, answered by ``{"type": "observations", "data": {"results": [{"observation", "reward",
"done"} | {"error": {"code", "message"}}, ...]}}`` in the order asked.

A session whose calls never wait (no user code, sandboxed code or model: ``factory_in_thread``
off) offers :class:`~envfactory.serve.inline.InlineWebSocketProtocol` an answerer while it waits
for each message, so that a message is answered where it is read; the answerer gives the replies
:meth:`SessionSocket._answer` gives, the two dispatching alike.

Every other request (``/reset``, ``/step``, ``/state``, ``/schema``, ``/health``, ``/metadata``)
goes on to OpenEnv's app.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import orjson
from openenv.core.env_server.types import Action, Observation
from pydantic import ValidationError

from envfactory.core import from_json_text
from envfactory.serve.batch import BadField, BatchError, BatchRefused, EpisodeBatch, Outcome, reset_args
from envfactory.serve.guard import HEARD, ASGIApp, Receive, Scope, Send
from envfactory.serve.inline import ANSWER, Answerer
from envfactory.serve.recorder import as_plain

JSON = dict[str, Any]
_BESIDE = frozenset({"reward", "done", "metadata"})  # said beside the observation, or not at all
_WITH_DATA = frozenset({"reset", "step", "reset_batch", "step_batch"})


def _error(message: str, code: str, **more: Any) -> str:
    return json.dumps({"type": "error", "data": {"message": message, "code": code, **more}})


def _dumps(message: JSON) -> str:
    """``message`` as JSON text: orjson (several times faster than ``json`` on a step's reply),
    pydantic models inside as their JSON dump; ``json`` for what orjson refuses (integers past 64
    bits)."""
    try:
        return orjson.dumps(message, default=as_plain).decode()
    except TypeError:
        return json.dumps(message, default=as_plain)


def _observed(observation: Observation) -> JSON:
    """OpenEnv's observation reply's data: the observation's fields but ``reward``, ``done`` and
    ``metadata`` (as OpenEnv's ``serialize_observation``), read without a pydantic dump."""
    data = {k: v for k, v in observation.__dict__.items() if k not in _BESIDE}
    return {"observation": data, "reward": observation.reward, "done": observation.done}


def _observation(observation: Observation) -> str:
    return _dumps({"type": "observation", "data": _observed(observation)})


def _outcomes(outcomes: list[Outcome]) -> str:
    """A batch's reply: each item's observation data, or ``{"error": {"message", "code"}}``."""
    results = [{"error": o.model_dump()} if isinstance(o, BatchError) else _observed(o) for o in outcomes]
    return _dumps({"type": "observations", "data": {"results": results}})


# the messages that call the session, and how their results are answered
_RENDERED: dict[str, Callable[[Any], str]] = {"step_batch": _outcomes, "reset_batch": _outcomes,
                                              "step": _observation, "reset": _observation}  # fmt: skip


def _rendered(kind: Any) -> Callable[[Any], str] | None:
    """How a message of type ``kind`` that calls the session is answered; None for any other."""
    return _RENDERED.get(kind) if isinstance(kind, str) else None


class SessionSocket:
    """``/ws`` sessions in front of ``app``: each connection gets ``factory()`` (an OpenEnv
    ``Environment`` with ``reset_async``/``step_async``/``state``/``close``), at most
    ``max_sessions`` at once. ``factory_in_thread``: build sessions in a worker thread (slow
    environments, whose construction may run user code), and run a batch's items side by side.
    A connection's ``reset_batch``/``step_batch`` messages open more sessions in more slots of an
    :class:`~envfactory.serve.batch.EpisodeBatch` (slot 0 is the connection's own session), each
    one against ``max_sessions``, all closed with the connection."""

    def __init__(self, app: ASGIApp, factory: Callable[[], Any], action: type[Action], *, max_sessions: int,
                 factory_in_thread: bool = False) -> None:  # fmt: skip
        self.app, self.factory, self.action = app, factory, action
        self.max_sessions, self.factory_in_thread = max_sessions, factory_in_thread
        self.open = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket" or scope.get("path") != "/ws":
            await self.app(scope, receive, send)
            return
        if (await receive())["type"] != "websocket.connect":
            return
        await send({"type": "websocket.accept"})
        if self.open >= self.max_sessions:
            busy = f"the server holds its limit of {self.max_sessions} sessions; try again later"
            await _close(send, _error(busy, "CAPACITY_REACHED", active_sessions=self.open,
                                      max_sessions=self.max_sessions))  # fmt: skip
            return
        self.open += 1
        try:
            try:
                session = await asyncio.to_thread(self.factory) if self.factory_in_thread else self.factory()
            except Exception as err:  # the client is told why, the server goes on
                await _close(send, _error(f"the environment could not be created: {err}", "FACTORY_ERROR"))
                return
            batch = EpisodeBatch(self.factory, self.action, admit=self._admit, release=self._release,
                                 concurrent=self.factory_in_thread)  # fmt: skip
            batch.adopt(0, session)
            try:
                await self._serve(session, batch, receive, send, scope)
            finally:
                try:
                    batch.close()
                finally:
                    session.close()
        finally:
            self.open -= 1

    def _admit(self) -> bool:
        if self.open >= self.max_sessions:
            return False
        self.open += 1
        return True

    def _release(self) -> None:
        self.open -= 1

    async def _serve(self, session: Any, batch: EpisodeBatch, receive: Receive, send: Send, scope: Scope) -> None:
        inline = None if self.factory_in_thread else self._inline(session, batch, scope.get(HEARD))
        while True:
            if inline is not None:  # while this waits, the protocol may answer messages itself, in order
                scope[ANSWER] = inline
            message = await receive()
            scope.pop(ANSWER, None)
            if message["type"] != "websocket.receive":  # websocket.disconnect: the client left
                return
            text = message.get("text")
            if text is None:
                text = (message.get("bytes") or b"").decode("utf-8", "replace")
            reply = await self._answer(session, batch, text)
            if reply is None:  # the client said close
                await _close(send, None)
                return
            try:
                await send({"type": "websocket.send", "text": reply})
            except OSError:  # the client is gone
                return

    def _inline(self, session: Any, batch: EpisodeBatch, heard: Callable[[], None] | None) -> Answerer:
        """The answerer :class:`~envfactory.serve.inline.InlineWebSocketProtocol` calls for a
        message of this session: the same reply :meth:`_answer` gives, without an event-loop turn
        (the session's calls never wait); None for ``close``, which the app answers itself."""

        def answer(text: str) -> str | None:
            if heard is not None:
                heard()  # the guard's idle watch: the session is not silent
            read = _read(text)
            if isinstance(read, str) or read[0] == "close":
                return read if isinstance(read, str) else None
            kind, data = read
            try:
                render = _rendered(kind)
                if render is None:
                    return self._other(session, kind)
                return render(self._call(session, batch, kind, data, now=True))
            except Exception as err:
                return _failure(err)

        return answer

    async def _answer(self, session: Any, batch: EpisodeBatch, text: str) -> str | None:
        read = _read(text)
        if isinstance(read, str) or read[0] == "close":
            return read if isinstance(read, str) else None
        kind, data = read
        try:
            render = _rendered(kind)
            if render is None:
                return self._other(session, kind)
            return render(await self._call(session, batch, kind, data, now=False))
        except Exception as err:
            return _failure(err)

    def _call(self, session: Any, batch: EpisodeBatch, kind: str, data: Any, *, now: bool) -> Any:
        """What a message of one of :data:`_RENDERED`'s kinds asks of the session: its result
        (``now``: the session's own calls) or an awaitable of it (their ``_async`` forms)."""
        if kind == "step_batch":
            return (batch.step_now if now else batch.step)(data.get("steps"))
        if kind == "reset_batch":
            return (batch.reset_now if now else batch.reset)(data.get("resets"))
        if kind == "step":
            return (session.step if now else session.step_async)(self.action.model_validate(data))
        return (session.reset if now else session.reset_async)(**reset_args(data))

    def _other(self, session: Any, kind: Any) -> str:
        if kind == "state":
            return _dumps({"type": "state", "data": session.state.model_dump(mode="json")})
        return _error(f"Unknown message type: {kind}", "UNKNOWN_TYPE")


def _read(text: str) -> tuple[Any, Any] | str:
    """A message's ``(type, data)``, or the error reply when it is not a message."""
    try:
        message = from_json_text(text)
    except ValueError as err:
        return _error(f"Invalid JSON: {err}", "INVALID_JSON")
    except RecursionError:  # a message nested past the parser's depth: answered, the session goes on
        return _error("Invalid JSON: nested too deep", "INVALID_JSON")
    if not isinstance(message, dict):
        return _error("a message is a JSON object with a 'type'", "VALIDATION_ERROR")
    kind, data = message.get("type", ""), message.get("data", {})
    if isinstance(kind, str) and kind in _WITH_DATA and not isinstance(data, dict):
        return _error(f"a {kind} message's 'data' is a JSON object", "VALIDATION_ERROR")
    return kind, data


def _failure(err: Exception) -> str:
    """The reply to a message whose handling raised ``err``: the client's error, never the server's."""
    if isinstance(err, ValidationError):
        return _error("Invalid message", "VALIDATION_ERROR", errors=json.loads(err.json(include_url=False)))
    if isinstance(err, RecursionError):
        return _error("Invalid message: nested too deep", "VALIDATION_ERROR")
    if isinstance(err, BadField | BatchRefused):
        return _error(str(err), "VALIDATION_ERROR")
    return _error(str(err), "EXECUTION_ERROR")  # the environment's failure is the client's answer


async def _close(send: Send, last: str | None) -> None:
    """Send ``last`` (if any) and close; a client already gone is not an error."""
    try:
        if last is not None:
            await send({"type": "websocket.send", "text": last})
        await send({"type": "websocket.close", "code": 1000})
    except OSError:
        pass


__all__ = ["SessionSocket"]

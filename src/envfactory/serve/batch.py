"""The batched step: many sessions' episodes stepped by one message, answered in order.

A trainer steps a whole group (or several) at once; one message per episode step costs a frame,
a parse, a task wake-up and a reply each, which is most of a served step's cost
(``bench/serve.py``). An :class:`EpisodeBatch` holds many sessions behind one handle, each in its
*slot*, and steps any of them in one call:

- ``reset([{"task_id", "seed", "episode_id", "slot"}, ...])``: reset (or open) the named slots
  (``slot`` defaults to the item's position), one outcome per item;
- ``step([(slot, action), ...])``: step each named slot with its action, one outcome per item,
  in the order given, each exactly what a single step of that session answers.

An outcome is the session's observation, or a :class:`BatchError` for that item alone (an unknown
task, a bad action, a slot that was never reset): the others still run. Over the WebSocket
(:class:`~envfactory.serve.sessions.SessionSocket`) the same two calls are the messages
``{"type": "reset_batch", "data": {"resets": [...]}}`` and ``{"type": "step_batch", "data":
{"steps": [{"slot", "action"}, ...]}}``, answered by ``{"type": "observations", "data":
{"results": [...]}}``; in process, :meth:`EpisodeBatch.reset_now` / :meth:`EpisodeBatch.step_now`
do the same without an event loop. Every slot is one session against the server's session limit.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from openenv.core.env_server.types import Action, Observation
from pydantic import BaseModel, ConfigDict, ValidationError

JSON = dict[str, Any]
RESET_ARGS = {"seed": int, "episode_id": str, "task_id": str}
MAX_SEED = 2**63


class BadField(ValueError):
    """A message field of the wrong type."""


def reset_args(data: JSON) -> JSON:
    """A reset's keyword arguments (others are ignored, as OpenEnv does); a wrong type is a
    :class:`BadField` naming the field."""
    kwargs = {k: data[k] for k in RESET_ARGS if data.get(k) is not None}
    for name, value in kwargs.items():
        kind = RESET_ARGS[name]
        if (
            not isinstance(value, kind)
            or isinstance(value, bool)
            or (isinstance(value, int) and abs(value) >= MAX_SEED)
        ):
            raise BadField(f"reset field {name!r} must be {'an integer' if kind is int else 'a string'}, "
                           f"not {json.dumps(value)[:80]}")  # fmt: skip
    return kwargs


class BatchError(BaseModel):
    """One item of a batch that could not be done; the other items are unaffected. ``code`` is one
    of OpenEnv's WebSocket error codes (``VALIDATION_ERROR``, ``EXECUTION_ERROR``,
    ``CAPACITY_REACHED``, ``FACTORY_ERROR``)."""

    model_config = ConfigDict(frozen=True)

    code: str
    message: str


Outcome: TypeAlias = Observation | BatchError


class BatchRefused(ValueError):
    """A batch message that is not a list of items: nothing in it was done."""


class EpisodeBatch:
    """Sessions in slots, stepped together. ``factory()`` makes one session (an OpenEnv
    ``Environment``: ``reset``/``step`` and their ``_async`` forms, ``close``); ``admit()`` is asked
    before each new slot (False: that item is a ``CAPACITY_REACHED`` error) and ``release()`` told
    when a slot's session closes; ``action`` validates the actions given as JSON."""

    def __init__(self, factory: Callable[[], Any], action: type[Action], *, admit: Callable[[], bool] | None = None,
                 release: Callable[[], None] | None = None, concurrent: bool = False) -> None:  # fmt: skip
        self.factory, self.action, self.concurrent = factory, action, concurrent
        self.admit, self.release = admit or (lambda: True), release or (lambda: None)
        self.sessions: dict[int, Any] = {}
        self.borrowed: set[int] = set()

    def adopt(self, slot: int, session: Any) -> None:
        """Put a session its owner opened (and will close) in ``slot``: a WebSocket session's own
        episode is slot 0 of its batch."""
        self.sessions[slot] = session
        self.borrowed.add(slot)

    def __len__(self) -> int:
        return len(self.sessions)

    def _session(self, slot: Any, create: bool) -> Any:
        if not isinstance(slot, int) or isinstance(slot, bool) or slot < 0:
            raise _Refusal("VALIDATION_ERROR", f"a slot is a non-negative integer, not {slot!r}")
        session = self.sessions.get(slot)
        if session is not None:
            return session
        if not create:
            raise _Refusal("VALIDATION_ERROR", f"slot {slot} has no episode: reset it first")
        if not self.admit():
            raise _Refusal("CAPACITY_REACHED", "the server holds its session limit; this slot was not opened")
        try:
            session = self.factory()
        except Exception as err:
            self.release()
            raise _Refusal("FACTORY_ERROR", f"the environment could not be created: {err}") from err
        self.sessions[slot] = session
        return session

    def _resets(self, items: Any) -> list[tuple[Any, JSON] | BatchError]:
        if not isinstance(items, list):
            raise BatchRefused("'resets' is a list of {task_id, seed, episode_id, slot} objects")
        planned: list[tuple[Any, JSON] | BatchError] = []
        for position, item in enumerate(items):
            if not isinstance(item, dict):
                planned.append(BatchError(code="VALIDATION_ERROR", message="a reset item is a JSON object"))
                continue
            try:
                kwargs = reset_args(item)
                session = self._session(item.get("slot", position), create=True)
            except BadField as err:
                planned.append(BatchError(code="VALIDATION_ERROR", message=str(err)))
                continue
            except _Refusal as err:
                planned.append(err.error)
                continue
            planned.append((session, kwargs))
        return planned

    def _steps(self, items: Sequence[Any]) -> list[tuple[Any, Action] | BatchError]:
        if not isinstance(items, list | tuple):
            raise BatchRefused("'steps' is a list of {slot, action} objects")
        planned: list[tuple[Any, Action] | BatchError] = []
        for item in items:
            if isinstance(item, tuple) and len(item) == 2:
                slot, action = item
            elif isinstance(item, dict):
                slot, action = item.get("slot"), item.get("action")
            else:
                planned.append(BatchError(code="VALIDATION_ERROR", message="a step item is {slot, action}"))
                continue
            try:
                session = self._session(slot, create=False)
                if not isinstance(action, self.action):
                    action = self.action.model_validate(action)
            except _Refusal as err:
                planned.append(err.error)
                continue
            except ValidationError as err:
                planned.append(BatchError(code="VALIDATION_ERROR", message=_said(err)))
                continue
            except RecursionError:
                planned.append(BatchError(code="VALIDATION_ERROR", message="Invalid action: nested too deep"))
                continue
            planned.append((session, action))
        return planned

    async def reset(self, items: Any) -> list[Outcome]:
        """Reset (opening where new) the slots ``items`` name; one outcome per item, in order."""
        planned = self._resets(items)
        return await self._run([p if isinstance(p, BatchError) else _later(p[0].reset_async, **p[1]) for p in planned])

    async def step(self, items: Sequence[Any]) -> list[Outcome]:
        """Step the slots ``items`` name (``(slot, action)`` pairs or ``{"slot", "action"}``
        objects; an action as JSON or a model); one outcome per item, in order."""
        planned = self._steps(items)
        return await self._run([p if isinstance(p, BatchError) else _later(p[0].step_async, p[1]) for p in planned])

    async def _run(self, work: list[Any]) -> list[Outcome]:
        if self.concurrent:  # slow sessions (their calls in worker threads) run side by side
            done = await asyncio.gather(*(_outcome(w) for w in work))
            return list(done)
        return [await _outcome(w) for w in work]

    def reset_now(self, items: Any) -> list[Outcome]:
        """:meth:`reset` in process, without an event loop (each session's own ``reset``)."""
        return [p if isinstance(p, BatchError) else _now(p[0].reset, **p[1]) for p in self._resets(items)]

    def step_now(self, items: Sequence[Any]) -> list[Outcome]:
        """:meth:`step` in process, without an event loop (each session's own ``step``)."""
        return [p if isinstance(p, BatchError) else _now(p[0].step, p[1]) for p in self._steps(items)]

    def close(self) -> None:
        """Close every slot's session but the adopted ones."""
        owned = [s for slot, s in self.sessions.items() if slot not in self.borrowed]
        self.sessions = {slot: s for slot, s in self.sessions.items() if slot in self.borrowed}
        for session in owned:
            try:
                session.close()
            finally:
                self.release()


class _Refusal(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.error = BatchError(code=code, message=message)


def _said(err: ValidationError) -> str:
    if not err.error_count():
        return "Invalid action"
    first = err.errors(include_url=False)[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"Invalid action: {where}: {first['msg']}" if where else f"Invalid action: {first['msg']}"


def _later(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Callable[[], Any]:
    return lambda: call(*args, **kwargs)


async def _outcome(work: Any) -> Outcome:
    if isinstance(work, BatchError):
        return work
    try:
        result: Outcome = await work()
    except Exception as err:  # that item's failure is that item's answer
        return BatchError(code="EXECUTION_ERROR", message=str(err))
    return result


def _now(call: Callable[..., Any], *args: Any, **kwargs: Any) -> Outcome:
    try:
        result: Outcome = call(*args, **kwargs)
    except Exception as err:
        return BatchError(code="EXECUTION_ERROR", message=str(err))
    return result


__all__ = ["BadField", "BatchError", "BatchRefused", "EpisodeBatch", "Outcome", "reset_args"]

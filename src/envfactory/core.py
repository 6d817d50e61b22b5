"""The contract every part of envfactory builds on, in one typed place.

- :data:`ErrorCode`: what a tool call may answer instead of content. ``internal_error`` means the
  environment broke (a behaviour raised); it is never a refusal, and probes and fidelity
  measurements count it as a failure (:data:`BROKEN`).
- :class:`EpisodeLike`: what runs one agent's episode — a plain ``runtime.Episode``, a stack of
  randomization wrappers around one, and (later) a remote episode. Every adapter (Gymnasium,
  HTTP, MCP, trainers) and every consumer (policies' rollouts, the evaluator, the trainer) takes
  this, never a concrete class.
- :class:`ToolResult`: what a tool call answers (content, or a structured error); behaviours raise
  :class:`ToolError` to refuse.
- :class:`UserSimulator`: the simulated person on the other side of the conversation.
- :class:`Policy`: anything that turns the conversation so far into the next assistant message.

Agent input never raises out of an :class:`EpisodeLike`: malformed JSON, unknown tools, schema
violations, huge or non-canonical values are error results; each costs a step.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import orjson

if TYPE_CHECKING:
    from envfactory.ir.env import EnvSpec
    from envfactory.ir.task import Task, Verdict

JSON = dict[str, Any]
_ORJSON_OPTS = orjson.OPT_NON_STR_KEYS

ErrorCode = Literal[
    "invalid_arguments",
    "unknown_tool",
    "not_found",
    "conflict",
    "precondition_failed",
    "transient",
    "episode_over",
    "internal_error",
    "unsupported",  # the environment cannot simulate this write; nothing was done
]
ERROR_CODES: frozenset[str] = frozenset(ErrorCode.__args__)  # type: ignore[attr-defined]
BROKEN: frozenset[str] = frozenset({"internal_error"})


def to_json_text(value: Any) -> str:
    """Compact JSON text; orjson on the hot path, the standard library for what it refuses."""
    try:
        return orjson.dumps(value, option=_ORJSON_OPTS).decode()
    except TypeError:  # integers beyond 64 bits, exotic objects
        return json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)


# a run of 19 or more digits: a number orjson may read as a float where json reads an integer.
# Found by mapping every byte to "0" (a digit) or " " and looking for the run: a byte table and
# a substring search in C, ten times faster than ``re.search(r"\d{19}")`` on a 3 KB message
# (JSON's digits are ASCII, so only those are mapped)
_DIGIT_BYTES = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))
_LONG_RUN = b"0" * 19


def _long_digits(text: str) -> bool:
    return _LONG_RUN in text.encode("utf-8", "surrogatepass").translate(_DIGIT_BYTES)


def from_json_text(text: str) -> Any:
    """``json.loads(text)``, read by orjson (several times faster) wherever orjson reads the same:
    text with a run of 19 or more digits (an integer past 64 bits, which orjson makes a float)
    and text orjson refuses (``NaN``, lone surrogates, invalid JSON) go to ``json``, so the value
    and the error are what ``json`` gives."""
    if not _long_digits(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


class ToolError(Exception):
    """Raised by behaviours; turned into an error ToolResult by the episode (never escapes)."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# A slotted dataclass rather than a pydantic model: it is built on every step (hot path).
@dataclass(frozen=True, slots=True)
class ToolResult:
    ok: bool
    content: str  # JSON text shown to the agent
    error: ErrorCode | None = None

    @property
    def data(self) -> Any:
        return orjson.loads(self.content)

    @property
    def message(self) -> str | None:
        """A refusal's message (``{"error": {"code", "message"}}``); ``None`` for an answer."""
        if self.ok:
            return None
        data = self.data
        error = data.get("error") if isinstance(data, dict) else None
        said = error.get("message") if isinstance(error, dict) else None
        return None if said is None else str(said)

    @classmethod
    def failure(cls, code: ErrorCode, message: str) -> ToolResult:
        return tool_result(False, to_json_text({"error": {"code": code, "message": message}}), code)


_new_object = object.__new__
_SET_OK, _SET_CONTENT, _SET_ERROR = (vars(ToolResult)[f].__set__ for f in ("ok", "content", "error"))


def tool_result(ok: bool, content: str, error: ErrorCode | None = None) -> ToolResult:
    """``ToolResult(ok, content, error)`` at half the cost, for the hot path: a frozen dataclass's
    ``__init__`` is called through the type and sets each field with ``object.__setattr__``; this
    sets the slots through their descriptors. The same object, equal and frozen as any other."""
    result: ToolResult = _new_object(ToolResult)
    _SET_OK(result, ok)
    _SET_CONTENT(result, content)
    _SET_ERROR(result, error)
    return result


class EnvironmentLike(Protocol):
    """What an episode's ``env`` offers its consumers (``runtime.environment.Environment``)."""

    @property
    def name(self) -> str: ...
    @property
    def spec(self) -> EnvSpec: ...
    @property
    def tools(self) -> dict[str, Any]: ...  # name -> compiled tool
    @property
    def openai_tools(self) -> list[JSON]: ...
    @property
    def base(self) -> Any: ...  # the shared initial state

    def episode(self, *args: Any, **kwargs: Any) -> Any: ...


@runtime_checkable
class UserSimulator(Protocol):
    def opening(self, task: Task | None) -> str:
        """The first user message of an episode."""
        ...

    def reply(self, text: str) -> str | None:
        """Answer the agent's message; ``None`` ends the conversation."""
        ...


class EpisodeLike(Protocol):
    """One agent's run: see ``runtime.episode.Episode`` for the reference implementation."""

    @property
    def env(self) -> EnvironmentLike: ...  # the compiled environment (its spec and tools), shared by its episodes

    steps: int
    terminated: bool
    truncated: bool
    seed: int
    task: Task | None

    @property
    def done(self) -> bool: ...

    @property
    def tools(self) -> list[JSON]:
        """The tools on offer, in OpenAI ``tools=[...]`` form."""
        ...

    def reset(self, task: Task | None = None, seed: int | None = None) -> list[JSON]: ...

    def opening(self) -> list[JSON]: ...

    def call_tool(self, name: str, arguments: JSON | str | None = None) -> ToolResult: ...

    def reject(self, message: str, code: ErrorCode = "invalid_arguments") -> ToolResult: ...

    def respond(self, text: str) -> list[JSON]: ...

    def act(self, message: JSON) -> list[JSON]: ...

    def verify(self) -> Verdict: ...

    def snapshot(self) -> JSON: ...

    def restore(self, snap: JSON) -> None: ...

    def state_hash(self) -> str: ...


class Policy(Protocol):
    name: str

    def begin(self, task: Task | None, messages: list[JSON], tools: list[JSON]) -> None:
        """A new episode: its opening messages and the tools on offer."""
        ...

    def act(self, new_messages: list[JSON]) -> JSON:
        """The next assistant message, given what arrived since the last one."""
        ...


__all__ = [
    "BROKEN",
    "ERROR_CODES",
    "EnvironmentLike",
    "EpisodeLike",
    "ErrorCode",
    "Policy",
    "ToolError",
    "ToolResult",
    "UserSimulator",
    "to_json_text",
]

"""The contract every part of envfactory builds on, in one typed place.

- :data:`ErrorCode`: what a tool call may answer instead of content. ``internal_error`` means the
  environment broke (a behaviour raised); it is never a refusal, and probes and fidelity
  measurements count it as a failure (:data:`BROKEN`).
- :class:`EpisodeLike`: what runs one agent's episode — a plain ``runtime.Episode``, a stack of
  randomization wrappers around one, and (later) a remote episode. Every adapter (Gymnasium,
  HTTP, MCP, trainers) and every consumer (policies' rollouts, the evaluator, the trainer) takes
  this, never a concrete class.
- :class:`UserSimulator`: the simulated person on the other side of the conversation.
- :class:`Policy`: anything that turns the conversation so far into the next assistant message.

Agent input never raises out of an :class:`EpisodeLike`: malformed JSON, unknown tools, schema
violations, huge or non-canonical values are error results; each costs a step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

if TYPE_CHECKING:
    from envfactory.ir.task import Task, Verdict
    from envfactory.runtime.environment import Environment
    from envfactory.runtime.result import ToolResult

JSON = dict[str, Any]

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

    env: Environment  # the compiled environment (its spec and tools), shared by its episodes
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


__all__ = ["BROKEN", "ERROR_CODES", "EpisodeLike", "ErrorCode", "Policy", "UserSimulator"]

"""Task: what an episode asks of the agent and how success is checked."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from envfactory.ir.blueprint import Blueprint

JSON = dict[str, Any]


class Goal(BaseModel):
    """The verifiable outcome: the gold final state (by hash and/or rows) and answer facts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    state_hash: str | None = None
    # entity -> key (as string) -> the gold row, or None when the row must be gone
    rows: dict[str, dict[str, JSON | None]] = Field(default_factory=dict)
    answer: tuple[str, ...] = ()


class Call(BaseModel):
    """A concrete tool call of a gold plan."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: str
    args: JSON = Field(default_factory=dict)


class UserProfile(BaseModel):
    """What the simulated user knows but does not say up front, and how they speak."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    facts: dict[str, str] = Field(default_factory=dict)  # label (e.g. "title") -> value
    persona: str = ""


class Origin(BaseModel):
    """How to regenerate the task: ``generate_task(env, seed, attempt)``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    generator: str = "autoforge/1"
    seed: int
    attempt: int


class Task(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    env: str
    id: str
    seed: int = 0
    instruction: str
    user: UserProfile = UserProfile()
    blueprint: Blueprint | None = None
    gold: tuple[Call, ...] = ()
    goal: Goal = Goal()
    max_steps: int | None = Field(default=None, ge=1)
    difficulty: float = 0.0
    level: int = Field(default=1, ge=1)
    origin: Origin | None = None


class Verdict(BaseModel):
    """The outcome of :meth:`Episode.verify`: a reward in [0, 1] and the reasons for it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    reward: float
    success: bool
    reasons: tuple[str, ...] = ()
    state_hash: str = ""

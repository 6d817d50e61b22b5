"""Trajectory: the record of one episode, as trainers, evaluators and reports read it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

JSON = dict[str, Any]


class Trajectory(BaseModel):
    model_config = ConfigDict(frozen=True)

    env: str
    task_id: str
    level: int
    policy: str
    seed: int
    reward: float
    success: bool
    steps: int
    tool_calls: int
    tool_errors: int
    masked: bool = False  # spoiled by the (simulated) user, excluded from advantage statistics
    randomization: JSON = Field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    messages: tuple[JSON, ...] = ()

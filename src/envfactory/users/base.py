"""The UserSimulator seam. Scripted and LLM users implement it; the default closes politely."""

from __future__ import annotations

from envfactory.core import UserSimulator
from envfactory.ir.task import Task

__all__ = ["ClosingUser", "UserSimulator"]


class ClosingUser:
    """States the task, then treats the agent's first reply as its final answer."""

    def __init__(self, default_request: str = "Please help me with my request.") -> None:
        self.default_request = default_request

    def opening(self, task: Task | None) -> str:
        return task.instruction if task is not None else self.default_request

    def reply(self, text: str) -> str | None:
        return None

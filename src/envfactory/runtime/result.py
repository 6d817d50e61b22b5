"""ToolResult: what a tool call returns to the agent (content or a structured error)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

ErrorCode = Literal[
    "invalid_arguments",
    "unknown_tool",
    "not_found",
    "conflict",
    "precondition_failed",
    "transient",
    "episode_over",
]


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
        return json.loads(self.content)

    @classmethod
    def failure(cls, code: ErrorCode, message: str) -> ToolResult:
        body = {"error": {"code": code, "message": message}}
        return cls(False, json.dumps(body, ensure_ascii=True), code)

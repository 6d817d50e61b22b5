"""ToolResult: what a tool call returns to the agent (content or a structured error)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

import orjson

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
]
ERROR_CODES: frozenset[str] = frozenset(ErrorCode.__args__)  # type: ignore[attr-defined]
# Codes that mean "the environment is broken", never "the tool refused": probes and fidelity
# measurements count them as failures.
BROKEN: frozenset[str] = frozenset({"internal_error"})


def to_json_text(value: Any) -> str:
    """Compact JSON text; orjson on the hot path, the standard library for what it refuses."""
    try:
        return orjson.dumps(value, option=_ORJSON_OPTS).decode()
    except TypeError:  # integers beyond 64 bits, exotic objects
        return json.dumps(value, ensure_ascii=True, separators=(",", ":"), default=str)


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

    @classmethod
    def failure(cls, code: ErrorCode, message: str) -> ToolResult:
        return cls(False, to_json_text({"error": {"code": code, "message": message}}), code)

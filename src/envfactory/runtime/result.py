"""ToolResult: what a tool call returns to the agent (content or a structured error)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson

from envfactory.core import BROKEN, ERROR_CODES, ErrorCode

_ORJSON_OPTS = orjson.OPT_NON_STR_KEYS

__all__ = ["BROKEN", "ERROR_CODES", "ErrorCode", "ToolError", "ToolResult", "to_json_text"]


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

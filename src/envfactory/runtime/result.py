"""ToolResult: what a tool call returns to the agent (content or a structured error).

The types live in :mod:`envfactory.core`, the contract; this module is where the runtime's
modules import them from."""

from __future__ import annotations

from envfactory.core import BROKEN, ERROR_CODES, ErrorCode, ToolError, ToolResult, to_json_text, tool_result

__all__ = ["BROKEN", "ERROR_CODES", "ErrorCode", "ToolError", "ToolResult", "to_json_text", "tool_result"]

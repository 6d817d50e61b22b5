"""Refusals dressed as successful replies: ``{"error": ...}``, ``"Error: ..."``, ``success: false``,
``status: "error"``, or an error message as the whole text.

Real tools often answer a refusal as an ordinary reply (MCP's ``isError`` unset, a Python method
returning instead of raising). :func:`reply_error` says whether a reply is one and gives its
message; the instrument, bound and served behaviours and the tasks proven on a real
implementation all read replies through it, so a gold plan answered ``syntax error`` is a failed
plan, not a reward of 1.
"""

from __future__ import annotations

import re
from typing import Any

# members that hold a refusal's message, and the values of a status member that mean failure
_MESSAGE_KEYS = ("error", "error_message", "errorMessage", "err")
_FAILED_STATUS = frozenset({"error", "failed", "failure", "fail", "ko"})
_FLAG_KEYS = ("success", "ok", "succeeded")
# members whose ``true`` says the call failed (``{"error": true, "code": "not_found", "message": ...}``)
_FAILED_FLAG_KEYS = ("error", "is_error", "isError")
_REPORT = frozenset(
    {"status", "message", "error", "code", "details", "detail", "reason", "success", "ok", "is_error", "isError"}
)

# a text that opens like a refusal: "Error: ...", "Failed to ...", "Cannot ...", "... not found"
_OPENING = re.compile(
    r"^\s*(?:\W{0,3})(?:error\b|errors?:|failed\b|failure\b|exception\b|traceback\b|cannot\b|can't\b|can not\b"
    r"|could not\b|couldn't\b|unable to\b|invalid\b|not allowed\b|forbidden\b|denied\b|permission denied\b"
    r"|unknown (?:\w+ )?(?:id|key|name)\b)",
    re.IGNORECASE,
)
# a short text that says what was wrong: "Priority must be a single uppercase letter", "Task 7 not found"
_REFUSING = re.compile(
    r"\b(?:not found|does not exist|doesn't exist|no such|must be|must not|is required|are required|not allowed"
    r"|not permitted|is invalid|already exists|failed|denied|forbidden)\b",
    re.IGNORECASE,
)
# "No tasks found", "No results found": an empty answer, not a refusal
_NOTHING_FOUND = re.compile(r"^\s*no\s+(?:\w+\s+){0,3}(?:found|matched|match)\b", re.IGNORECASE)
_SHORT = 200  # an error message as the whole text is one short sentence or two
# a first line opening with one of these marks is a refusal, whatever follows it ("❌ Context not found!")
_ERROR_MARKS = frozenset("❌⛔🚫✖✗✘")
# "Database error: ...", "Validation failed: ...": a label before a colon that says it failed
_LABELLED = re.compile(r"^\s*[\w .'-]{0,40}\b(?:error|exception|failed|failure)\s*:", re.IGNORECASE)
# a markdown report whose section says it failed ("# Task Update Result", then "## System Error")
_ERROR_HEADING = re.compile(r"^#{1,6}\s*(?:[\w'-]+\s+){0,3}(?:error|failure|failed)\s*[:!.]?\s*$", re.IGNORECASE)


def reply_error(reply: Any, args: dict[str, Any] | None = None) -> str | None:
    """The refusal ``reply`` carries, or ``None`` for an answer. ``args``, the call's arguments: members
    of the reply that only echo them (``{"error": "...", "priority": "x"}``) carry nothing.

    - an object whose only non-empty member is an error message (``{"error": "..."}``, beside
      ``success: false``), or whose ``success``/``ok`` flag is false, or, made only of report
      members (``code``, ``message``, ...), whose ``status`` says ``error``/``failed`` or whose
      ``error`` flag is true (its ``message`` is the message);
    - a one-item list holding such an object;
    - a text whose first line opens with an error mark ("❌ Context not found!", then its details);
    - a markdown text with a heading that names an error ("## System Error"): the line under it;
    - a text that opens as a refusal ("Error: ...", "Failed to ...", "Cannot ...", "Invalid ...")
      or, one short line, says what was wrong ("Task 7 not found", "Priority must be a single
      uppercase letter", "title is required"); "No tasks found" is an empty answer, not a refusal.
    """
    if isinstance(reply, list) and len(reply) == 1:
        reply = reply[0]
    if isinstance(reply, dict) and reply.keys() == {"result"}:  # an MCP SDK's wrapper around a plain return
        reply = reply["result"]
    if isinstance(reply, dict):
        return _object_error(reply, args or {})
    if isinstance(reply, str):
        return _text_error(reply)
    return None


def _object_error(reply: dict[str, Any], args: dict[str, Any]) -> str | None:
    message = next((reply[k] for k in _MESSAGE_KEYS if isinstance(reply.get(k), str) and reply[k].strip()), None)
    flag = next((reply[k] for k in _FLAG_KEYS if isinstance(reply.get(k), bool)), None)
    status = reply.get("status")
    # ``status: "failed"`` reports the call only in a reply made of status words: a job record
    # whose status is failed is an answer
    failed_status = isinstance(status, str) and status.strip().lower() in _FAILED_STATUS and reply.keys() <= _REPORT
    # ``error: true`` reports the call only in a reply made of report words, as a status does
    failed_flag = any(reply.get(k) is True for k in _FAILED_FLAG_KEYS) and reply.keys() <= _REPORT
    detail = message or _text(reply.get("message")) or _text(reply.get("detail")) or _text(reply.get("reason"))
    if flag is False or failed_status or failed_flag:
        return detail or f"the reply says {'status ' + repr(status) if failed_status else 'it failed'}"
    if message is None:
        return None
    others = [v for k, v in reply.items() if k not in _MESSAGE_KEYS and k not in ("message", "code", "details")
              and not (k in args and args[k] == v)]  # fmt: skip
    if any(v not in (False, None, "", [], {}) for v in others):
        return None  # an answer that also carries something: an error field beside data is not a refusal
    return message


def _text_error(text: str) -> str | None:
    stripped = text.strip()
    if not stripped or _NOTHING_FOUND.match(stripped):
        return None
    first = stripped.split("\n", 1)[0].strip()
    if first[:1] in _ERROR_MARKS and len(first) <= _SHORT:  # "❌ Context not found!" above its details
        return first.lstrip("".join(_ERROR_MARKS) + " \ufe0f:").strip() or first
    if _OPENING.match(stripped) or _LABELLED.match(stripped):
        return stripped
    lines = [line.strip() for line in stripped.split("\n")]
    for i, line in enumerate(lines):
        if line.startswith("#") and _ERROR_HEADING.match(line):
            return next((after for after in lines[i + 1 :] if after), line.lstrip("# "))[:_SHORT]
    if len(stripped) <= _SHORT and "\n" not in stripped and _REFUSING.search(stripped):
        return stripped
    return None


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


__all__ = ["reply_error"]

"""Canonical JSON values: what an agent's arguments must be before anything stores or hashes them.

Agents send anything: integers of thousands of digits, ``NaN``, lone surrogates, dictionaries
with integer keys, ``3.0`` where the schema says integer. :func:`canonical_value` accepts
exactly the values plain, strict JSON can carry and rewrites numbers into one form (``3.0``
becomes ``3``), so that equal values hash equal and every snapshot stays strict JSON.
"""

from __future__ import annotations

import json
import math
from typing import Any

from envfactory.core import from_json_text

MAX_DEPTH = 64
INT_LIMIT = 1 << 63  # the range every JSON library round-trips (orjson, JavaScript BigInt aside)
FLOAT_INT_LIMIT = 1 << 53  # floats above this are not exact integers
_isfinite = math.isfinite


class NotCanonical(ValueError):
    """A value that strict JSON cannot carry; the message says where."""


def canonical_value(value: Any, where: str = "arguments", depth: int = 0, *, exact: bool = False) -> Any:
    """A copy of ``value`` in canonical JSON form, or :class:`NotCanonical` naming the path. With
    ``exact`` integral floats stay floats: a restored state is checked, never rewritten (``0.0``
    was answered ``0`` after a restore).

    The path is put together only when something is wrong (the error unwinds through the levels,
    each adding its step), so a good value costs one ``type`` test per member: this runs on every
    tool call's arguments."""
    try:
        return _canonical(value, depth, exact)
    except _Misfit as misfit:
        raise NotCanonical(misfit.said(where)) from None


class _Misfit(Exception):
    """What is wrong and the steps from the top to it (innermost first, while unwinding)."""

    def __init__(self, problem: str) -> None:
        self.problem, self.steps = problem, []  # type: str, list[str]

    def said(self, where: str) -> str:
        return f"{where}{''.join(reversed(self.steps))} {self.problem}"


def _canonical(value: Any, depth: int, exact: bool) -> Any:
    if depth > MAX_DEPTH:
        raise _Misfit(f"is nested more than {MAX_DEPTH} levels deep")
    kind = type(value)
    if kind is str:
        if value.isascii() or _valid_text(value):
            return value
        raise _Misfit("holds a lone surrogate (not valid Unicode text)")
    if value is None or kind is bool:
        return value
    if kind is int:
        if -INT_LIMIT <= value < INT_LIMIT:
            return value
        raise _Misfit("is an integer outside the 64-bit range")
    if kind is dict:
        out = {}
        for key, item in value.items():
            if type(key) is not str:
                raise _Misfit(f"has a non-string key of type {type(key).__name__}")
            if not key.isascii() and not _valid_text(key):
                raise _Misfit("has a key with a lone surrogate")
            kind = type(item)
            if depth < MAX_DEPTH and (
                (kind is str and item.isascii())
                or item is None
                or kind is bool
                or (kind is int and -INT_LIMIT <= item < INT_LIMIT)
                or (kind is float and _isfinite(item) and not item.is_integer())
            ):  # most members: what _canonical keeps as it is
                out[key] = item
                continue
            try:
                out[key] = _canonical(item, depth + 1, exact)
            except _Misfit as misfit:
                misfit.steps.append(f".{key[:40]}")
                raise
        return out
    if kind is list:
        items = []
        for i, item in enumerate(value):
            kind = type(item)
            if depth < MAX_DEPTH and ((kind is str and item.isascii()) or item is None or kind is bool
                                      or (kind is int and -INT_LIMIT <= item < INT_LIMIT)):  # fmt: skip
                items.append(item)
                continue
            try:
                items.append(_canonical(item, depth + 1, exact))
            except _Misfit as misfit:
                misfit.steps.append(f"[{i}]")
                raise
        return items
    return _canonical_other(value, depth, exact)


def _canonical_other(value: Any, depth: int, exact: bool) -> Any:
    """Floats, and subclasses of the JSON types."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if _valid_text(value):
            return value
        raise _Misfit("holds a lone surrogate (not valid Unicode text)")
    if isinstance(value, int):
        if not -INT_LIMIT <= value < INT_LIMIT:
            raise _Misfit("is an integer outside the 64-bit range")
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _Misfit(f"is {value!r}, which JSON cannot carry")
        if not exact and value.is_integer() and abs(value) <= FLOAT_INT_LIMIT:
            return int(value)
        return value
    if isinstance(value, dict):
        return _canonical(dict(value), depth, exact)
    if isinstance(value, list):
        return _canonical(list(value), depth, exact)
    raise _Misfit(f"is a {type(value).__name__}, not a JSON value")


def parse_json(text: str) -> Any:
    """``json.loads`` that fails only with :class:`NotCanonical`, with a message for the agent."""
    try:
        return from_json_text(text)
    except json.JSONDecodeError as err:
        raise NotCanonical(f"not valid JSON: {err.msg}") from None
    except RecursionError:
        raise NotCanonical("not valid JSON: nested too deeply") from None
    except ValueError:  # an integer literal of thousands of digits
        raise NotCanonical("holds a number too large to read") from None


def canonical_number(value: Any) -> Any:
    """``3.0`` -> ``3``; anything else unchanged (for values computed by behaviours)."""
    if type(value) is float and value.is_integer() and abs(value) <= FLOAT_INT_LIMIT:
        return int(value)
    return value


def _valid_text(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def safe_text(text: Any, limit: int | None = None) -> str:
    """``text`` as valid Unicode (lone surrogates replaced), cut to ``limit``; non-text gives ''."""
    if not isinstance(text, str):
        return ""
    if limit is not None and len(text) > limit:
        text = text[:limit]
    return text if _valid_text(text) else text.encode("utf-8", "replace").decode("utf-8")


def safe_repr(value: Any, limit: int = 80) -> str:
    """A short description of any value, safe for error messages (huge integers included)."""
    if isinstance(value, str):
        return repr(safe_text(value, limit))
    if isinstance(value, (int, float, bool)) or value is None:
        try:
            return str(value)[:limit]
        except ValueError:
            return "a very large integer"
    return f"a {type(value).__name__}"


def json_safe(value: Any) -> Any:
    """``value`` if it is canonical JSON, else a short text describing it (for logs and snapshots)."""
    try:
        return canonical_value(value)
    except NotCanonical as err:
        return f"<not JSON: {err}>"
    except RecursionError:
        return "<not JSON: nested too deeply>"


__all__ = ["NotCanonical", "canonical_number", "canonical_value", "json_safe", "parse_json", "safe_repr", "safe_text"]

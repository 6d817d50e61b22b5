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

MAX_DEPTH = 64
INT_LIMIT = 1 << 63  # the range every JSON library round-trips (orjson, JavaScript BigInt aside)
FLOAT_INT_LIMIT = 1 << 53  # floats above this are not exact integers


class NotCanonical(ValueError):
    """A value that strict JSON cannot carry; the message says where."""


def canonical_value(value: Any, where: str = "arguments", depth: int = 0, *, exact: bool = False) -> Any:
    """A copy of ``value`` in canonical JSON form, or :class:`NotCanonical` naming the path. With
    ``exact`` integral floats stay floats: a restored state is checked, never rewritten (``0.0``
    was answered ``0`` after a restore)."""
    if depth > MAX_DEPTH:
        raise NotCanonical(f"{where} is nested more than {MAX_DEPTH} levels deep")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        if not _valid_text(value):
            raise NotCanonical(f"{where} holds a lone surrogate (not valid Unicode text)")
        return value
    if isinstance(value, int):
        if not -INT_LIMIT <= value < INT_LIMIT:
            raise NotCanonical(f"{where} is an integer outside the 64-bit range")
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotCanonical(f"{where} is {value!r}, which JSON cannot carry")
        if not exact and value.is_integer() and abs(value) <= FLOAT_INT_LIMIT:
            return int(value)
        return value
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise NotCanonical(f"{where} has a non-string key of type {type(key).__name__}")
            if not _valid_text(key):
                raise NotCanonical(f"{where} has a key with a lone surrogate")
            out[key] = canonical_value(item, f"{where}.{key[:40]}", depth + 1, exact=exact)
        return out
    if isinstance(value, list):
        return [canonical_value(item, f"{where}[{i}]", depth + 1, exact=exact) for i, item in enumerate(value)]
    raise NotCanonical(f"{where} is a {type(value).__name__}, not a JSON value")


def parse_json(text: str) -> Any:
    """``json.loads`` that fails only with :class:`NotCanonical`, with a message for the agent."""
    try:
        return json.loads(text)
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

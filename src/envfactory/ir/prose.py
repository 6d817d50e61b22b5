"""Constraints written in a field's description instead of its schema.

Function-calling tool docs rarely use ``enum`` or ``minimum``; they say it: ``"One of: `open`,
`closed`"``, ``[Enum]: ["fuel", "battery"]``, ``"between 0 (not pressed) and 1"``, ``"from 1 to
5"``, ``"a multiple of 5"``. The real implementation enforces what the prose says, so the
environment's validation must too. Each reader returns nothing when unsure: a constraint read
wrongly refuses valid calls, which is worse than one left out.
"""

from __future__ import annotations

import json
import re
from typing import Any

JSON = dict[str, Any]

_PROSE_ENUM = re.compile(
    r"(?:one of|possible values(?: are)?|allowed values(?: are)?|valid values(?: are)?|"
    r"must be(?: one of)?|either)\s*[:\-]?\s*(.+)",
    re.IGNORECASE,
)
_LISTED_ENUM = re.compile(r"\[enum\]\s*:?\s*(\[[^\]]*\])", re.IGNORECASE)  # BFCL-style ``[Enum]: ["a", "b"]``
_WORD = r"[A-Za-z0-9_\-.]+"
_QUOTED = re.compile(rf"[`'\"]({_WORD})[`'\"]")
# a description that opens with its values: ``"mine" (this client's edit) or "theirs" (the
# remote's)``, ``'json' (default) -- the raw records -- or 'table'``; asides are dropped first
_Q = rf"[`'\"]{_WORD}[`'\"]"
_OPENING_ALTERNATIVES = re.compile(rf"^\s*(?:either\s+)?{_Q}(?:\s*,\s*{_Q})*\s*,?\s+or\s+{_Q}", re.IGNORECASE)
_ASIDES = (re.compile(r"\([^()]*\)"), re.compile(r"\s(?:--|—|–)\s.*?\s(?:--|—|–)\s"))
# Trello's flags: ``type: string``, described " true or false"
_TRUE_FALSE = re.compile(r"\btrue\s*(?:or|/|\|)\s*false\b", re.IGNORECASE)
_NUM = r"(-?\d+(?:\.\d+)?)"
_ASIDE = r"(?:\s*\([^)]*\))?"  # ``0 (not pressed)``
_RANGES = (
    re.compile(rf"\bbetween\s+{_NUM}{_ASIDE}\s+and\s+{_NUM}", re.IGNORECASE),
    re.compile(rf"\bfrom\s+{_NUM}{_ASIDE}\s+(?:to|through)\s+{_NUM}", re.IGNORECASE),
    re.compile(rf"\(\s*{_NUM}\s*(?:-|–|to)\s*{_NUM}\s*\)"),
)
_MULTIPLE = re.compile(rf"\bmultiple of\s+{_NUM}", re.IGNORECASE)
# "Values above 0.66 describe ...; values between 0.33 and 0.66 ...": bands of meaning, not bounds
_THRESHOLDS = re.compile(r"\b(?:above|below|over|under|less than|greater than|more than)\s+-?\d", re.IGNORECASE)
_BANDS = re.compile(r"(?:^|[.;]\s*)values\s+(?:between|from)\b", re.IGNORECASE)


def enum_from_description(text: str) -> list[str]:
    """An enum written in prose, e.g. ``"One of: `open`, `closed`"`` or ``[Enum]: ["a", "b"]``;
    [] when unsure."""
    listed = _LISTED_ENUM.search(text or "")
    if listed:
        try:
            values = json.loads(listed.group(1))
        except ValueError:
            values = None
        if isinstance(values, list) and len(values) >= 2 and all(isinstance(v, str) for v in values):
            return list(dict.fromkeys(values))
    if _TRUE_FALSE.search(text or ""):
        return ["true", "false"]
    match = _PROSE_ENUM.search(text or "")
    if not match:
        return _opening_alternatives(text or "") or _slashed(text or "")
    quoted = _QUOTED.findall(match.group(1))
    if any(len(q) == 1 and not q.isalnum() for q in quoted):
        return []  # "only alphanumeric characters, '.', '_', or '-'": the characters a value may hold
    return list(dict.fromkeys(quoted)) if len(quoted) >= 2 else []


def _opening_alternatives(text: str) -> list[str]:
    """The quoted values a description opens with, joined by "or" (``"mine" or "theirs"``); []
    when it opens otherwise."""
    for aside in _ASIDES:
        text = aside.sub(" ", text)
    match = _OPENING_ALTERNATIVES.match(text)
    return list(dict.fromkeys(_QUOTED.findall(match.group(0)))) if match else []


# values joined by slashes: ``"high"/"med"/"low"`` quoted (two or more), or ``(high/med/low)`` bare in
# parentheses (three or more lowercase words: ``(and/or)``, ``(YYYY/MM/DD)`` are no values)
_SLASHED_QUOTED = re.compile(rf"{_Q}(?:\s*/\s*{_Q})+")
_SLASHED_BARE = re.compile(r"\(\s*([a-z][a-z0-9_\-]*(?:\s*/\s*[a-z][a-z0-9_\-]*){2,})\s*\)")


def _slashed(text: str) -> list[str]:
    """Values a description lists joined by slashes (see above); [] when it lists none so."""
    quoted = _SLASHED_QUOTED.search(text)
    if quoted:
        return list(dict.fromkeys(_QUOTED.findall(quoted.group(0))))
    bare = _SLASHED_BARE.search(text)
    return list(dict.fromkeys(v.strip() for v in bare.group(1).split("/"))) if bare else []


def range_from_description(text: str, integer: bool = False) -> JSON:
    """Numeric bounds written in prose: ``minimum``/``maximum`` from "between A and B", "from A
    to B" or "(A-B)", and ``multipleOf`` from "a multiple of N"; {} when none is said."""
    out: JSON = {}
    if _THRESHOLDS.search(text or "") or _BANDS.search(text or ""):
        return out
    for pattern in _RANGES:
        match = pattern.search(text or "")
        if match:
            low, high = (float(g) for g in match.groups())
            if low < high:
                out.update(minimum=_num(low, integer), maximum=_num(high, integer))
            break
    multiple = _MULTIPLE.search(text or "")
    if multiple and float(multiple.group(1)) > 0:
        out["multipleOf"] = _num(float(multiple.group(1)), integer)
    return out


def _num(value: float, integer: bool) -> int | float:
    return int(value) if integer or value.is_integer() else value


_ISO_DATE = re.compile(r"\bISO(?:[- ]?8601)?\s+date\b(?![- ]?time)", re.IGNORECASE)


def format_from_description(text: str) -> str | None:
    """``date`` where the prose names the standard ("an ISO date string", "ISO 8601 date"), else
    ``None``: "in the format YYYY-MM-DD" describes what callers send, and implementations that
    say so often take anything (a date-time without a zone is no RFC 3339 date-time either)."""
    return "date" if _ISO_DATE.search(text or "") else None


def apply_prose(schema: JSON) -> list[str]:
    """Write the constraints ``schema``'s description states into it (never over declared ones);
    what was added, for diagnostics."""
    text = schema.get("description")
    if not isinstance(text, str) or not text:
        return []
    branch = _nullable_branch(schema)
    # ``Optional[str]`` as ``anyOf: [{type: string}, {type: null}]``, described once: the string's
    return _apply(branch, text) if branch is not None else _apply(schema, text)


def _nullable_branch(schema: JSON) -> JSON | None:
    """The one branch of ``anyOf``/``oneOf`` that is not ``{type: null}``, where the others all are."""
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and all(isinstance(b, dict) for b in branches):
            kept = [b for b in branches if b.get("type") != "null"]
            if len(kept) == 1 and len(branches) > 1:
                return kept[0]
    return None


def _apply(schema: JSON, text: str) -> list[str]:
    kind = schema.get("type")
    nullable = isinstance(kind, list) and "null" in kind
    if isinstance(kind, list):  # ``type: [string, null]``
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    added: list[str] = []
    if kind == "string" and "enum" not in schema:
        values = enum_from_description(text)
        if values:
            schema["enum"] = [*values, None] if nullable else values
            added.append(f"enum {values}")
        elif "format" not in schema and (fmt := format_from_description(text)) is not None:
            schema["format"] = fmt
            added.append(f"format {fmt}")
    elif kind == "array" and isinstance(schema.get("items"), dict):
        items = schema["items"]
        if items.get("type") == "string" and "enum" not in items:
            values = enum_from_description(text)
            if values:
                items["enum"] = values
                added.append(f"item enum {values}")
    elif kind in ("integer", "number"):
        found = range_from_description(text, integer=kind == "integer")
        declared = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} & set(schema)
        for key, value in found.items():
            if key in schema or (key != "multipleOf" and declared):
                continue
            schema[key] = value
            added.append(f"{key} {value}")
    return added


__all__ = ["apply_prose", "enum_from_description", "range_from_description"]

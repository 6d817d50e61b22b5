"""Strings that match a regular expression, drawn from a seeded generator.

Specs constrain ids and codes by ``pattern`` (``^[A-Z]{3}-[0-9]{4}$``, ULIDs, slugs); seeded data
and generated keys must match them, or every call that passes them back is refused. The pattern is
parsed with Python's own regular-expression parser and walked: literals, classes, ``.``,
categories, bounded repeats (unbounded ones repeat at most ``min + 3`` times), groups,
alternation and back-references. Look-arounds are skipped; the result is always checked, and
:func:`matching_string` returns ``None`` rather than a string that does not match.
"""

from __future__ import annotations

import random
import re
import string
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import re2

try:  # Python 3.11+: the parser lives in re._parser
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - older interpreters
    import sre_parse  # type: ignore[no-redef]

_CATEGORY = {
    "CATEGORY_DIGIT": string.digits,
    "CATEGORY_NOT_DIGIT": string.ascii_letters,
    "CATEGORY_WORD": string.ascii_letters + string.digits + "_",
    "CATEGORY_NOT_WORD": "-.@ ",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": string.ascii_letters + string.digits,
}
_PRINTABLE = string.ascii_letters + string.digits
MAX_EXTRA = 3


@lru_cache(maxsize=4096)
def _parsed(pattern: str) -> tuple[Any, re.Pattern[str]] | None:
    """The parse tree and the compiled form of ``pattern`` (a big spec asks for the same few thousand times)."""
    try:
        return sre_parse.parse(pattern), re.compile(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None


FORMAT_SHAPES = {  # the spec's own examples break its formats (Giphy: "2013-08-01 12:41:48" as a date-time)
    "date-time": re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)$"),
    "date": re.compile(r"^\d{4}-\d\d-\d\d$"),
    "uuid": re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"),
}
# one value of each format above, as a pattern beside it must admit
FORMAT_SAMPLES = {
    "date-time": "2025-01-01T00:00:00Z",
    "date": "2025-01-01",
    "uuid": "3fa85f64-5717-4562-b3fc-2c963f66afa6",
}


def sized_to_pattern(text: str, pattern: str, rng: random.Random, low: int, high: int | None) -> str:
    """``text`` (made for ``pattern``) grown by more text made for it to ``low`` characters and cut
    to ``high`` — a ``[a-f0-9]+`` of 40 — where the pattern still holds; else as it was."""
    grown = text
    for _ in range(64):
        if len(grown) >= low:
            break
        grown += matching_string(pattern, rng) or text
    sized = grown[:high] if high is not None else grown
    check = linear_pattern(pattern)
    return sized if check is not None and len(sized) >= low and check(sized) else text


def contradicts(pattern: str, fmt: str) -> bool:
    """Whether no text has both the ``format`` and the ``pattern`` (a ``date-time`` patterned
    ``^se(-[a-z0-9]+)+$``): its sample fails the pattern and no text made for the pattern has the
    format. False where either cannot be checked."""
    shape, check = FORMAT_SHAPES.get(fmt), linear_pattern(pattern)
    if shape is None or check is None or check(FORMAT_SAMPLES[fmt]):
        return False
    if fmt == "date-time":  # a stricter writing of it (no offset, a space for the ``T``) is no contradiction
        shape = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d")
    made = [matching_string(pattern, random.Random(seed)) for seed in range(4)]
    return not any(m is not None and shape.match(m) for m in made)


def matching_string(pattern: str, rng: random.Random, *, tries: int = 8) -> str | None:
    """A string ``re.search(pattern, s)`` accepts, or None when none could be made."""
    found = _parsed(pattern)
    if found is None:
        return None
    parsed, compiled = found
    for _ in range(tries):
        try:
            text = _emit(parsed, rng, {})
        except (_CannotEmit, RecursionError):
            return None
        if compiled.fullmatch(text) or compiled.search(text):
            return text
    return None


class _CannotEmit(Exception):
    pass


def _emit(items: Any, rng: random.Random, groups: dict[int, str]) -> str:
    return "".join(_emit_one(op, av, rng, groups) for op, av in items)


def _emit_one(op: Any, av: Any, rng: random.Random, groups: dict[int, str]) -> str:
    name = str(op)
    if name == "LITERAL":
        return chr(av)
    if name == "NOT_LITERAL":
        return rng.choice([c for c in _PRINTABLE if ord(c) != av])
    if name == "ANY":
        return rng.choice(_PRINTABLE)
    if name == "IN":
        return _from_class(av, rng)
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, high, item = av
        high = low + MAX_EXTRA if high is sre_parse.MAXREPEAT or high > low + MAX_EXTRA else high
        return "".join(_emit(item, rng, groups) for _ in range(rng.randint(low, high)))
    if name == "SUBPATTERN":
        group, _, _, item = av
        text = _emit(item, rng, groups)
        if group is not None:
            groups[group] = text
        return text
    if name == "ATOMIC_GROUP":
        return _emit(av, rng, groups)
    if name == "BRANCH":
        return _emit(rng.choice(av[1]), rng, groups)
    if name == "GROUPREF":
        return groups.get(av, "")
    if name in ("AT", "ASSERT", "ASSERT_NOT"):
        return ""
    if name == "CATEGORY":
        return rng.choice(_CATEGORY.get(str(av), _PRINTABLE))
    raise _CannotEmit(name)


def _from_class(items: Any, rng: random.Random) -> str:
    try:
        return rng.choice(_class_members(tuple(items)))
    except TypeError:  # an item that cannot be a cache key: read it afresh
        return rng.choice(_class_members.__wrapped__(tuple(items)))


@lru_cache(maxsize=4096)
def _class_members(items: tuple[Any, ...]) -> list[str]:
    allowed: list[str] = []
    negate = False
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            allowed.append(chr(av))
        elif name == "RANGE":
            low, high = av
            allowed.extend(chr(c) for c in range(low, min(high, low + 200) + 1))
        elif name == "CATEGORY":
            allowed.extend(_CATEGORY.get(str(av), _PRINTABLE))
    if negate:
        allowed = [c for c in _PRINTABLE if c not in allowed]
    if not allowed:
        raise _CannotEmit("empty class")
    return allowed


def linear_pattern(pattern: str) -> Callable[[str], bool] | None:
    """A RE2 ``search`` for ``pattern``; None when RE2 cannot compile it."""
    options = re2.Options()
    options.log_errors = False
    try:
        compiled = re2.compile(pattern, options)
    except Exception:  # re2.error, or TypeError for patterns that are not text
        return None
    return lambda value: compiled.search(value) is not None


__all__ = ["linear_pattern", "matching_string"]

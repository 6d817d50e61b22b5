"""Splitting identifiers into words: ``findPetsByStatus`` -> ``("find", "pets", "by", "status")``."""

from __future__ import annotations

import re
from functools import lru_cache

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")


@lru_cache(maxsize=1 << 16)  # the same few names are split again and again (a policy's candidates, synthesis)
def tokens(name: str) -> tuple[str, ...]:
    """``findPetsByStatus`` / ``list-data-sets`` / ``get_order`` -> lower-case word tokens."""
    spaced = _CAMEL.sub(" ", name)
    return tuple(t.lower() for t in _SPLIT.split(spaced) if t)


def says(text: str, value: object) -> bool:
    """Whether ``text`` states ``value`` whole: an id ``3`` is not stated by a date ``2025-09-13``
    nor by ``note 1398``, a name ``ann`` not by ``annual``."""
    said = re.escape(str(value))
    return re.search(rf"(?<![\w.:/-]){said}(?![\w:/-]|\.\w)", text) is not None

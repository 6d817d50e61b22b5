"""Splitting identifiers into words: ``findPetsByStatus`` -> ``("find", "pets", "by", "status")``."""

from __future__ import annotations

import re

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")


def tokens(name: str) -> tuple[str, ...]:
    """``findPetsByStatus`` / ``list-data-sets`` / ``get_order`` -> lower-case word tokens."""
    spaced = _CAMEL.sub(" ", name)
    return tuple(t.lower() for t in _SPLIT.split(spaced) if t)

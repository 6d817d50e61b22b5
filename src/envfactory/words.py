"""Splitting identifiers into words: ``findPetsByStatus`` -> ``("find", "pets", "by", "status")``."""

from __future__ import annotations

import re
from functools import lru_cache

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = re.compile(r"[^A-Za-z0-9]+")


def tokens(name: str) -> tuple[str, ...]:
    """``findPetsByStatus`` / ``list-data-sets`` / ``get_order`` -> lower-case word tokens."""
    return _name_tokens(name) if len(name) <= _NAME_LENGTH else _split(name)


def _split(text: str) -> tuple[str, ...]:
    spaced = _CAMEL.sub(" ", text)
    return tuple(t.lower() for t in _SPLIT.split(spaced) if t)


# names are split again and again (a policy's candidate actions: millions of times a run) and are
# remembered; a longer text (a tool's reply, a description) is split each time, never held
_NAME_LENGTH = 64
_name_tokens = lru_cache(maxsize=1 << 16)(_split)


def says(text: str, value: object) -> bool:
    """Whether ``text`` states ``value`` whole: an id ``3`` is not stated by a date ``2025-09-13``
    nor by ``note 1398``, a name ``ann`` not by ``annual``."""
    said = re.escape(str(value))
    return re.search(rf"(?<![\w.:/-]){said}(?![\w:/-]|\.\w)", text) is not None


def stands_in(word: str, text: str) -> bool:
    """Whether ``word`` stands in ``text`` whole, no word character nor ``-`` on either side (``task 1``
    does not stand in ``task 10``; ``priority`` stands in ``priority:``, which :func:`says` does not take)."""
    return word in text and whole_word(word).search(text) is not None


@lru_cache(maxsize=4096)
def whole_word(word: str) -> re.Pattern[str]:
    """The pattern of ``word`` standing whole (see :func:`stands_in`)."""
    return re.compile(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])")

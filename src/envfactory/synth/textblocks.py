"""Where a text lists records: the block of lines that words each one.

Many real tools answer a list as text — a markdown list, one line a record, or a few lines a record
between blank lines, under a heading and above a footer::

    Found 2 notes:
    - 1: Buy milk
    - 2: Call Bob
    (end)

:func:`blocks` finds, for records in a given order, the lines that name each one: every record's
value at one field (a value no other record holds there) on a line of its own block, the blocks
one stride of lines apart, each as many non-blank lines long, the lines between them alike. The text
is then ``head + sep.join(items) + tail`` exactly. Pure: the wording of each item is the caller's.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from envfactory.words import stands_in, whole_word

MAX_LINES = 400  # a text longer than this is not searched for blocks
MAX_RECORDS = 100  # nor for the blocks of more records than this
MAX_FIELDS = 12  # fields of a record tried as the place each block names it by


@dataclass(frozen=True)
class Blocks:
    """A text cut into ``head``, one item per record joined by ``sep``, and ``tail``."""

    head: str
    items: tuple[str, ...]
    sep: str
    tail: str

    def text(self) -> str:
        return self.head + self.sep.join(self.items) + self.tail


def blocks(text: str, records: list[dict[str, Any]]) -> Blocks | None:
    """The blocks of ``text`` that word ``records`` in that order (two or more), else ``None``."""
    if not 2 <= len(records) <= MAX_RECORDS or not all(isinstance(r, dict) for r in records):
        return None
    lines = text.split("\n")
    if len(lines) < len(records) or len(lines) > MAX_LINES:
        return None
    for field in _naming_fields(records):
        anchors = _anchors(lines, [_word(r[field]) for r in records])
        if anchors is None:
            continue
        found = _cut(lines, anchors, [_values(r) for r in records])
        if found is not None and found.text() == text:
            return found
    return None


def block_of_one(text: str, record: dict[str, Any]) -> Blocks | None:
    """The block of ``text`` that words a list's one record: the run of lines from the first naming
    one of its texts (two characters or more) to the last, with no blank line inside; the lines above
    it the head and below it the tail. One record shows no separator: a one-line item is taken to be
    joined to the next by a line break, a longer one by a blank line. ``None`` where no line names it."""
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        return None
    held = _values(record)
    naming = [i for i, line in enumerate(lines) if any(stands_in(v, line) for v in held)]
    if not naming:
        return None
    first, last = naming[0], naming[-1]
    if not all(line.strip() for line in lines[first : last + 1]):
        return None
    head = "".join(line + "\n" for line in lines[:first])
    tail = "".join("\n" + line for line in lines[last + 1 :])
    return Blocks(head, ("\n".join(lines[first : last + 1]),), "\n" if first == last else "\n\n", tail)


def _naming_fields(records: list[dict[str, Any]]) -> list[str]:
    """Fields whose scalar values tell every record apart: text first (a number may stand anywhere), longer first."""
    shared = [k for k in records[0] if all(k in r for r in records)]
    fields = []
    for k in shared:
        values = [r[k] for r in records]
        if not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in values):
            continue
        words = [_word(v) for v in values]
        if all(w.strip() for w in words) and len(set(words)) == len(words):
            fields.append(k)
    numeric = {k for k in fields if not isinstance(records[0][k], str)}
    fields.sort(key=lambda k: (k in numeric, -min(len(_word(r[k])) for r in records)))
    return fields[:MAX_FIELDS]


def _anchors(lines: list[str], words: list[str]) -> list[int] | None:
    """The line each word first stands on (as a whole word), each after the one before, one stride apart."""
    found, start = [], 0
    for word in words:
        pattern = whole_word(word)
        at = next((i for i in range(start, len(lines)) if pattern.search(lines[i])), None)
        if at is None:
            return None
        found.append(at)
        start = at + 1
    stride = found[1] - found[0]
    return found if all(b - a == stride for a, b in itertools.pairwise(found)) else None


def _cut(lines: list[str], anchors: list[int], values: list[set[str]]) -> Blocks | None:
    """Blocks around ``anchors``, one stride apart: each the run of non-blank lines holding its
    anchor, else the whole stride from the anchor on (blank lines inside a block too) less the blank
    lines every block ends in; the lines between two blocks the same everywhere, holding no record's
    ``values`` (by record), and no block another record's."""
    stride = anchors[1] - anchors[0]
    first = anchors[0]
    back = 0  # non-blank lines of the block above its anchor
    while back < stride - 1 and first - back - 1 >= 0 and lines[first - back - 1].strip():
        back += 1
    length = 1  # non-blank lines from the block's start, within the stride
    while length < stride and first - back + length < len(lines) and lines[first - back + length].strip():
        length += 1
    windows = [lines[a : a + stride] for a in anchors[:-1]]
    blank_ends = min(len(w) - len("\n".join(w).rstrip("\n").split("\n")) for w in windows)
    for above, size in ((back, length), (0, stride - blank_ends)):
        found = _blocks_at(lines, [a - above for a in anchors], size, values)
        if found is not None:
            return found
    return None


def _blocks_at(lines: list[str], starts: list[int], length: int, values: list[set[str]]) -> Blocks | None:
    """The blocks of ``length`` lines from ``starts``, where they cut the text as :func:`_cut` says."""
    if length < 1 or starts[0] < 0 or starts[-1] + length > len(lines):
        return None
    gaps = {tuple(lines[s + length : t]) for s, t in itertools.pairwise(starts)}
    if len(gaps) != 1:
        return None
    gap = gaps.pop()
    between = "\n".join(gap)
    if any(stands_in(v, between) for held in values for v in held):  # a record's words between blocks
        return None
    items = tuple("\n".join(lines[s : s + length]) for s in starts)
    for i, item in enumerate(items):  # each block words its own record, none of another's
        if any(stands_in(v, item) for j, held in enumerate(values) if j != i for v in held - values[i]):
            return None
    head = "".join(line + "\n" for line in lines[: starts[0]])
    tail = "".join("\n" + line for line in lines[starts[-1] + length :])
    return Blocks(head, items, "\n" + "".join(line + "\n" for line in gap), tail)


def _values(record: dict[str, Any]) -> set[str]:
    """The texts of two characters or more a record holds as its fields' values."""
    return {v for v in record.values() if isinstance(v, str) and len(v.strip()) >= 2}


def _word(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


__all__ = ["Blocks", "block_of_one", "blocks"]

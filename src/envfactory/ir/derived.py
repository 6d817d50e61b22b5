"""Derived fields: a text field a record composes from its other fields.

A todo's ``todo_txt_line`` is ``"(A) 2026-12-02 Buy milk +home @shop"``: its priority in brackets,
its date, its text, each project after a ``+``, each context after an ``@``, joined by spaces, a
piece left out where its field is empty. A :class:`Derivation` is that recipe — pieces in order,
each a field with the words around it, and the separator between them — kept on the entity
(``Entity.derived``) and applied by the store to every record written, so creates, updates and
actions all keep it. :func:`infer` finds the recipe that renders every given record's value.
The store likewise keeps the lists an entity holds sorted (``Entity.sorted``, :func:`sort_lists`)
in sorted order, before rendering: a line composed of them lists them so too.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from pydantic import BaseModel, ConfigDict

JSON = dict[str, Any]
SEPARATORS = (" ", "\t", "\n", ",", ";", "|", "/")  # tried in turn by ``infer``


class Piece(BaseModel):
    """One field in a derived text, with the words written right before and after it (each item
    of a list field is written so)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    field: str
    before: str = ""
    after: str = ""


class Derivation(BaseModel):
    """The pieces of a derived text, in order, joined by ``separator``; a piece whose field is
    empty (missing, null, ``""``, ``[]``) is left out with its words."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pieces: tuple[Piece, ...]
    separator: str = " "

    def render(self, row: JSON) -> str:
        parts: list[str] = []
        for piece in self.pieces:
            value = row.get(piece.field)
            items = value if isinstance(value, list) else [value]
            parts += [f"{piece.before}{_word(v)}{piece.after}" for v in items if not _empty(v)]
        return self.separator.join(parts)


def derive(row: JSON, derived: dict[str, Derivation], *, in_place: bool = False) -> JSON:
    """``row`` with each derived field rendered from its others: the same object when none
    changes or ``in_place``, else a copy."""
    made = {name: d.render(row) for name, d in derived.items()}
    if all(row.get(k) == v for k, v in made.items()):
        return row
    if in_place:
        row.update(made)
        return row
    return {**row, **made}


def sort_lists(row: JSON, fields: tuple[str, ...], *, in_place: bool = False) -> JSON:
    """``row`` with each list of ``fields`` in sorted order (by its items' text): the same object
    when none changes or ``in_place``, else a copy."""
    made = {f: sorted(row[f], key=_word) for f in fields if isinstance(row.get(f), list) and _sortable(row[f])}
    made = {f: v for f, v in made.items() if v != row[f]}
    if not made:
        return row
    if in_place:
        row.update(made)
        return row
    return {**row, **made}


def _sortable(items: list[Any]) -> bool:
    return all(_scalar(v) for v in items)


def infer(records: list[JSON], field: str) -> Derivation | None:
    """The derivation that renders ``field`` of every record from its other fields, or ``None``:
    read off the record whose text holds the most of them, then checked on all. At least two
    records, with different values, and every value a text with a piece in it."""
    texts = [r.get(field) for r in records]
    if len(records) < 2 or len(set(map(str, texts))) < 2 or not all(isinstance(t, str) and t for t in texts):
        return None
    spanned = sorted(((_spans(r, field), r) for r in records), key=lambda s: -len({name for _, _, name in s[0]}))
    for spans, record in spanned[:3]:
        for separator in SEPARATORS:
            made = _recipe(str(record[field]), spans, separator)
            if made is not None and all(made.render(r) == r[field] for r in records):
                return made
    return None


def _spans(record: JSON, field: str) -> list[tuple[int, int, str]]:
    """Where the record's other values stand in its ``field`` text, as whole words: (start, end,
    field), longest values placed first, each value once, a list's items all or none."""
    text = str(record[field])
    found: list[tuple[int, str, int]] = []  # (length, field, item index)
    for name, value in record.items():
        if name == field:
            continue
        items = value if isinstance(value, list) else [value]
        if any(_empty(v) or not _scalar(v) for v in items):
            continue
        found += [(len(_word(v)), name, i) for i, v in enumerate(items)]
    taken: list[tuple[int, int, str, int]] = []
    for _, name, i in sorted(found, key=lambda f: (-f[0], f[1], f[2])):
        value = record[name][i] if isinstance(record[name], list) else record[name]
        word = re.escape(_word(value))
        for m in re.finditer(rf"(?<![A-Za-z0-9]){word}(?![A-Za-z0-9])", text):
            if all(m.end() <= s or m.start() >= e for s, e, _, _ in taken):
                taken.append((m.start(), m.end(), name, i))
                break
    spans = sorted(taken)
    for name in {n for _, _, n, _ in spans}:
        size = len(record[name]) if isinstance(record[name], list) else 1
        at = [k for k, span in enumerate(spans) if span[2] == name]
        # a list's items all placed, together and in order; else none of them
        if [spans[k][3] for k in at] != list(range(size)) or at[-1] - at[0] != size - 1:
            spans = [span for span in spans if span[2] != name]
    return [(s, e, n) for s, e, n, _ in spans]


def _recipe(text: str, spans: list[tuple[int, int, str]], separator: str) -> Derivation | None:
    """The pieces ``spans`` make of ``text`` with ``separator`` between them: each gap between two
    values splits at its first separator into the words after one and before the next."""
    if not spans:
        return None
    befores, afters = [text[: spans[0][0]]], []
    for (_, end, _), (start, _, _) in itertools.pairwise(spans):
        gap = text[end:start]
        if separator not in gap:
            return None
        after, _, before = gap.partition(separator)
        afters.append(after)
        befores.append(before)
    afters.append(text[spans[-1][1] :])
    pieces: list[Piece] = []
    for (_, _, name), before, after in zip(spans, befores, afters, strict=True):
        piece = Piece(field=name, before=before, after=after)
        if pieces and pieces[-1].field == name:  # the next item of a list: written alike
            if pieces[-1] != piece:
                return None
            continue
        pieces.append(piece)
    return Derivation(pieces=tuple(pieces), separator=separator)


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == []


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _word(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


__all__ = ["Derivation", "Piece", "derive", "infer", "sort_lists"]

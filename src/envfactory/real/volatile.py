"""Reply fields the real thing does not reproduce itself: a wall-clock stamp, a random token.

Given the same calls, two fresh copies of one real system can answer different values at some
places of their replies (``created_at`` read off the clock). No model can agree with such a value,
and no second copy of the real thing does either; counted, they make every final state differ and
every ceiling low. So learning replays a few of its *learning* sequences on another fresh copy,
pairs minted ids as everywhere (:class:`~envfactory.real.keypool.Aliases`), and keeps the places
where the two copies answered otherwise: ``tool`` and the leaf's path, list positions read as
any position (``list_tasks.result[].created_at``). Every comparison afterwards — the chooser's
scores, held-out figures for the model, the stub and the ceiling alike — puts one mark at those
places on both sides, so the value does not count while its presence still does. A text of several
words at such a place (a whole reply in prose with a stamp inside) is marked word by word: only its
words holding a digit are, so what it says still counts. A clock's stamp is the record's, not the
tool's: where a field answered a stamp at a volatile place, a stamp under that field's name is
marked in every tool's replies (``created_at`` of the stories a list answers, once a read of a task
showed its ``created_at`` read off the clock), since the few sequences replayed rarely call every
tool. The held-out sequences never decide which places are volatile.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Any

from envfactory.core import BROKEN
from envfactory.real.agreement import leaves, same_value
from envfactory.real.keypool import Aliases
from envfactory.real.trace import Sequence
from envfactory.values import clock_stamp

VOLATILE = "<volatile>"  # what both sides hold at a volatile place
_INDEX = re.compile(r"\[\d+\]")


def place(tool: str, path: str) -> str:
    """The place of a leaf: its tool and its path with list positions read as any (``t.a[].b``)."""
    return tool + _INDEX.sub("[]", path)


_NUMBERED = re.compile(r"\S*\d\S*")  # a word holding a digit: a stamp, an id, a random token


def masked(value: Any, tool: str, volatile: frozenset[str], path: str = "") -> Any:
    """``value`` with every leaf at a volatile place of ``tool`` replaced by :data:`VOLATILE`; a
    text of several words there (a whole reply in prose) keeps its words, only those holding a
    digit replaced, so what it says still counts."""
    if not volatile:
        return value
    if isinstance(value, dict):
        return {k: masked(v, tool, volatile, f"{path}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [masked(v, tool, volatile, f"{path}[{i}]") for i, v in enumerate(value)]
    if place(tool, path) not in volatile and not (clock_stamp(value) and _field(path) in _stamped(volatile)):
        return value
    return _NUMBERED.sub(VOLATILE, value) if _prose(value) else VOLATILE


def _field(path: str) -> str:
    """The name of the field a leaf's path ends in (``""`` for a list item or the whole reply)."""
    last = path.rsplit(".", 1)[-1]
    return "" if last.endswith("]") or last == path else last


@cache
def _stamped(volatile: frozenset[str]) -> frozenset[str]:
    """The field names of the volatile places (a stamp under one of them is marked in any tool)."""
    return frozenset(name for p in volatile if (name := p.rsplit(".", 1)[-1]) and not name.endswith("]"))


def _prose(value: Any) -> bool:
    return isinstance(value, str) and len(value.split()) >= 3


def restored(masked_text: str, example: str) -> str:
    """A text :func:`masked` marked, with its marks holding the words ``example`` (a real reply)
    held there, in order; left marked where the two do not mark alike."""
    words = marked_words(example)
    return filled_marks(masked_text, words) if masked_text.count(VOLATILE) == len(words) else masked_text


def marked_words(text: str) -> list[str]:
    """The words of ``text`` :func:`masked` marks at a volatile place, in order (those holding a digit)."""
    return _NUMBERED.findall(text)


def filled_marks(masked_text: str, words: list[str]) -> str:
    """A text :func:`masked` marked, with its marks holding ``words`` in order; left marked where
    there are fewer words than marks."""
    parts = masked_text.split(VOLATILE)
    if len(parts) - 1 > len(words):
        return masked_text
    return "".join(p + w for p, w in zip(parts, [*words[: len(parts) - 1], ""], strict=True))


def differing(tool: str, first: Any, second: Any) -> set[str]:
    """The places at which two answers of ``tool`` hold different values (a leaf on one side only
    is a difference of shape, not of value: not a volatile place). Lists are compared in the order
    answered: sorted, a differing stamp would reorder them and misplace every other field."""
    a, b = leaves(first), leaves(second)
    return {place(tool, k) for k in a.keys() & b.keys() if not same_value(a[k], b[k])}


def volatile_places(sequences: Iterable[Sequence], replay_call: Any) -> frozenset[str]:
    """The places where a fresh copy answers ``sequences`` otherwise than they were recorded.

    ``replay_call(sequence)`` is a context manager giving a callable ``call(tool, args) ->
    RealCall`` on a fresh copy (:meth:`RealSide.sequence`)."""
    found: set[str] = set()
    for seq in sequences:
        aliases = Aliases()
        with replay_call() as side:
            for call in seq.calls:
                again = side.call(call.tool, aliases.translate(call.arguments))
                if again.error_code in BROKEN or not (call.ok and again.ok):
                    continue
                aliases.pair(call.output, again.data)
                found |= differing(call.tool, aliases.translate(call.output), again.data)
            for read in seq.final.reads if seq.final is not None else ():
                if read.get("ok", True) is False or "tool" not in read:
                    continue
                again = side.call(read["tool"], aliases.translate(read.get("arguments") or {}))
                if again.ok:
                    found |= differing(read["tool"], aliases.translate(read.get("output")), again.data)
    return frozenset(found)


__all__ = ["VOLATILE", "differing", "filled_marks", "marked_words", "masked", "place", "restored", "volatile_places"]

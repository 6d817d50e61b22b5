"""Does a reply state a fact? Text facts by substring, numbers by value (1,234.5 == 1234.50).

And does it state it honestly: a reply that lists every candidate value (every number from
0.00 to N.NN, every title in the table) would contain any fact. :func:`spray` finds such
replies: a reply may name at most ``facts + SLACK`` candidates of each kind a fact has, where
a number's candidates are all the numbers in the reply that the request did not already hold,
and a text fact's candidates are the values of the state field the fact was taken from (of
which at least one must stay unnamed: listing all three values of a small enum is a spray).
And a number fact must be stated once on its own, not only as one of a list of alternatives: in
"1, 2, 3, 4" or "2 or 3" every 3 stands among numbers the request did not hold and the answer does
not have, joined by nothing but punctuation or "or" — a guess, however short the list.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise
from typing import Any

_NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?")
SLACK = 3  # extra candidates a natural answer may mention ("moved 50 from 3 to 7, balance 120")
# a number standing alone (not part of a date, a time, an id or a version: ``2026-01-05``, ``order_0001``)
_ALONE = re.compile(r"(?<![\w:.-])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w:-]|\.\d)")
# what may stand between two numbers of one list of alternatives: spaces, commas, slashes and "or"
_BETWEEN = re.compile(r"(?:[\s,;/|]|\bor\b|\beither\b|\bmaybe\b|\bperhaps\b)*", re.IGNORECASE)


def numbers_in(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in _NUMBER.findall(text)]


def as_number(fact: str) -> float | None:
    try:
        return float(fact.replace(",", ""))
    except ValueError:
        return None


def states_fact(text: str, fact: str) -> bool:
    wanted = as_number(fact)
    if wanted is None:
        return fact.casefold() in text.casefold()
    return any(abs(n - wanted) <= 0.005 for n in numbers_in(text))


def spray(said: str, facts: Iterable[str], *, context: str = "", rows: Iterable[dict[str, Any]] = ()) -> str | None:
    """Why ``said`` reads as a spray of candidate values rather than an answer (None when it does not).

    ``context`` is what the agent was told (its numbers are not candidates it chose); ``rows``
    are the state's rows, where text facts' candidate values are looked up.
    """
    facts = list(facts)
    numeric = [f for f in facts if as_number(f) is not None]
    if numeric:
        known = {round(n, 2) for n in numbers_in(context)}
        mentioned = {round(n, 2) for n in numbers_in(said)} - known
        allowed = len(numeric) + SLACK
        if len(mentioned) > allowed:
            return f"the reply names {len(mentioned)} numbers; an answer with {len(numeric)} may name {allowed}"
        settled = known | {round(float(f.replace(",", "")), 2) for f in numeric}
        hedged = next((f for f in numeric if _only_among_guesses(said, float(f.replace(",", "")), settled)), None)
        if hedged is not None:
            return f"the reply names {hedged!r} only in a list of alternatives, never on its own"
    texts = [f for f in facts if as_number(f) is None]
    if texts:
        folded = said.casefold()
        for field, values in _candidate_fields(texts, rows).items():
            named = sum(1 for v in values if v.casefold() in folded)
            stated = sum(1 for f in texts if f in values)
            # a few other values may come up naturally, but never all of them (a field of three
            # values, named in full, is a spray however short)
            allowed = stated + min(SLACK, max(0, len(values) - stated - 1))
            if named > allowed:
                return f"the reply names {named} values of {field!r}; an answer may name {allowed}"
    return None


def _only_among_guesses(said: str, wanted: float, settled: set[float]) -> bool:
    """Is every mention of ``wanted`` in ``said`` joined (by punctuation or "or" only) to a number
    that is neither ``settled`` (the request's, the answer's) nor ``wanted`` itself?"""
    found = list(_ALONE.finditer(said))
    values = [float(m.group().replace(",", "")) for m in found]
    hits = [i for i, v in enumerate(values) if abs(v - wanted) <= 0.005]
    if not hits:
        return False
    joined = [_BETWEEN.fullmatch(said[a.end() : b.start()]) is not None for a, b in pairwise(found)]
    for i in hits:
        lo = hi = i
        while lo > 0 and joined[lo - 1]:
            lo -= 1
        while hi < len(found) - 1 and joined[hi]:
            hi += 1
        if not any(round(values[j], 2) not in settled and abs(values[j] - wanted) > 0.005 for j in range(lo, hi + 1)):
            return False  # stated on its own, or only beside numbers already settled
    return True


def _candidate_fields(texts: list[str], rows: Iterable[dict[str, Any]]) -> dict[str, set[str]]:
    """For every field holding one of ``texts`` in some row: all the text values of that field."""
    wanted = {t.casefold() for t in texts}
    values: dict[str, set[str]] = {}
    hit: set[str] = set()
    for row in rows:
        for field, value in row.items():
            if isinstance(value, str) and len(value) >= 2:
                values.setdefault(field, set()).add(value)
                if value.casefold() in wanted:
                    hit.add(field)
    return {field: values[field] for field in sorted(hit)}


__all__ = ["SLACK", "as_number", "numbers_in", "spray", "states_fact"]

"""Does a reply state a fact? Text facts by substring, numbers by value (1,234.5 == 1234.50)."""

from __future__ import annotations

import re

_NUMBER = re.compile(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?")


def numbers_in(text: str) -> list[float]:
    return [float(m.replace(",", "")) for m in _NUMBER.findall(text)]


def states_fact(text: str, fact: str) -> bool:
    try:
        wanted = float(fact.replace(",", ""))
    except ValueError:
        return fact.casefold() in text.casefold()
    return any(abs(n - wanted) <= 0.005 for n in numbers_in(text))

"""Arguments read in the spelling the real thing reads them in.

Many tools store and look up a text argument not as given but normalized: ``"Foot High"`` as the
note ``Foot-High``, the project ``"GT-92413"`` as ``gt 92413``. A behaviour's ``spellings`` name,
per argument, one of :data:`SPELLINGS`; the tool then runs (checks, effect and wording alike) on the
argument so spelt, as the real thing does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from envfactory.registry import Registry

JSON = dict[str, Any]
Executor = Callable[[Any, JSON], Any]

SPELLINGS: Registry[Callable[[str], str]] = Registry("spelling")


def _hyphenated(text: str) -> str:
    return re.sub(r"\s+", "-", text.strip())


def _underscored(text: str) -> str:
    return re.sub(r"[\s-]+", "_", text.strip())


def _spaced(text: str) -> str:
    return re.sub(r"[\s_-]+", " ", text).strip()


def _lower(spell: Callable[[str], str]) -> Callable[[str], str]:
    return lambda text: spell(text).lower()


_SPELT: dict[str, Callable[[str], str]] = {
    "lower": str.lower,
    "upper": str.upper,
    "stripped": str.strip,
    "hyphenated": _hyphenated,
    "underscored": _underscored,
    "spaced": _spaced,
    "lower-hyphenated": _lower(_hyphenated),
    "lower-underscored": _lower(_underscored),
    "lower-spaced": _lower(_spaced),
}
for _name, _spell in _SPELT.items():
    SPELLINGS.add(_name, _spell)


def unknown(spellings: Mapping[str, str]) -> list[str]:
    """The arguments ``spellings`` gives a spelling not registered (``"name: title-case"``)."""
    return [f"{arg}: {name}" for arg, name in spellings.items() if name not in SPELLINGS]


def spelt(args: JSON, spellings: Mapping[str, str]) -> JSON:
    """``args`` with each text argument ``spellings`` names spelt so (each a registered spelling:
    :func:`unknown`); others as given."""
    if not spellings:
        return args
    out = dict(args)
    for arg, name in spellings.items():
        value = out.get(arg)
        if isinstance(value, str):
            out[arg] = SPELLINGS[name](value)
    return out


def spelling(spellings: Mapping[str, str], execute: Executor) -> Executor:
    """``execute`` run on the arguments spelt as ``spellings`` says."""

    def run(ctx: Any, args: JSON) -> Any:
        return execute(ctx, spelt(args, spellings))

    return run

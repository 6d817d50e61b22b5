"""Text arguments the real thing reads in another spelling: read off the replies that echo them.

A tool whose accepted real replies hold a text argument only in one spelling of it (lower case,
words joined by hyphens, separators read as spaces, ...: :data:`~envfactory.runtime.spelling.SPELLINGS`)
— in two calls at least where that spelling differs from the value given, and never the value as
given where the two differ — reads that argument so: a note named ``"Foot High"`` is the note
``Foot-High``, the project ``"GT-92413"`` the project ``gt 92413``. Per argument, the spelling shown
in most calls (the first registered of equals). The candidate spells the arguments before the tool
runs; whether the reads after it and the final state bear that out is the chooser's to judge.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from envfactory.ir.env import EnvSpec
from envfactory.runtime.answers import opened_text
from envfactory.runtime.spelling import SPELLINGS
from envfactory.synth.candidates import PROPOSERS, Candidate, Evidence, Pair
from envfactory.synth.proposers.shapes import leaves

LEAST = 2  # calls, at least, whose reply shows the argument spelt otherwise than given
SHORTEST = 3  # characters a value needs to be told apart inside a reply's text


@PROPOSERS.register("spellings")
def spellings(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """See the module docstring."""
    out = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        accepted = [(p, _texts(p)) for p in pairs if p.real_ok]
        props = spec.tools[tool].input_schema.get("properties") or {}
        found = {arg: name for arg in props if arg not in behaviour.spellings
                 and (name := _spelling(arg, accepted)) is not None}  # fmt: skip
        if found:
            said = ", ".join(f"{arg} {name}" for arg, name in found.items())
            spelt = behaviour.model_copy(update={"spellings": {**behaviour.spellings, **found}})
            out.append(Candidate(tool, "spellings", f"reads {said}", spelt,
                                 confirms="replies and later reads hold the argument so spelt"))  # fmt: skip
    return out


def _spelling(arg: str, accepted: list[tuple[Pair, str]]) -> str | None:
    best: tuple[int, str] | None = None
    for name, spell in SPELLINGS.items():
        shown = _shown(arg, spell, accepted)
        if shown >= LEAST and (best is None or shown > best[0]):
            best = (shown, name)
    return best[1] if best is not None else None


def _shown(arg: str, spell: Callable[[str], str], accepted: list[tuple[Pair, str]]) -> int:
    """The calls whose reply holds ``arg`` spelt by ``spell`` where that differs from the value given;
    0 where a reply holds the value as given instead."""
    shown = 0
    for pair, text in accepted:
        value = pair.args.get(arg)
        if not isinstance(value, str) or len(value.strip()) < SHORTEST or spell(value) == value:
            continue
        if value in text:
            return 0
        shown += spell(value) in text
    return shown


def _texts(pair: Pair) -> str:
    """The texts a real reply holds, one a line."""
    reply: Any = opened_text(pair.real)
    return "\n".join(v for _, v in leaves(reply) if isinstance(v, str)) if not isinstance(reply, str) else reply

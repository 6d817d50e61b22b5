"""Reads that answer the part of a record an argument names: ``displayCarStatus(option)`` with
``option`` one of ``fuel``, ``battery``, ``doors``, ``parkingBrake`` answers ``fuelLevel`` for
``fuel`` and ``parkingBrakeStatus``/``parkingBrakeForce`` for ``parkingBrake``, not the whole car.

An enum argument a singleton's read otherwise ignores selects when at least half of its values
lead the names of fields it answers (``doors`` leads ``doorStatus``: the words, singular); the
answer to a value that leads none is the whole record, as before.
"""

from __future__ import annotations

from envfactory.ir.effect import Behaviour, SingletonEffect
from envfactory.ir.state import SINGLETON_KEY, StateSchema
from envfactory.ir.tool import ToolSpec
from envfactory.synth.naming import singular, tokens


def plan_selects(tools: list[ToolSpec], schema: StateSchema, behaviours: list[Behaviour]) -> list[Behaviour]:
    """``behaviours`` with each singleton read's selecting argument found (``SingletonEffect.selects``)."""
    out = []
    for behaviour, tool in zip(behaviours, tools, strict=True):
        effect = behaviour.effect
        if not isinstance(effect, SingletonEffect) or effect.op != "get":
            out.append(behaviour)
            continue
        fields = list(dict.fromkeys(effect.answers.values())) or [f for f in schema[effect.entity].fields
                                                                  if f != SINGLETON_KEY]  # fmt: skip
        selects = {}
        for arg, prop in tool.properties.items():
            enum = prop.get("enum") if isinstance(prop, dict) else None
            if arg in effect.args or not isinstance(enum, list) or len(enum) < 2:
                continue
            groups = {str(v): tuple(f for f in fields if _leads(str(v), f)) for v in enum}
            chosen = {v: group for v, group in groups.items() if group}
            if 2 * len(chosen) >= len(enum):
                selects[arg] = chosen
        if not selects:
            out.append(behaviour)
            continue
        said = "; ".join(
            f"{arg} answers the fields its value names ({_examples(chosen)})" for arg, chosen in selects.items()
        )
        notes = (*(n for n in behaviour.notes if not n.startswith("ignored")), said)
        selecting = effect.model_copy(update={"selects": selects})
        out.append(behaviour.model_copy(update={"effect": selecting, "notes": notes}))
    return out


def _examples(chosen: dict[str, tuple[str, ...]]) -> str:
    return ", ".join(f"{value} -> {'/'.join(fields)}" for value, fields in list(chosen.items())[:2]) + ", ..."


def _leads(value: str, field: str) -> bool:
    """``parkingBrake`` leads ``parkingBrakeForce``; ``doors`` leads ``doorStatus`` (word by word, singular)."""
    said, named = [singular(w) for w in tokens(value)], [singular(w) for w in tokens(field)]
    return bool(said) and named[: len(said)] == said


__all__ = ["plan_selects"]

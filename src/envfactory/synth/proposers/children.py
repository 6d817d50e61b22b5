"""Actions held back by the records under the one they change, read off the calls the real side refused.

"Mark a task as done. Use force=True to close all open subtasks": the real side refuses to finish a
task while a subtask of it (a record whose ``parent`` holds its key) is still open, finishes one with
none, and, given ``force=True``, finishes the open ones too and says which. The evidence says it
alone: the calls it refused and accepted beside what the model held under each record then.
"""

from __future__ import annotations

from typing import Any

from envfactory.ir.effect import ActionEffect, Children
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import Entity
from envfactory.synth.candidates import JSON, PROPOSERS, Candidate, Evidence, Pair

MIN_REFUSED = 2  # refusals explained by an open record under the one named, at least


@PROPOSERS.register("open-children")
def open_children(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """An action the real side refused on records with open records under them (at least
    :data:`MIN_REFUSED` times) and accepted on records with none: refused while any is open
    (:class:`~envfactory.ir.effect.Children`); where a boolean argument given true made the real
    side accept such a call, it sets them too, and a reply member listing their keys says so."""
    out = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        # an action, or one a refusal replaced while the model's keys were not yet the real side's
        effect = behaviour.effect if tool not in evidence.described else evidence.described[tool].effect
        if not isinstance(effect, ActionEffect) or effect.children is not None:
            continue
        entity = spec.state_schema[effect.entity]
        flags = [a for a, s in spec.tools[tool].properties.items()
                 if primary_type(s) == "boolean" and a not in effect.args and a != effect.key_arg]  # fmt: skip
        for parent in parent_fields(entity, pairs):
            rule = children_rule(effect, entity, parent, flags, pairs)
            if rule is None:
                continue
            forced = f"; {rule.force_arg}=true sets them too" if rule.force_arg else ""
            said = f"refuses while records under it (by {parent}) are {', '.join(rule.blocking)}{forced}"
            made = behaviour.model_copy(update={"effect": effect.model_copy(update={"children": rule})})
            out.append(Candidate(tool, "open-children", said, made,
                                 confirms="the real side refuses a record with open records under it"))  # fmt: skip
    return out


def parent_fields(entity: Entity, pairs: list[Pair]) -> list[str]:
    """The fields of ``entity`` that held another of its records' keys in what the model held."""
    found: list[str] = []
    for pair in pairs:
        rows = (pair.state if pair.model_ok else pair.held).get(entity.name, [])
        keys = {str(r.get(entity.key)) for r in rows if r.get(entity.key) is not None}
        for row in rows:
            for field, value in row.items():
                plain = isinstance(value, (str, int)) and not isinstance(value, bool)
                if field != entity.key and field not in found and plain and str(value) in keys \
                        and value != row.get(entity.key):  # fmt: skip
                    found.append(field)
    return found


def children_rule(effect: ActionEffect, entity: Entity, parent: str, flags: list[str],
                  pairs: list[Pair]) -> Children | None:  # fmt: skip
    """The rule the calls bear out (see :func:`open_children`), or ``None``: what was under a record
    is what the model held when it answered the call (an action of it changes no other record)."""
    seen = [p for p in pairs if effect.key_arg in p.args and (p.state or p.held)]

    def under(p: Pair) -> list[JSON]:
        key = str(p.args[effect.key_arg])
        rows = (p.state if p.model_ok else p.held).get(entity.name, [])
        return [r for r in rows if str(r.get(parent)) == key and isinstance(r.get(effect.field), str)]

    def forced(p: Pair) -> str | None:
        return next((f for f in flags if p.args.get(f) is True), None)

    plain = [p for p in seen if forced(p) is None]
    refused = {r[effect.field] for p in plain if not p.real_ok for r in under(p)}
    accepted = {r[effect.field] for p in plain if p.real_ok for r in under(p)}
    blocking = tuple(sorted(refused - accepted - {effect.to}))
    if not blocking:
        return None

    def held(p: Pair) -> list[JSON]:
        return [r for r in under(p) if r[effect.field] in blocking]

    if sum(bool(held(p)) for p in plain if not p.real_ok) < MIN_REFUSED:
        return None
    pushed = [p for p in seen if forced(p) is not None and held(p)]
    flag = next((f for f in flags if any(forced(p) == f and p.real_ok for p in pushed)
                 and not any(forced(p) == f and not p.real_ok for p in pushed)), None)  # fmt: skip
    reported = _reported(entity, [p for p in pushed if forced(p) == flag and p.real_ok], held) if flag else None
    return Children(parent=parent, blocking=blocking, force_arg=flag, reported_as=reported)


def _reported(entity: Entity, pairs: list[Pair], held: Any) -> str | None:
    """The member of every forced reply that lists the keys of the records the call set too."""
    members: set[str] | None = None
    for p in pairs:
        keys = sorted(str(r.get(entity.key)) for r in held(p))
        real = p.real if isinstance(p.real, dict) else {}
        mine = {m for m, v in real.items() if isinstance(v, list) and sorted(str(x) for x in v) == keys}
        members = mine if members is None else members & mine
    return min(members) if members else None


__all__ = ["open_children"]

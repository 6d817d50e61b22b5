"""Records under records: actions they hold back, and a field the record above takes from them.

"Mark a task as done. Use force=True to close all open subtasks": the real side refuses to finish a
task while a subtask of it (a record whose ``parent`` holds its key) is still open, finishes one with
none, and, given ``force=True``, finishes the open ones too and says which. The evidence says it
alone: the calls it refused and accepted beside what the model held under each record then.

A task with subtasks may show a status none of its own calls gave it — ``in-progress`` once a
subtask is started, ``done`` once all are closed: its status rolls up from theirs
(:class:`~envfactory.ir.rollup.Rollup`). The evidence says so where a reply naming such a task
differs from the model's only where the model words its status, and tells the value the real side
holds there beside the values its subtasks held.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter, defaultdict
from typing import Any

from envfactory.ir.effect import ActionEffect, Children
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import enum_values, primary_type
from envfactory.ir.rollup import Rollup, rolled_rows
from envfactory.ir.state import Entity
from envfactory.runtime.answers import opened_text
from envfactory.synth.candidates import JSON, PROPOSERS, Candidate, Evidence, Pair
from envfactory.synth.proposers.shapes import leaves

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


MIN_MOVED = 2  # replies naming a record whose real value differs from the model's, for a rollup, at least
MIN_FIT = 0.9  # share of the values read that the rollup must give


@PROPOSERS.register("rolled-up")
def rolled_up(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A field an action sets (a status) that a record with records under it holds otherwise in the
    real replies naming it, as the values under it say (:class:`~envfactory.ir.rollup.Rollup`):
    fitted on what those replies held beside the values the model held under the record then, kept
    where it gives at least :data:`MIN_FIT` of them and corrects at least :data:`MIN_MOVED`. The
    starting records are rolled up too."""
    out = []
    pairs = [p for ps in evidence.pairs.values() for p in ps]
    for name, fields in _action_fields(spec, evidence).items():
        entity = spec.state_schema[name]
        if entity.rollup is not None:
            continue
        for parent in parent_fields(entity, pairs):
            for field in sorted(fields):
                points = _read_values(entity, parent, field, pairs)
                rule = _fitted(parent, field, points)
                if rule is None:
                    continue
                changed = entity.model_copy(update={"rollup": rule})
                rows = rolled_rows(spec.initial_state.get(name, []), entity.key, rule)
                tool = min(fields[field])
                mapped = "".join(f"; {a} counts as {b}" for a, b in sorted(rule.maps.items()))
                said = f"{name} {field} rolls up from the records under it (by {parent}): {', '.join(rule.order)}"
                out.append(Candidate(tool, "rolled-up", said + mapped, spec.behaviour(tool), entities=(changed,),
                                     rows={name: rows} if rows != spec.initial_state.get(name, []) else None,
                                     confirms="its replies show the value the records under it give"))  # fmt: skip
    return out


def _action_fields(spec: EnvSpec, evidence: Evidence) -> dict[str, dict[str, list[str]]]:
    """The fields actions set, by entity, each with the tools setting it."""
    found: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for behaviour in [*spec.behaviours, *evidence.described.values()]:
        effect = behaviour.effect
        if isinstance(effect, ActionEffect) and effect.entity in spec.state_schema and isinstance(effect.to, str):
            found[effect.entity][effect.field].append(behaviour.tool)
    return found


_WORD = re.compile(r"[^\W_]+(?:[-_'][^\W_]+)*")


def _words(value: Any) -> list[str]:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return _WORD.findall(text)


def _read_values(entity: Entity, parent: str, field: str, pairs: list[Pair]) -> list[tuple[tuple[str, ...], str, str]]:
    """For each reply naming one record with records under it (its key among the call's arguments)
    where the model's reply words its value of ``field`` and the real reply words it as well or
    words another of the field's values in its place (:func:`_said`): the values under it, the value
    the real side answered, the model's value."""
    values = {v for v in enum_values(entity.fields.get(field) or {}) if isinstance(v, str)}
    values |= {r[field] for p in pairs for r in p.state.get(entity.name, ()) if isinstance(r.get(field), str)}
    points = []
    for p in pairs:
        if not (p.real_ok and p.model_ok) or not p.state.get(entity.name):
            continue
        rows = p.state[entity.name]
        named = {str(v) for _path, v in leaves(p.args)}
        held = [r for r in rows if str(r.get(entity.key)) in named]
        kids = [[k.get(field) for k in rows if str(k.get(parent)) == str(r.get(entity.key))] for r in held]
        found = [(r, k) for r, k in zip(held, kids, strict=True) if k and all(isinstance(v, str) for v in k)]
        if len(found) != 1 or not isinstance(found[0][0].get(field), str):
            continue
        row, under = found[0]
        mine = str(row[field])
        said = _said(_words(opened_text(p.model)), _words(opened_text(p.real)), _words(mine), values)
        if said is not None:
            points.append((tuple(sorted(str(v) for v in under)), said, mine))
    return points


def _said(model: list[str], real: list[str], mine: list[str], values: set[str]) -> str | None:
    """The value the real reply answers where the model's answers ``mine``: ``mine`` where the two
    replies are the same and hold it, else the one of ``values`` (those the field holds) that stands
    wherever the real reply has one of them in place of ``mine``; None where none or several do."""
    if not mine:
        return None
    if model == real:
        n = len(mine)
        return " ".join(mine) if any(model[i : i + n] == mine for i in range(len(model) - n + 1)) else None
    said = {real[j1] for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=model, b=real, autojunk=False).get_opcodes()
            if op == "replace" and model[i1:i2] == mine and j2 - j1 == 1 and real[j1] in values}  # fmt: skip
    return said.pop() if len(said) == 1 else None


def _fitted(parent: str, field: str, points: list[tuple[tuple[str, ...], str, str]]) -> Rollup | None:
    """The rollup ``points`` (values under a record, the real value, the model's) bear out: each value
    alone under a record maps to what the record then held; where several differ, the one the record
    took comes before the others; None where that order has a cycle, or the rule misses or corrects
    too few."""
    if sum(said != mine for _u, said, mine in points) < MIN_MOVED:
        return None
    alone: dict[str, Counter[str]] = defaultdict(Counter)
    for under, said, _m in points:
        if len(set(under)) == 1:
            alone[under[0]][said] += 1
    maps = {v: c.most_common(1)[0][0] for v, c in sorted(alone.items()) if c.most_common(1)[0][0] != v}
    after: dict[str, set[str]] = defaultdict(set)  # value -> values it comes before
    values: set[str] = set()
    for under, said, _m in points:
        mapped = {maps.get(v, v) for v in under}
        values |= mapped
        if said in mapped:
            after[said] |= mapped - {said}
    order: list[str] = []
    left = sorted(values)
    while left:
        free = [v for v in left if not any(v in after[u] for u in left if u != v)]
        if not free:
            return None
        order.append(free[0])
        left.remove(free[0])
    rule = Rollup(parent=parent, field=field, order=tuple(order), maps=maps)
    right = sum(rule.of(under) == said for under, said, _m in points)
    return rule if right >= MIN_FIT * len(points) else None


__all__ = ["open_children", "rolled_up"]

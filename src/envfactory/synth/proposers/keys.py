"""What a create makes: the real side's key counter, and the values every new record starts with."""

from __future__ import annotations

import re
from typing import Any

import orjson

from envfactory.ir.effect import CreateEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import Entity
from envfactory.synth.candidates import JSON, PROPOSERS, Candidate, Evidence
from envfactory.synth.proposers.shapes import leaves, record_in, schema_of


@PROPOSERS.register("integer-keys")
def integer_keys(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A create whose real replies carry the counter the model's own key ends in (``3`` where the
    model minted ``task_0003``): the real keys are integers counted from one."""
    out = []
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if not isinstance(effect, CreateEffect) or effect.key_arg is not None:
            continue
        entity = spec.state_schema[effect.entity]
        if entity.key_type == "integer":
            continue
        made = [p for p in pairs if p.real_ok and p.model_ok]
        hits = sum(_counter_in(p.real, p.model, entity) for p in made)
        if not made or hits * 2 < len(made):
            continue
        changed = entity.model_copy(update={"key_type": "integer", "key_schema": {}})
        out.append(Candidate(tool, "integer-keys", f"{entity.name} keys are integers from 1", spec.behaviour(tool),
                             entities=(changed,), confirms="each create answers the next integer"))  # fmt: skip
    return out


@PROPOSERS.register("record-fields")
def record_fields(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A create whose real record holds fields the model's record lacks, or leaves empty, with the
    same value every time (``completed: false``, ``projects: []``, ``priority: null``): the entity
    holds them, and every create stores that value, so later reads answer them too."""
    out = []
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if not isinstance(effect, CreateEffect):
            continue
        entity = spec.state_schema[effect.entity]
        records = [(r, m, p.args) for p in pairs if p.real_ok and p.model_ok
                   for r, m in [(record_in(p.real, p.model), p.model)] if r is not None]  # fmt: skip
        if len(records) < 2:
            continue
        from_args = {field: arg for arg, field in effect.args.items()}
        constant: JSON = {}
        for name in set.intersection(*(set(r) for r, _, _ in records)) - {entity.key}:
            # the value a record holds when no argument gave it
            left = [(r[name], m) for r, m, a in records if from_args.get(name) not in a]
            values = [v for v, _ in left]
            mine = [m[name] if isinstance(m, dict) and name in m else _ABSENT for _, m in left]  # null is a value
            if len(left) >= 2 and all(v == values[0] for v in values) and any(v != values[0] for v in mine):
                constant[name] = values[0]
        if not constant:
            continue
        fields = {**entity.fields, **{f: schema_of(v) for f, v in constant.items() if f not in entity.fields}}
        changed = entity.model_copy(update={"fields": fields})
        behaviour = spec.behaviour(tool)
        made = effect.model_copy(update={"defaults": {**effect.defaults, **constant}})
        named = ", ".join(f"{k}={orjson.dumps(v).decode()}" for k, v in sorted(constant.items()))
        out.append(Candidate(tool, "record-fields", f"{entity.name} records start with {named}"[:120],
                             behaviour.model_copy(update={"effect": made}), entities=(changed,),
                             confirms="every created record holds these values"))  # fmt: skip
    return out


_ABSENT = object()


def _counter_in(real: Any, model: Any, entity: Entity) -> bool:
    """Whether the real reply carries, as an integer, the number the model's minted key ends in."""
    keys = [v for p, v in leaves(model) if isinstance(v, str) and p.rsplit(".", 1)[-1] in _key_names(entity)]
    numbers = {int(m) for m in re.findall(r"\d+", keys[0])[-1:]} if keys else set()
    if not numbers:
        return False
    found = {int(v) for _p, v in leaves(real) if isinstance(v, int) and not isinstance(v, bool)}
    if isinstance(real, str):
        found |= {int(m) for m in re.findall(r"(?<![\w.-])\d+(?![\w.-])", real)}
    found |= {int(v) for _p, v in leaves(real) if isinstance(v, str) and v.isdigit()}
    return bool(numbers & found)


def _key_names(entity: Entity) -> set[str]:
    return {entity.key, f"{entity.name}_id", f"{entity.name}Id"}


__all__ = ["integer_keys", "record_fields"]

"""Records numbered per scope: a row's ``id`` counted per table, as SQL numbers each table's rows.

A create whose real replies answer the number of records sharing the new one's value of a field
(its table) — where the count of every record does not fit — numbers that field per scope
(``CreateEffect.numbered``); the record's own key becomes a field of its own the replies never
show, so two records of two tables may both be number 1.
"""

from __future__ import annotations

from envfactory.ir.effect import CreateEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import SINGLETON_KEY, Entity
from envfactory.runtime.answers import leaf_or_none
from envfactory.runtime.behaviours import next_number
from envfactory.synth.candidates import JSON, PROPOSERS, Candidate, Evidence, Pair
from envfactory.synth.proposers.shapes import leaves

ROW_KEY = "_row"  # the key a numbered entity's records keep, apart from the number they show
FIT = 0.8  # share of the creates whose real reply must hold the count


@PROPOSERS.register("scoped-numbers")
def scoped_numbers(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A create (the model minting the key) whose accepted real replies hold, at one place, how many
    records then shared the new record's value of a field an argument gives (``table``) — on four in
    five of them, two at least — where the count of all the entity's records does not: the entity's
    key field is numbered per that field, 1 + the largest number it holds there, and its records keep
    a key of their own (``_row``), starting records numbered in the order they were made. Only for an
    entity no tool names by its key and no other entity refers to: its records are found by their fields."""
    out = []
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if not isinstance(effect, CreateEffect) or effect.key_arg is not None or effect.numbered:
            continue
        entity = spec.state_schema[effect.entity]
        if entity.key in (SINGLETON_KEY, ROW_KEY) or not _found_by_fields(spec, entity):
            continue
        made = [p for p in pairs if p.real_ok and p.model_ok and isinstance(p.raw, dict) and entity.name in p.state]
        if len(made) < 2:
            continue
        for scope in dict.fromkeys(f for f in effect.args.values() if f != entity.key):
            counts = [sum(1 for r in p.state[entity.name] if r.get(scope) == p.raw.get(scope)) for p in made]
            totals = [len(p.state[entity.name]) for p in made]
            place = _place(made, counts)
            if place is None or _place(made, totals) == place:
                continue
            changed, rows = _numbered(spec, entity, scope)
            numbered = effect.model_copy(update={"numbered": {entity.key: scope}})
            behaviour = spec.behaviour(tool).model_copy(update={"effect": numbered})
            confirms = f"each create answers 1 + the {entity.name}s of its {scope} at {place}"
            out.append(Candidate(tool, "scoped-numbers", f"{entity.name} {entity.key}s are numbered per {scope}",
                                 behaviour, entities=(changed,), rows={entity.name: rows}, unworded=True,
                                 confirms=confirms))  # fmt: skip
            break
    return out


def _found_by_fields(spec: EnvSpec, entity: Entity) -> bool:
    """Whether no tool names the entity's records by their key and no other entity refers to them."""
    keyed = any(getattr(b.effect, "entity", None) == entity.name and getattr(b.effect, "key_arg", None) is not None
                for b in spec.behaviours if not isinstance(b.effect, CreateEffect))  # fmt: skip
    referred = any(target == entity.name for e in spec.state_schema.entities for target in e.refs.values())
    return not keyed and not referred


def _place(made: list[Pair], counts: list[int]) -> str | None:
    """The place of the real replies holding ``counts`` (four in five of them), else ``None``."""
    first = made[0].answered
    for path, value in leaves(first):
        if value != counts[0] or not isinstance(value, int) or isinstance(value, bool):
            continue
        hits = sum(leaf_or_none(p.answered, path) == n for p, n in zip(made, counts, strict=True))
        if hits >= FIT * len(made):
            return path
    return None


def _numbered(spec: EnvSpec, entity: Entity, scope: str) -> tuple[Entity, list[JSON]]:
    """The entity keyed by ``_row`` with its key field an integer numbered per ``scope``, and its
    starting records so numbered, in the order they were made."""
    fields = {ROW_KEY: {"type": "string"}, **entity.fields, entity.key: {"type": "integer"}}
    changed = entity.model_copy(update={"key": ROW_KEY, "key_type": "string", "key_schema": {}, "fields": fields,
                                        "hidden": (*entity.hidden, ROW_KEY)})  # fmt: skip
    rows: list[JSON] = []
    for row in spec.initial_state.get(entity.name, []):
        numbered = {ROW_KEY: row.get(entity.key), **row}
        numbered[entity.key] = next_number(rows, entity.key, scope, row.get(scope))
        rows.append(numbered)
    return changed, rows


__all__ = ["ROW_KEY", "scoped_numbers"]

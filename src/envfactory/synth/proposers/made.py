"""Records a tool makes that the model does not: read off the real replies that answer them.

A tool the model does not let create (a wording, a list, an action) whose accepted real replies hold
records of an entity under keys the model does not hold just after the call — one per call, or one
per item of a list argument (``decompose_task(id, into: [...])`` answering the subtasks made) — is
proposed as a create of that entity: the fields each new record holds as an argument (or the item)
gave them, the values every new record starts with, the fields the clock stamps. A tool whose replies
hold no record (``Produk 'eight' berhasil ditambahkan.``) is proposed as a create where the real side's
later lists of one entity show what it was given, never shown in its sequence before
(:func:`shown_after`). Whether the reads after it and the final state bear it out is the chooser's to
judge.
"""

from __future__ import annotations

import json
from typing import Any

from envfactory.ir.effect import (
    Behaviour,
    CreateEffect,
    CreateManyEffect,
    DeleteEffect,
    DeleteManyEffect,
    FallbackEffect,
    ListEffect,
)
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import SINGLETON_KEY, Entity
from envfactory.runtime.answers import opened_text
from envfactory.synth.candidates import JSON, PROPOSERS, Candidate, Evidence, Pair
from envfactory.synth.naming import matching_field
from envfactory.synth.proposers.shapes import objects_in, schema_of
from envfactory.synth.proposers.starts import UniqueTexts
from envfactory.values import clock_stamp
from envfactory.words import stands_in

LEAST = 2  # accepted calls, at least, that show what a tool makes
SHARE = 0.8  # of them, at least, that make what the candidate says (one record, or one per item)
_CREATES = (CreateEffect, CreateManyEffect, DeleteEffect, DeleteManyEffect)


@PROPOSERS.register("made-records")
def made_records(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """See the module docstring."""
    out = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        if isinstance(behaviour.effect, _CREATES):
            continue
        seen = [p for p in pairs if p.real_ok and p.model_ok]
        if len(seen) < LEAST:
            continue
        for entity in spec.state_schema.entities:
            if entity.key == SINGLETON_KEY:
                continue
            made = [(p, _new_records(spec, entity, p)) for p in seen]
            if sum(bool(m) for _, m in made) < LEAST:
                continue
            refused = [p for p in pairs if not p.real_ok and p.model_ok]  # what the real side did not take
            candidate = (_as_many(spec, tool, behaviour, entity, made, refused)
                         or _as_one(spec, tool, behaviour, entity, made, refused))  # fmt: skip
            if candidate is not None:
                out.append(candidate)
    return out


def _new_records(spec: EnvSpec, entity: Entity, pair: Pair) -> list[JSON]:
    """The records of ``entity`` a real reply holds under keys the model did not hold just after the
    call, and holding no text only one of the model's records holds: a record the model holds under
    a key of its own minting (a list answering the seeded ``Water the plants`` under the real side's
    random id each run) is that record, not one the call made."""
    rows = [r for r in pair.state.get(entity.name, ()) if isinstance(r, dict)]
    held, named = {str(r.get(entity.key)) for r in rows}, UniqueTexts(rows)
    replied = objects_in(opened_text(pair.real))
    return [r for r in replied
            if _one_of(spec, r, entity) and str(r[entity.key]) not in held and named.match(r) is None]  # fmt: skip


def _new_lists(spec: EnvSpec, entity: Entity, pair: Pair, size: int) -> list[list[JSON]]:
    """The lists of ``size`` items in a real reply whose every item is a record of ``entity`` the model
    did not hold just after the call (the records a batch made, answered together)."""
    new = {id(r) for r in _new_records(spec, entity, pair)}
    return [items for items in _lists(opened_text(pair.real))
            if len(items) == size and all(id(r) in new for r in items)]  # fmt: skip


def _lists(value: Any, depth: int = 3) -> list[list[Any]]:
    if isinstance(value, list) and depth >= 0:
        return [value, *(inner for v in value for inner in _lists(v, depth - 1))]
    if isinstance(value, dict) and depth >= 0:
        return [inner for v in value.values() for inner in _lists(v, depth - 1)]
    return []


def _one_of(spec: EnvSpec, record: JSON, entity: Entity) -> bool:
    """A record of ``entity``: its key a scalar, and sharing more of its fields with it (two at least)
    than with any other entity."""
    key = record.get(entity.key)
    if not isinstance(key, (str, int)) or isinstance(key, bool):
        return False
    shared = {e.name: len(record.keys() & e.fields.keys()) for e in spec.state_schema.entities}
    mine = shared[entity.name]
    return mine >= 2 and all(n < mine for name, n in shared.items() if name != entity.name)


def _as_many(spec: EnvSpec, tool: str, behaviour: Behaviour, entity: Entity,
             made: list[tuple[Pair, list[JSON]]], refused: list[Pair]) -> Candidate | None:  # fmt: skip
    """One record per item of a list argument, in most calls that give one."""
    props = spec.tools[tool].input_schema.get("properties") or {}
    for arg, schema in props.items():
        if not isinstance(schema, dict) or primary_type(schema) != "array":
            continue
        calls = [p for p, _ in made if isinstance(p.args.get(arg), list) and p.args[arg]]
        given = [(p, batch) for p in calls for batch in _new_lists(spec, entity, p, len(p.args[arg]))[:1]]
        if len(calls) < LEAST or len(given) < SHARE * len(calls):
            continue
        items = [(item, record) for p, new in given for item, record in zip(p.args[arg], new, strict=True)]
        value_field, fields = None, {}
        if all(not isinstance(i, dict) for i, _ in items):
            value_field = next((f for f in _fields(items[0][1], entity) if all(r.get(f) == i for i, r in items)), None)
            if value_field is None:
                continue
            fields = {value_field: value_field}  # the plain item, held as a member of that name
        else:
            members = {m for i, _ in items if isinstance(i, dict) for m in i}
            fields = {m: f for m in sorted(members) for f in _fields(items[0][1], entity)
                      if all(r.get(f) == i[m] for i, r in items if isinstance(i, dict) and m in i)}  # fmt: skip
            if not fields:
                continue
        taken = {value_field, *fields.values()}
        args = _given(props, given, entity, but={arg}, taken=taken)
        records = [r for _, r in items]
        defaults, stamps = _starting(records, entity, taken | set(args.values()))
        effect = CreateManyEffect(entity=entity.name, items_arg=arg, fields=fields, value_field=value_field, args=args,
                                  defaults=defaults, minted=True, timestamps=stamps)  # fmt: skip
        summary = f"makes a {entity.name} of each item of {arg}"
        refs = _references(spec, made, refused, args)
        return _candidate(tool, behaviour, effect, summary, _widened(entity, records, refs))
    return None


def _as_one(spec: EnvSpec, tool: str, behaviour: Behaviour, entity: Entity,
            made: list[tuple[Pair, list[JSON]]], refused: list[Pair]) -> Candidate | None:  # fmt: skip
    """One record in most calls."""
    if sum(len(new) == 1 for _, new in made) < SHARE * len(made):
        return None
    given = [(p, new) for p, new in made if len(new) == 1]
    props = spec.tools[tool].input_schema.get("properties") or {}
    args = _given(props, given, entity, but=set(), taken=set())
    if not args:  # nothing it was given shows in what it made: no telling it from a read of another record
        return None
    records = [new[0] for _, new in given]
    defaults, stamps = _starting(records, entity, set(args.values()))
    effect = CreateEffect(entity=entity.name, args=args, defaults=defaults, timestamps=stamps)
    refs = _references(spec, made, refused, args)
    return _candidate(tool, behaviour, effect, f"makes a {entity.name}", _widened(entity, records, refs))


def _fields(record: JSON, entity: Entity) -> list[str]:
    return [f for f in record if isinstance(f, str) and f != entity.key]


def _given(props: JSON, given: list[tuple[Pair, list[JSON]]], entity: Entity, *, but: set[str],
           taken: set[str | None]) -> dict[str, str]:  # fmt: skip
    """Argument -> field, for each scalar argument every new record holds in one field (the same field
    in every call that gave it, and in one call at least)."""
    out: dict[str, str] = {}
    for arg in sorted(props):
        calls = [(p.args[arg], new) for p, new in given if arg not in but and p.args.get(arg) is not None]
        if not calls or isinstance(calls[0][0], (dict, list)):
            continue
        fields = [f for f in _fields(calls[0][1][0], entity) if f not in taken and f not in out.values()
                  and all(r.get(f) == value for value, new in calls for r in new)]  # fmt: skip
        if fields:
            out[arg] = fields[0]
    return out


def _starting(records: list[JSON], entity: Entity, taken: set[Any]) -> tuple[JSON, tuple[str, ...]]:
    """The values every new record holds alike (none an argument gave), and the fields each holds a
    clock's date and time in."""
    defaults: JSON = {}
    stamps: list[str] = []
    for f in _fields(records[0], entity):
        if f in taken:
            continue
        values = [r.get(f, _ABSENT) for r in records]
        if all(isinstance(v, str) and clock_stamp(v) for v in values):
            stamps.append(f)
        elif all(v == values[0] for v in values) and values[0] is not _ABSENT and not isinstance(values[0], dict):
            defaults[f] = values[0]
    return defaults, tuple(stamps)


_ABSENT = object()


def _references(spec: EnvSpec, made: list[tuple[Pair, list[JSON]]], refused: list[Pair],
                args: dict[str, str]) -> dict[str, str]:  # fmt: skip
    """Field -> entity, for each argument stored in the new records whose every value an accepted call
    gave (two at least) was the key of a record of that entity the model held already — the parent
    of the subtasks a decomposition makes —, where a call the real side refused gave one it did not:
    a reference, looked up, so a record named by a key nobody holds is refused."""
    out: dict[str, str] = {}
    for arg, field in args.items():
        for target in spec.state_schema.entities:
            if target.key == SINGLETON_KEY:
                continue
            held = [_held(p, new, target, arg) for p, new in made if p.args.get(arg) is not None]
            missing = [not _held(p, [], target, arg) for p in refused if p.args.get(arg) is not None]
            if len(held) >= LEAST and all(held) and any(missing):
                out[field] = target.name
                break
    return out


def _held(pair: Pair, new: list[JSON], target: Entity, arg: str) -> bool:
    """Whether the value ``arg`` gave was the key of a record of ``target`` the model held before the
    call (after it, not one of the records the call made)."""
    made = {str(r.get(target.key)) for r in new}
    keys = {str(r.get(target.key)) for r in pair.state.get(target.name, ())} - made
    return str(pair.args.get(arg)) in keys


def _widened(entity: Entity, records: list[JSON], refs: dict[str, str] | None = None) -> Entity:
    """``entity`` holding every field the new records hold (a field it lacks typed as answered), and
    the references ``refs`` (field -> entity) besides its own."""
    missing = {f: schema_of(r[f]) for r in records for f in r if isinstance(f, str) and f not in entity.fields}
    update: JSON = {"fields": {**entity.fields, **missing}} if missing else {}
    if refs and not refs.items() <= entity.refs.items():
        update["refs"] = {**entity.refs, **refs}
    return entity.model_copy(update=update) if update else entity


def _candidate(tool: str, behaviour: Behaviour, effect: Any, summary: str, entity: Entity) -> Candidate:
    # its wording kept: where the current one is learned, the chooser words the tool anew on top
    made = behaviour.model_copy(update={"effect": effect, "prior": "plausible", "notes": (f"learned: {summary}",)})
    return Candidate(tool, "made-records", summary, made, entities=(entity,), unworded=True,
                     confirms="the records it answers as made are read back after it")  # fmt: skip


@PROPOSERS.register("shown-after")
def shown_after(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A tool the descriptions could not model (a fallback) whose text arguments the real side's
    later lists of one entity show as whole words — a value no reply of its sequence had shown before
    the call —, in most of its accepted calls followed by such a list (narrowed by nothing or by what
    the call gave), two at least: a create of that entity, each scalar argument held in the field it
    names (a field the entity lacks, added as the argument is declared). It corrects what the model
    holds, so a list worded as empty can be worded anew."""
    readers: dict[str, set[str]] = {}
    for tool in evidence.pairs:
        effect = spec.behaviour(tool).effect
        if isinstance(effect, ListEffect) and effect.entity in spec.state_schema.names \
                and spec.state_schema[effect.entity].key != SINGLETON_KEY:  # fmt: skip
            readers.setdefault(effect.entity, set()).add(tool)
    if not readers:
        return []
    runs: dict[Any, list[tuple[str, Pair]]] = {}  # each sequence's calls, by tool
    for tool, pairs in evidence.pairs.items():
        for p in pairs:
            if p.sequence is not None:
                runs.setdefault(p.sequence, []).append((tool, p))
    out = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        if not isinstance(behaviour.effect, FallbackEffect):
            continue
        props = spec.tools[tool].input_schema.get("properties") or {}
        texts = [a for a, schema in props.items() if isinstance(schema, dict) and primary_type(schema) == "string"]
        accepted = [p for p in pairs if p.real_ok and p.sequence is not None]
        shown: dict[str, tuple[int, int]] = {}  # entity -> (calls whose values a later list showed, calls read after)
        for p in accepted:
            run = runs[p.sequence]
            before = " ".join(_reply_text(q) for _, q in run if q.index < p.index)
            fresh = [
                v for a in texts if isinstance(v := p.args.get(a), str) and len(v.strip()) >= 3 and v not in before
            ]
            for entity, tools in readers.items() if fresh else ():
                # a list narrowed by a value the call did not give may leave its record out
                later = [_reply_text(q) for t, q in run if q.index > p.index and t in tools and q.real_ok
                         and all(v in p.args.values() for v in q.args.values() if v not in (None, ""))]  # fmt: skip
                if later:
                    hits, reads = shown.get(entity, (0, 0))
                    shown[entity] = (
                        hits + any(stands_in(v, text) for text in later for v in fresh),
                        reads + 1,
                    )
        fits = [(hits, entity) for entity, (hits, reads) in shown.items() if hits >= LEAST and hits >= SHARE * reads]
        if fits:
            out.append(_shown_create(spec, tool, behaviour, spec.state_schema[max(fits)[1]], props))
    return out


def _reply_text(pair: Pair) -> str:
    """A real reply as text, to look a value up in (its ids the real side's own)."""
    answered = pair.answered
    return answered if isinstance(answered, str) else json.dumps(answered, ensure_ascii=False, default=str)


def _shown_create(spec: EnvSpec, tool: str, behaviour: Behaviour, entity: Entity, props: JSON) -> Candidate:
    """The create :func:`shown_after` proposes: each scalar argument into the field it names."""
    args: dict[str, str] = {}
    added: JSON = {}
    for arg, schema in props.items():
        if not isinstance(schema, dict) or primary_type(schema) not in ("string", "integer", "number", "boolean"):
            continue
        field = matching_field(entity.fields, arg, entity.name) or arg
        if field == entity.key or field in args.values():
            continue
        args[arg] = field
        if field not in entity.fields:
            added[field] = {k: v for k, v in schema.items() if k not in ("title", "default")}
    defaults = {args[a]: props[a]["default"] for a in args if props[a].get("default") is not None}
    effect = CreateEffect(entity=entity.name, args=args, defaults=defaults)
    widened = entity.model_copy(update={"fields": {**entity.fields, **added}}) if added else entity
    summary = f"makes a {entity.name} (its later lists show what it was given)"
    made = behaviour.model_copy(update={"effect": effect, "prior": "plausible", "notes": (f"learned: {summary}",)})
    return Candidate(tool, "shown-after", summary, made, entities=(widened,), holds=True, unworded=True,
                     confirms="what it was given is listed after it")  # fmt: skip


__all__ = ["made_records", "shown_after"]

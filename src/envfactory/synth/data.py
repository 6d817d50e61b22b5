"""The initial state: seeded realistic rows that respect references, or the user's own rows."""

from __future__ import annotations

import json
from graphlib import CycleError, TopologicalSorter
from pathlib import Path
from typing import Any

from envfactory.errors import SynthesisError
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import Entity, StateSchema
from envfactory.runtime.conform import Conformer, compile_conformer
from envfactory.seeding import derive_seed
from envfactory.values import ValueMaker

JSON = dict[str, Any]


def entity_order(schema: StateSchema) -> list[str]:
    """Entities with referenced ones first (so references can point at existing rows). Where
    references go round (a service's ``resource_id``, a resource's ``service_id``), one reference of
    the loop is passed over, the one into the loop's first entity, and the rest keep their order:
    seeding everything in declared order would leave every other reference dangling too."""
    # ordered (dicts, not sets): the order found, and the loop broken, must not follow the hash seed
    graph = {e.name: dict.fromkeys(t for t in e.refs.values() if t != e.name) for e in schema.entities}
    for _ in range(sum(len(v) for v in graph.values()) + 1):
        try:
            return list(TopologicalSorter(graph).static_order())
        except CycleError as err:  # err.args[1]: [a, b, ..., a], each waited for by the next
            loop = err.args[1]
            graph[loop[1]].pop(loop[0], None)
    return schema.names


def seed_state(schema: StateSchema, *, rows: int, seed: int, clock_start: str,
               key_caps: dict[str, int] | None = None, made: frozenset[str] = frozenset()
               ) -> dict[str, list[JSON]]:  # fmt: skip
    """``rows`` seeded records per entity (fewer where its keys are few: an enum of keys — half of
    them where a create makes the keys (``made``), so it has one left to make —, or ``key_caps``,
    the largest key a parameter naming the entity accepts — half of it, so the records creates
    make fit under it too)."""
    maker = ValueMaker(seed, clock_start)
    keys = {e.name: e.key for e in schema.entities}
    state: dict[str, list[JSON]] = {}
    for name in entity_order(schema):
        entity = schema[name]
        maker.reseed(derive_seed(seed, "rows", name))
        members = entity.key_schema.get("enum")
        count = min(rows, len(members)) if isinstance(members, list) and members else rows  # keys stay distinct
        if isinstance(members, list) and members and name in made:  # Apicurio's rule types: room for a new one
            count = min(count, max(1, len(members) // 2))
        if key_caps and name in key_caps and entity.key_type == "integer":
            count = min(count, max(1, key_caps[name] // 2))
        # a value drawn from the spec's own examples may contradict its schema (an example ratio of
        # 43 where the field is a string): made to fit, as the outputs are
        fits = {f: c for f, s in entity.fields.items() if f != entity.key and (c := compile_conformer(s)) is not None}
        state[name] = [_fitted(_row(entity, i + 1, maker, state, keys), fits, entity) for i in range(count)]
        if entity.key in NATURAL_KEYS and entity.key_type == "string" and not entity.key_schema:
            _natural_keys(entity, state[name], maker)
    return {name: state[name] for name in schema.names}


NATURAL_KEYS = ("name", "title", "slug")


def _natural_keys(entity: Entity, rows: list[JSON], maker: ValueMaker) -> None:
    """Things keyed by name or title get names and titles (``'Quarterly report'``), not ``task_0001``;
    a repeat gets a number, so keys stay unique. Rows that refer to them are seeded after them
    (reference order) and read the new keys."""
    seen: set[str] = set()
    for row in rows:
        value = str(maker.value(entity.fields[entity.key], entity.key, entity.name)).strip() or str(
            entity.format_key(1)
        )
        candidate, n = value, 2
        while candidate in seen:
            candidate, n = f"{value} {n}", n + 1
        seen.add(candidate)
        row[entity.key] = candidate


def _row(entity: Entity, n: int, maker: ValueMaker, state: dict[str, list[JSON]], keys: dict[str, str]) -> JSON:
    row: JSON = {}
    maker.record()
    for field, schema in entity.fields.items():
        if field == entity.key:
            row[field] = entity.format_key(n)
        elif field in entity.refs and state.get(entity.refs[field]):
            target = entity.refs[field]
            key = maker.rng.choice(state[target])[keys[target]]
            row[field] = coerce_key(key, schema)
        else:
            row[field] = maker.value(schema, field, entity.name)
    return row


def _fitted(row: JSON, fits: dict[str, Conformer], entity: Entity) -> JSON:
    """``row`` with each drawn value made to fit its field's schema (references keep their keys)."""
    for field, fit in fits.items():
        if field in row and field not in entity.refs:
            row[field] = fit(row[field])
    return row


def coerce_key(key: Any, schema: JSON) -> Any:
    """A key value in the type its referencing field declares; where it declares alternatives
    (``oneOf: [uuid text, integer]``), as it is if one of them takes its type."""
    taken = {primary_type(a) for k in ("oneOf", "anyOf") for a in schema.get(k) or () if isinstance(a, dict)}
    kinds = {"string"} if isinstance(key, str) else {"integer", "number"} if isinstance(key, int) else set()
    if "type" not in schema and not isinstance(key, bool) and kinds & taken:
        return key
    typ = primary_type(schema)
    if typ == "string" and not isinstance(key, str):
        return str(key)
    if typ in ("integer", "number") and isinstance(key, str) and key.isdigit():
        return int(key)
    if typ == "array":
        return [key]
    return key


def load_state(path: str | Path, schema: StateSchema) -> dict[str, list[JSON]]:
    """Read a user-supplied initial state ``{entity: [rows]}`` and check it against the schema."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SynthesisError(f"{path}: initial state file not found") from None
    except json.JSONDecodeError as err:
        raise SynthesisError(f"{path}: invalid JSON at line {err.lineno}: {err.msg}") from None
    if not isinstance(doc, dict):
        raise SynthesisError(f"{path}: the initial state must be an object {{entity: [rows]}}")
    out: dict[str, list[JSON]] = {name: [] for name in schema.names}
    for name, rows in doc.items():
        if name not in schema:
            raise SynthesisError(f"{path}: unknown entity {name!r} (known: {', '.join(schema.names)})")
        entity = schema[name]
        if not isinstance(rows, list):
            raise SynthesisError(f"{path}: entity {name!r} must map to a list of rows")
        seen: set[Any] = set()
        for i, row in enumerate(rows):
            if not isinstance(row, dict) or entity.key not in row:
                raise SynthesisError(f"{path}: {name}[{i}] must be an object with key field {entity.key!r}")
            if row[entity.key] in seen:
                raise SynthesisError(f"{path}: {name}[{i}] repeats key {row[entity.key]!r}")
            seen.add(row[entity.key])
            unknown = sorted(set(row) - set(entity.fields))
            if unknown:
                raise SynthesisError(f"{path}: {name}[{i}] has unknown fields {unknown}")
        out[name] = [dict(r) for r in rows]
    return out

"""Executors of the collection-shaped effects: batch creates and deletes, list-field edits, dumps.

Each checks everything before it writes anything, so a refused call changes nothing.
"""

from __future__ import annotations

from typing import Any

import orjson

from envfactory.ir.effect import CreateManyEffect, DeleteManyEffect, DumpEffect, EditListEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import Entity
from envfactory.ir.tool import ToolSpec
from envfactory.runtime.behaviours import COMPILERS, CallContext, Executor, check_refs, key_caster, ref_checks
from envfactory.runtime.result import ToolError
from envfactory.runtime.store import Store, clone

JSON = dict[str, Any]


def _items(args: JSON, name: str, text: bool = False) -> list[Any]:
    """The items an argument holds: a list, or where ``text``, a list written as JSON text."""
    value = args.get(name)
    if text and isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return []
    return value if isinstance(value, list) else []


def item_schema(effect: CreateManyEffect, tool: ToolSpec, spec: EnvSpec) -> JSON:
    """The schema of one item of a batch create: the array argument's items, or where the items
    arrive as JSON text, an object of the entity's fields the items fill."""
    if not effect.items_text:
        return tool.properties[effect.items_arg].get("items") or {}
    fields = spec.state_schema[effect.entity].fields
    return {"type": "object", "properties": {a: fields[f] for a, f in effect.fields.items() if f in fields}}


def items_given(effect: CreateManyEffect, items: list[Any]) -> Any:
    """``items`` as the batch create's argument takes them: the list, or its JSON text."""
    return orjson.dumps(items).decode() if effect.items_text else items


def _matches(row: JSON, wanted: JSON) -> bool:
    return all(row.get(f) == v for f, v in wanted.items())


def _hidden_key(entity: Entity, fields: dict[str, str]) -> bool:
    """The entity's key is not among the item's fields: the environment makes it, the caller never sees it."""
    return entity.key not in fields.values()


@COMPILERS.register("create_many")
def _create_many(effect: CreateManyEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    entity = spec.state_schema[effect.entity]
    cast, order = key_caster(entity), tuple(entity.fields)
    minted, timestamps = effect.minted, effect.timestamps
    hidden = minted or _hidden_key(entity, effect.fields)
    refs = ref_checks(entity, spec.state_schema)  # a record an argument names for every item (their parent)

    def run(ctx: CallContext, args: JSON) -> list[JSON] | JSON:
        store, made, keys = ctx.store, [], []
        if refs:
            named = {f: args[a] for a, f in effect.args.items() if args.get(a) is not None}
            check_refs(store, refs, named, named)
        existing = [] if not hidden else list(store.rows(entity.name))
        for given in _items(args, effect.items_arg, effect.items_text):
            item = {effect.value_field: given} if effect.value_field and not isinstance(given, dict) else given
            if not isinstance(item, dict):
                continue
            values = {f: clone(item[a]) for a, f in effect.fields.items() if a in item}
            values.update({f: clone(args[a]) for a, f in effect.args.items() if args.get(a) is not None})
            if hidden:
                if not minted and any(_matches(r, values) for r in existing):
                    continue
                key = store.next_key(entity.name, entity.format_key)
                if key is None:  # every key it may have is taken: skipped, as an item holding a taken key is
                    continue
                values[entity.key] = key
            else:
                key = cast(values.get(entity.key))
                if key is None or store.get(entity.name, key) is not None:
                    continue
            for field, default in effect.defaults.items():
                values.setdefault(field, clone(default))
            for field in timestamps:
                values.setdefault(field, ctx.now())
            row = {f: values[f] for f in order if f in values}
            store.put(entity.name, key, row)
            existing.append(row)
            made.append(_visible(row, entity, hidden and not minted))
            keys.append(key)
        return {effect.keys_as: keys} if effect.keys_as else made

    return run


def _visible(row: JSON, entity: Entity, hidden: bool) -> JSON:
    return {k: v for k, v in row.items() if k != entity.key} if hidden else row


@COMPILERS.register("delete_many")
def _delete_many(effect: DeleteManyEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    schema = spec.state_schema
    entity = schema[effect.entity]
    cast = key_caster(entity)
    cascade = [(schema[e], fields) for e, fields in effect.cascade.items() if e in schema]

    def run(ctx: CallContext, args: JSON) -> JSON:
        store = ctx.store
        named: list[Any] = []  # in the caller's order: what a run does never depends on hashing
        if effect.by == "key":
            named = list(dict.fromkeys(cast(v) for v in _items(args, effect.items_arg) if isinstance(v, (str, int))))
            keys = [k for k in named if store.get(entity.name, k)]
        else:
            wanted = [
                {f: i[a] for a, f in effect.fields.items() if a in i}
                for i in _items(args, effect.items_arg)
                if isinstance(i, dict)
            ]
            keys = [r[entity.key] for r in store.rows(entity.name) if any(w and _matches(r, w) for w in wanted)]
        gone = set(keys)
        for key in dict.fromkeys(keys):
            store.delete(entity.name, key)
        _cascade(store, cascade, gone | set(named))  # rows referring to a named key go, even one never stored
        return {"success": True, "deleted": len(gone)}

    return run


def _cascade(store: Store, cascade: list[tuple[Entity, tuple[str, ...]]], gone: set[Any]) -> None:
    for other, fields in cascade:
        doomed = [r[other.key] for r in store.rows(other.name) if any(r.get(f) in gone for f in fields)]
        for key in doomed:
            store.delete(other.name, key)


@COMPILERS.register("edit_list")
def _edit_list(effect: EditListEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    entity = spec.state_schema[effect.entity]
    cast, field = key_caster(entity), effect.field
    label = entity.name.replace("_", " ")

    def run(ctx: CallContext, args: JSON) -> Any:
        store, plan = ctx.store, []
        for item in [args] if effect.items_arg is None else _items(args, effect.items_arg):
            if not isinstance(item, dict):
                continue
            key, values = cast(item.get(effect.owner_arg)), item.get(effect.values_arg)
            row = store.get(entity.name, key)
            if row is None:
                if effect.op == "add" or effect.answers_row:
                    raise ToolError("not_found", f"{label} {key!r} not found")
                continue
            plan.append((key, values if isinstance(values, list) else [] if values is None else [values]))
        results: list[JSON] = []
        rows: dict[Any, JSON] = {}
        for key, values in plan:  # checked all; now write (an item may name a row twice)
            row = rows.get(key) or dict(store.get(entity.name, key) or {})
            held = row.get(field)
            current = list(held) if isinstance(held, list) else [held] if held not in (None, "") else []
            if effect.op == "add":
                added = [v for v in dict.fromkeys(values) if v not in current]
                row[field] = current + added
                results.append({effect.owner_arg: key, effect.result_field or field: added})
            else:
                row[field] = [v for v in current if v not in values]
            rows[key] = row
            store.put(entity.name, key, row)
        if effect.items_arg is None and effect.answers_row and rows:
            return dict(next(iter(rows.values())))
        if effect.items_arg is None:  # one row: its answer, not a list of one
            return results[0] if results else {"success": True, "updated": len(rows)}
        return results if effect.op == "add" else {"success": True, "updated": len(rows)}

    return run


@COMPILERS.register("dump")
def _dump(effect: DumpEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    schema = spec.state_schema
    entities = {member: schema[e] for member, e in effect.members.items() if e in schema}
    primary = schema[effect.primary] if effect.primary is not None and effect.primary in schema else None
    text_fields = [f for f, s in primary.fields.items() if s.get("type") in ("string", "array")] if primary else []
    cast = key_caster(primary) if primary else (lambda v: v)
    generated = {  # entities whose key the environment makes up: the API never shows it
        b.effect.entity
        for b in spec.behaviours
        if isinstance(b.effect, CreateManyEffect)
        and not b.effect.minted
        and _hidden_key(schema[b.effect.entity], b.effect.fields)
    }

    def selected(ctx: CallContext, args: JSON) -> set[Any] | None:
        if primary is None:
            return None
        rows = list(ctx.store.rows(primary.name))
        if effect.search_arg and isinstance(args.get(effect.search_arg), str):
            needle = args[effect.search_arg].casefold()
            return {r[primary.key] for r in rows if any(_contains(r.get(f), needle) for f in text_fields)}
        if effect.keys_arg:
            wanted = {cast(v) for v in _items(args, effect.keys_arg)}
            return {r[primary.key] for r in rows if r[primary.key] in wanted}
        return None

    def run(ctx: CallContext, args: JSON) -> JSON:
        keys = selected(ctx, args)
        out: JSON = {}
        for member, entity in entities.items():
            rows = list(ctx.store.rows(entity.name))
            if keys is not None and primary is not None:
                if entity.name == primary.name:
                    rows = [r for r in rows if r[entity.key] in keys]
                else:
                    links = effect.links.get(entity.name, ())
                    rows = [r for r in rows if links and all(r.get(f) in keys for f in links)]
            hidden = entity.name in generated and entity.key not in _declared(tool, member)
            out[member] = [_visible(r, entity, hidden) for r in rows]
        return out

    return run


def _declared(tool: ToolSpec, member: str) -> set[str]:
    props = ((tool.output_schema or {}).get("properties") or {}).get(member) or {}
    items = props.get("items") if isinstance(props, dict) else None
    return set((items or {}).get("properties") or {}) if isinstance(items, dict) else set()


def _contains(value: Any, needle: str) -> bool:
    if isinstance(value, str):
        return needle in value.casefold()
    if isinstance(value, list):
        return any(isinstance(v, str) and needle in v.casefold() for v in value)
    return False


__all__: list[str] = []

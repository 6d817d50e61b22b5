"""Records whose fields are whatever an object argument holds, and writes that pick their rows by
conditions rather than by a key.

An SQL table behind ``create_record(table, data)``, ``read_records(table, conditions)``,
``update_records(table, data, conditions)`` and ``delete_records(table, conditions)``, or a
document store's ``insert_one(document)``, ``find(filter)``, ``update_many(filter, update)``: the
input schemas say it alone. A create's object argument that declares no members is the record
itself when the entity's lists or keyless writes also take such an object: its members become the
row's own fields (``CreateEffect.spread``). Any other object argument of that kind on a list, an
update or a delete of the entity is a condition, member by member (``Filter(op="members")``); an
update or delete that names no row by its key changes or removes every row the conditions, and
the arguments named after the entity's fields, keep (``WhereEffect``) — where it refused as
``unsupported`` before.
"""

from __future__ import annotations

from typing import Any

from envfactory.ir.effect import Behaviour, CreateEffect, FallbackEffect, Filter, ListEffect, WhereEffect
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import Entity, StateSchema
from envfactory.ir.tool import ToolSpec
from envfactory.synth.naming import matching_field

JSON = dict[str, Any]


def open_object(schema: Any) -> bool:
    """An object whose members nobody declared (``{"type": "object", "additionalProperties": ...}``),
    alone or as an alternative of ``anyOf``/``oneOf`` (``item_json: object | string | null``)."""
    if not isinstance(schema, dict):
        return False
    if any(open_object(alt) for key in ("anyOf", "oneOf") for alt in schema.get(key) or ()):
        return True
    return (schema.get("type") == "object" or (isinstance(schema.get("type"), list) and "object" in schema["type"])) \
        and not schema.get("properties") and schema.get("additionalProperties") is not False  # fmt: skip


def _open_args(tool: ToolSpec) -> list[str]:
    return [a for a, s in tool.properties.items() if open_object(s)]


def rows_by_condition(tools: list[ToolSpec], schema: StateSchema, behaviours: list[Behaviour],
                      kinds: dict[str, str]) -> tuple[StateSchema, list[Behaviour]]:  # fmt: skip
    """The entities whose records are an object argument's members, with the tools that read,
    change and remove them by conditions (``kinds``: each tool's intent, ``update``, ``delete``...)."""
    by_name = {t.name: t for t in tools}
    opened = {t.name: _open_args(t) for t in tools}  # read once: this runs on every synthesis
    if not any(opened.values()):
        return schema, behaviours
    out = {b.tool: b for b in behaviours}
    entities = {e.name: e for e in schema.entities}
    for entity in schema.entities:
        spread = _spread(entity, behaviours, by_name, opened, kinds)
        if spread is None:
            continue
        create, arg = spread
        dropped = set()
        listed = {a for b in behaviours if isinstance(b.effect, ListEffect) and b.effect.entity == entity.name
                  for a in opened.get(b.tool, ())}  # fmt: skip
        for b in behaviours:
            tool = by_name.get(b.tool)
            if tool is None or (b.tool not in entity.sources and getattr(b.effect, "entity", None) != entity.name):
                continue
            made = _rewritten(b, tool, opened[b.tool], entity, arg, kinds.get(b.tool, ""), listed)
            if made is not None:
                out[b.tool] = made
                dropped |= set(opened[b.tool])
        effect = create.effect
        assert isinstance(effect, CreateEffect)
        dropped |= {effect.args.get(arg, arg)}
        args = {a: f for a, f in effect.args.items() if a != arg}
        out[create.tool] = create.model_copy(update={
            "effect": effect.model_copy(update={"args": args, "spread": arg}),
            "notes": (*create.notes, f"the members of {arg!r} are the {entity.name}'s own fields, whatever they are"),
        })  # fmt: skip
        kept = {f: s for f, s in entity.fields.items() if f == entity.key or f not in dropped}
        entities[entity.name] = entity.model_copy(update={
            "fields": kept, "required": tuple(f for f in entity.required if f in kept),
        })  # fmt: skip
    if all(out[b.tool] is b for b in behaviours):
        return schema, behaviours
    return StateSchema(entities=tuple(entities.values())), [out[b.tool] for b in behaviours]


def _spread(entity: Entity, behaviours: list[Behaviour], tools: dict[str, ToolSpec], opened: dict[str, list[str]],
            kinds: dict[str, str]) -> tuple[Behaviour, str] | None:  # fmt: skip
    """The create whose one object argument of undeclared members is the record, and that argument —
    when a list or a keyless update or delete of the entity also takes such an object (else it is
    only a free-form field, a record's ``metadata``)."""
    creates = [b for b in behaviours if isinstance(b.effect, CreateEffect) and b.effect.entity == entity.name
               and b.tool in tools]  # fmt: skip
    for create in creates:
        free = opened[create.tool]
        if len(free) != 1 or _beside_declared(tools[create.tool], free[0]):
            continue
        if any(b is not create and opened.get(b.tool) and _selects(b, entity, kinds) for b in behaviours):
            return create, free[0]
    return None


def _beside_declared(tool: ToolSpec, arg: str) -> bool:
    """Whether a route's free object is one member of a request body that declares others (a
    channel's ``params`` beside its ``address`` and ``expiration``): a field of the record, not it."""
    http = tool.source.http
    return http is not None and any(where == "body" for a, where in http.params.items() if a != arg)


def _selects(b: Behaviour, entity: Entity, kinds: dict[str, str]) -> bool:
    """Whether a tool reads the entity's rows, or changes or removes them without naming one by its key."""
    if isinstance(b.effect, ListEffect):
        return b.effect.entity == entity.name
    keyless = isinstance(b.effect, FallbackEffect) and kinds.get(b.tool) in ("update", "delete")
    return keyless and b.tool in entity.sources


def _rewritten(b: Behaviour, tool: ToolSpec, opened: list[str], entity: Entity, record: str, kind: str,
               listed: set[str]) -> Behaviour | None:  # fmt: skip
    """A list of the entity filtering by its condition objects too; a keyless update or delete as
    a write to every row the conditions keep. An update writes the record's own argument where it
    takes it, else the one of its two free objects that no list takes as a condition (``listed``):
    ``update_many(filter, update)``; ``opened``: the tool's free objects."""
    conditions = [a for a in opened if a != record]
    if isinstance(b.effect, ListEffect) and conditions:
        kept = tuple(f for f in b.effect.filters if f.arg not in conditions)
        added = tuple(Filter(arg=a, op="members") for a in conditions)
        note = f"keeps the {entity.name}s holding every member of {', '.join(map(repr, conditions))}"
        return b.model_copy(update={"effect": b.effect.model_copy(update={"filters": (*kept, *added)}),
                                    "notes": (*b.notes, note)})  # fmt: skip
    if not isinstance(b.effect, FallbackEffect) or kind not in ("update", "delete"):
        return None
    written: str | None = None
    if kind == "update":
        if record in opened:
            written = record
        elif len(opened) == 2 and len(unlisted := [a for a in opened if a not in listed]) == 1:
            written = unlisted[0]
        else:
            return None
        conditions = [a for a in opened if a != written]
    if not conditions:
        return None
    scope = tuple(Filter(arg=a, field=f) for a in tool.properties if a not in opened
                  and primary_type(tool.properties[a]) in ("string", "integer", "number")
                  and (f := matching_field([x for x in entity.fields if x != entity.key], a, entity.name)))  # fmt: skip
    filters = (*scope, *(Filter(arg=a, op="members") for a in conditions))
    effect = WhereEffect(entity=entity.name, filters=filters, delete=kind == "delete", set_arg=written)
    what = f"writes {written!r} onto" if written else "removes"
    note = f"{what} every {entity.name} holding each member of {', '.join(map(repr, conditions))}; answers how many"
    return Behaviour(tool=b.tool, effect=effect, prior="plausible", notes=(note,))


__all__ = ["open_object", "rows_by_condition"]

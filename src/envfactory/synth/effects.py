"""Effect inference: one Behaviour per tool, from its intent and the inferred state schema.

Every builder returns a Behaviour whose ``notes`` say what was guessed; fidelity is ``high``
when every argument found a meaning, ``medium`` when some were ignored, ``low`` for the
schema-faithful fallback used when no semantics could be inferred.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Literal

from envfactory.ir.effect import (
    ActionEffect,
    AdjustEffect,
    Behaviour,
    CreateEffect,
    DeleteEffect,
    DeleteManyEffect,
    FallbackEffect,
    Filter,
    ListEffect,
    Paging,
    ReadEffect,
    TransferEffect,
    UpdateEffect,
)
from envfactory.ir.jsonschema import declares_one_record, enum_values, primary_type, value_list_member
from envfactory.ir.state import Entity, StateSchema
from envfactory.ir.tool import ToolSet, ToolSpec
from envfactory.registry import Registry
from envfactory.synth.entities import PAGING_ARGS, PATCH_ARGS, wraps_entity
from envfactory.synth.handles import either_parts
from envfactory.synth.intents import QUALIFIER_VALUES, Intent, title_noun
from envfactory.synth.lookups import Lookup, lookup_by
from envfactory.synth.naming import (
    credential,
    id_stem,
    matching_field,
    names_handle,
    plural,
    role_of,
    same_field,
    tokens,
)
from envfactory.synth.statuses import said_rule, said_transition
from envfactory.synth.transitions import STATUS_FIELDS, transition_for

JSON = dict[str, Any]
Builder = Callable[[Intent, Entity, StateSchema], Behaviour]
BUILDERS: Registry[Builder] = Registry("effect builder")
SEARCH_ARGS = {
    "q",
    "query",
    "search",
    "keyword",
    "keywords",
    "text",
    "term",
    "terms",
    "criteria",
    "contains",
}
AMOUNT_ARGS = ("amount", "quantity", "qty", "value", "sum", "total", "units")
BALANCE_FIELDS = (
    "balance",
    "available_balance",
    "funds",
    "amount",
    "quantity",
    "stock",
    "credits",
    "points",
)
# words an argument bounding a field is named with (``createdBefore``, ``min_price``): from below, from above
LOWER_WORDS = ("min", "from", "since", "after", "start", "gte", "ge", "lower", "earliest")
UPPER_WORDS = ("max", "to", "until", "before", "end", "lte", "le", "upper", "latest")


def infer_behaviour(intent: Intent, entity: Entity | None, schema: StateSchema) -> Behaviour:
    transfer = _transfer(intent, schema)
    if transfer is not None:
        return transfer
    if entity is None or intent.kind not in BUILDERS:
        why = "no entity could be inferred" if entity is None else f"unsupported kind {intent.kind!r}"
        hints = intent.tool.annotations  # ``readOnlyHint: false`` says it writes, whatever its verb
        writes = (
            (intent.kind in WRITE_KINDS and not hints.read_only) or hints.read_only is False or bool(hints.destructive)
        )
        return fallback(intent.tool.name, f"{why} (verb {intent.verb or '?'!r})", writes=writes)
    answer = intent.tool.output_schema or {}
    if intent.kind in ("read", "list") and answer.get("enum") and primary_type(answer) not in (None, "object", "array"):
        # ``ShouldBlock`` answers allow, voiceMail or block: a decision computed, no record of a row
        return fallback(intent.tool.name, f"answers one of {len(answer['enum'])} declared values, not a {entity.name}")
    behaviour = BUILDERS[intent.kind](intent, entity, schema)
    if intent.tool.annotations.read_only and behaviour.effect.kind in WRITE_KINDS:
        return _read_only(intent, entity, schema, behaviour.effect.kind)
    return behaviour


WRITE_KINDS = frozenset({"create", "update", "delete", "action", "transfer"})


def _read_only(intent: Intent, entity: Entity, schema: StateSchema, inferred: str) -> Behaviour:
    """A tool annotated read-only (MCP ``readOnlyHint``, HTTP GET) never writes, whatever its name
    suggests: it reads the row its key names, else lists."""
    kind = "read" if _key_arg(intent, entity) is not None else "list"
    behaviour = BUILDERS[kind](intent, entity, schema)
    note = f"annotated read-only, so a {kind} rather than the {inferred} its name suggests"
    return behaviour.model_copy(update={"notes": (*behaviour.notes, note)})


def fallback(tool: str, reason: str, *, writes: bool = False) -> Behaviour:
    notes = (reason, "refuses as unsupported rather than pretend a write") if writes else (reason,)
    return Behaviour(tool=tool, effect=FallbackEffect(reason=reason, writes=writes), prior="guess", notes=notes)


def fallbacks_name_rows(schema: StateSchema, behaviours: list[Behaviour], tools: ToolSet) -> list[Behaviour]:
    """A fallback's required argument that is an entity's key (``booking_id`` of a booking keyed by
    it) names a row: the tool is refused ``not_found`` when that row does not exist. A plain ``id``
    names no entity in particular, nor can any argument name an invented ``_id``."""
    out = []
    for b in behaviours:
        if not isinstance(b.effect, FallbackEffect) or b.tool not in tools.names:
            out.append(b)
            continue
        tool = tools[b.tool]
        # one of a few declared words (``direction: Average | From | To``) qualifies the call, it names no row
        needs = {arg: e.name for arg in tool.required for e in schema.entities
                 if e.key not in ("id", "_id") and same_field(arg, e.key) and _fits_key(tool.properties.get(arg), e)
                 and not (tool.properties.get(arg) or {}).get("enum")}  # fmt: skip
        if not needs:
            out.append(b)
            continue
        effect = b.effect.model_copy(update={"needs": needs})
        notes = (*b.notes, f"refuses a {', '.join(needs)} that names no row")
        out.append(b.model_copy(update={"effect": effect, "notes": notes}))
    return out


def _fits_key(schema: Any, entity: Entity) -> bool:
    kind = primary_type(schema) if isinstance(schema, dict) else None
    return kind in (None, "integer", "number") if entity.key_type == "integer" else kind in (None, "string")


def _grade(tool: ToolSpec, effect: Any, ignored: list[str], notes: list[str]) -> Behaviour:
    # who calls is the session's business; a header describes the call (a marketplace), not the records
    ignored = [a for a in ignored if not credential(a) and not tool.is_transport(a)]
    if ignored:
        notes = [*notes, f"arguments with no inferred meaning: {ignored}"]
    return Behaviour(tool=tool.name, effect=effect, prior="plausible" if ignored else "confident", notes=tuple(notes))


def _key_arg(intent: Intent, entity: Entity) -> str | None:
    """The argument naming the row: the route's (``/tasks/{task_id}``) — unless another argument is
    named after the entity's own key (``.../{task_id}/{map_index}`` of a task instance keyed by
    ``task_id``), or the route's is a qualifier, a few declared words that do not name the entity
    (``/urls/{list_type}``, ``crawled`` or ``errors``) —, else one named like the key or a handle."""
    props = intent.tool.properties
    qualifier = intent.key_arg if intent.key_arg in props and _qualifies(intent.key_arg, props, entity) else None
    if intent.key_arg and intent.key_arg in props and qualifier is None:
        own = next((a for a in props if a != intent.key_arg and entity.key != "id" and same_field(a, entity.key)), None)
        return intent.key_arg if own is None or same_field(intent.key_arg, entity.key) else own
    props = {a: v for a, v in props.items() if a != qualifier}
    for arg in props:
        if (same_field(arg, entity.key) and entity.key != "id") or same_field(arg, f"{entity.name}_id"):
            return arg
    if "id" in props and entity.key == "id":
        return "id"
    for arg in props:  # ``id_or_name``: the key, or a field that names the record as well (synth.handles)
        if primary_type(props[arg]) != "array" and either_parts(arg, entity) is not None:
            return arg
    for arg in props:  # ``task_ref``, ``order_uid``: the record's handle, whatever the word
        if primary_type(props[arg]) != "array" and names_handle(arg, entity.name):
            return arg
    required = intent.tool.required
    if len(required) == 1 and tokens(required[0])[-1:] in (("id",), ("key",), ("ref",), ("uid",)):
        return required[0]
    return None


def _qualifies(arg: str, props: JSON, entity: Entity) -> bool:
    """Whether a route's parameter declares a few words (an enum) and names neither the entity nor its key."""
    declared = enum_values(props.get(arg))
    named = same_field(arg, entity.key) or same_field(arg, entity.name) or same_field(arg, f"{entity.name}_id")
    return bool(declared) and len(declared) <= QUALIFIER_VALUES and not named


def _field_args(intent: Intent, entity: Entity, skip: set[str]) -> tuple[dict[str, str], list[str]]:
    mapped: dict[str, str] = {}
    ignored: list[str] = []
    parent_arg = intent.parent[0] if intent.parent else None
    for arg in intent.tool.properties:
        if arg in skip or intent.tool.is_transport(arg):
            continue
        field = matching_field(entity.fields, arg, entity.name)
        if arg == parent_arg and field in (None, entity.key):
            # the parent's parameter fills the field holding the parent, though it be named like the row's own key
            field = next((f for f, t in entity.refs.items() if t == intent.parent[1]), None)  # type: ignore[index]
        if field is None:
            ignored.append(arg)
        else:
            mapped[arg] = field
    return mapped, ignored


def own_kind(entity: Entity) -> tuple[str, ...]:
    """The fields referring to a record of the entity's own kind (a task's parent): not looked up
    until evidence says the real side does (``checked-refs``) — a child named under a parent's key
    the model does not mint yet is still made, and tells how the real side keys children."""
    return tuple(f for f, target in entity.refs.items() if target == entity.name)


@BUILDERS.register("create")
def _create(intent: Intent, entity: Entity, schema: StateSchema) -> Behaviour:
    mapped, ignored = _field_args(intent, entity, set())
    key_arg = next((a for a, f in mapped.items() if f == entity.key), None)
    http = intent.tool.source.http
    named = http is not None and intent.key_arg is not None and http.path.endswith(f"{{{intent.key_arg}}}")
    if key_arg is None and named and intent.key_arg in ignored and intent.key_arg in intent.tool.required:
        key_arg = intent.key_arg  # POST /baskets/{name}: the new basket is keyed by the name the caller gives
        mapped, ignored = {**mapped, key_arg: entity.key}, [a for a in ignored if a != key_arg]
    consumes = consumed_counters(entity, schema)
    body_arg, body = _patch(intent, entity, ignored)
    ignored = [a for a in ignored if a != body_arg]
    effect = CreateEffect(entity=entity.name, args=mapped, key_arg=key_arg, consumes=consumes,
                          body_arg=body_arg, body=body, unchecked=own_kind(entity))  # fmt: skip
    notes = (
        [f"creates a {entity.name}"]
        + ([f"takes its fields from {body_arg!r}"] if body_arg else [])
        + [
            f"takes {counter} of the {entity.refs[ref]} it refers to (its quantity, else one); refused when too few"
            for ref, counter in consumes.items()
        ]
    )
    return _grade(intent.tool, effect, ignored, notes)


# integer fields that count what is left to take (a seat, a unit of stock)
COUNTER_WORDS = (
    "seats_left", "seats_available", "available_seats", "seats", "stock", "in_stock", "remaining",
    "available", "quantity_available", "inventory", "slots", "spots", "tickets_left", "places",
)  # fmt: skip
RELEASING = frozenset({"cancelled", "canceled", "refunded", "returned", "released", "voided", "void"})


def consumed_counters(entity: Entity, schema: StateSchema) -> dict[str, str]:
    """For each reference of ``entity``: the one counter field on the referenced entity, if any."""
    out = {}
    for ref, target in entity.refs.items():
        if target not in schema or target == entity.name:
            continue
        fields = schema[target].fields
        counters = [f for f in COUNTER_WORDS if f in fields and primary_type(fields[f]) == "integer"]
        if len(counters) >= 1:
            out[ref] = counters[0]
    return out


def _patch(intent: Intent, entity: Entity, ignored: list[str]) -> tuple[str | None, dict[str, str]]:
    """An object argument (``updates``, ``changes``, ``NewBudget``...) whose members are the entity's
    fields: member -> field (the key too, for a create whose wrapper names the new row)."""
    for arg in ignored:
        schema = intent.tool.properties.get(arg) or {}
        wrapper = wraps_entity(arg, schema, entity.name, intent.kind)
        if not wrapper and (intent.kind != "update" or arg.lower() not in PATCH_ARGS
                            or primary_type(schema) not in ("object", None)):  # fmt: skip
            continue
        members = schema.get("properties") or {f: {} for f in entity.fields if f != entity.key}
        keep_key = intent.kind == "create"
        patch = {m: f for m in members for f in entity.fields if same_field(f, m) and (keep_key or f != entity.key)}
        if patch:
            return arg, patch
    return None, {}


def _keyed(kind: str) -> Builder:
    def build(intent: Intent, entity: Entity, schema: StateSchema) -> Behaviour:
        key_arg = _key_arg(intent, entity)
        if key_arg is None and kind == "read" and (found := _lookup(intent, entity)) is not None:
            return found
        if (
            key_arg is None
            and kind == "read"
            and not intent.tool.required
            and (member := value_list_member(intent.tool.output_schema))
        ):  # ``get_order_history()`` -> ``{order_history: [ids]}``: the keys of every row
            listed = listed_field(entity, intent.tool.output_schema)
            what = f"{listed!r} values" if listed else f"{entity.key}s"
            note = f"answers the {what} of every {entity.name} as {member!r}"
            return _grade(intent.tool, ListEffect(entity=entity.name, keys_as=member, listed=listed),
                          list(intent.tool.properties), [note])  # fmt: skip
        if key_arg is None and kind == "read" and intent.tool.required and all(map(credential, intent.tool.required)):
            # ``get_booking_history(access_token)``: who asks decides nothing here; every row answers
            return _grade(intent.tool, ListEffect(entity=entity.name), list(intent.tool.properties), [])
        if key_arg is None:
            return fallback(intent.tool.name, f"{kind} of {entity.name} but no argument holds its key",
                            writes=kind in WRITE_KINDS)  # fmt: skip
        if kind == "read" and primary_type(intent.tool.properties.get(key_arg)) == "array":
            # ``/Line/{ids}``, "a comma-separated list of line ids": the rows holding those keys
            ignored = [a for a in intent.tool.properties if a != key_arg]
            among = ListEffect(entity=entity.name, filters=(Filter(arg=key_arg, field=entity.key, op="in"),))
            return _grade(intent.tool, among, ignored, [f"answers the {plural(entity.name)} whose keys it is given"])
        if kind == "read":
            ignored = [a for a in intent.tool.properties if a != key_arg]
            return _grade(intent.tool, ReadEffect(entity=entity.name, key_arg=key_arg), ignored, [])
        if kind == "delete" and primary_type(intent.tool.properties.get(key_arg)) == "array":
            # ``DELETE /messages/{ID}``, a list of message ids: the rows holding those keys
            ignored = [a for a in intent.tool.properties if a != key_arg]
            those = DeleteManyEffect(entity=entity.name, items_arg=key_arg, by="key")
            return _grade(intent.tool, those, ignored, [f"deletes the {plural(entity.name)} whose keys it is given"])
        if kind == "delete":
            ignored = [a for a in intent.tool.properties if a != key_arg]
            # ``delete_message(receiver_id)``: a reference the rows hold picks the latest of them
            by = next((f for f in entity.refs if f != entity.key and same_field(f, key_arg)), None)
            if intent.parent and intent.parent[0] == key_arg:
                by = None
            notes = [f"deletes the latest {entity.name} whose {by} matches"] if by else []
            return _grade(intent.tool, DeleteEffect(entity=entity.name, key_arg=key_arg, by=by), ignored, notes)
        mapped, ignored = _field_args(intent, entity, {key_arg})
        patch_arg, patch = _patch(intent, entity, ignored)
        if patch_arg is not None:
            ignored = [a for a in ignored if a != patch_arg]
        when = _needed_states(intent, entity)
        effect = UpdateEffect(entity=entity.name, key_arg=key_arg, args=mapped, patch_arg=patch_arg, patch=patch,
                              when=when, unchecked=own_kind(entity))  # fmt: skip
        notes = [f"applies {patch_arg!r} field by field"] if patch_arg else []
        notes += [f"only while {f} is {' or '.join(v)}" for f, v in when.items()]
        return _grade(intent.tool, effect, ignored, notes)

    return build


BUILDERS.add("read", _keyed("read"))
BUILDERS.add("update", _keyed("update"))
BUILDERS.add("delete", _keyed("delete"))


def _lookup(intent: Intent, entity: Entity) -> Behaviour | None:
    """A read by what the thing holds rather than its key (``get_stock_info(symbol)``,
    ``get_user_id(user_name)``): the rows whose fields equal every required argument; one record
    answers the first, or ``not_found``."""
    required = [a for a in intent.tool.required if a in intent.tool.properties]
    filters = [f for a in required if (f := _filter(a, intent.tool.properties[a], intent, entity)) is not None]
    if not required or len(filters) != len(required) or any(f.op not in ("eq", "contains") for f in filters):
        return None
    exact = tuple(f.model_copy(update={"op": "eq"}) for f in filters)
    ignored = [a for a in intent.tool.properties if a not in required]
    return _grade(intent.tool, ListEffect(entity=entity.name, filters=exact), ignored,
                  [f"finds the {entity.name} by {', '.join(required)}"])  # fmt: skip


@BUILDERS.register("list")
def _list(intent: Intent, entity: Entity, schema: StateSchema) -> Behaviour:
    lookup = lookup_by(intent.tool, entity.key)
    if lookup is not None:
        return _finds(intent, entity, lookup)
    filters: list[Filter] = []
    paging: dict[str, Any] = {}
    ignored: list[str] = []
    for arg, arg_schema in intent.tool.properties.items():
        low = "".join(tokens(arg))
        if low in ("limit", "pagesize", "pagelength", "pagelimit", "perpage", "maxresults", "size", "count", "top",
                   "rows"):  # fmt: skip
            paging["limit_arg"] = arg
            default = arg_schema.get("default")
            paging["default_limit"] = default if isinstance(default, int) else None
        elif low in ("offset", "pageoffset", "skip", "start"):
            paging["offset_arg"] = arg
        elif low == "page":
            paging["page_arg"] = arg
        elif low in ("cursor", "pagetoken", "nexttoken"):
            paging["cursor_arg"] = arg
        elif arg.lower() in PAGING_ARGS or intent.tool.is_transport(arg):
            ignored.append(arg)
        else:
            flt = _filter(arg, arg_schema, intent, entity)
            filters.append(flt) if flt else ignored.append(arg)
    output = intent.tool.output_schema
    keys_as = value_list_member(output)
    listed = (keys_as if keys_as in entity.fields and keys_as != entity.key else listed_field(entity, output)) \
        if keys_as else bare_values(entity, output)  # fmt: skip
    # a function tool's parent must exist (a route's parent argument is checked by no probe yet: left as it was)
    parent = intent.parent if (intent.parent and intent.tool.source.http is None
                               and any(f.arg == intent.parent[0] for f in filters)) else None  # fmt: skip
    effect = ListEffect(entity=entity.name, filters=tuple(filters), paging=Paging(**paging), keys_as=keys_as,
                        listed=listed, needs=dict([parent]) if parent else {},
                        every=documents_item(intent.tool, entity))  # fmt: skip
    what = f"{listed!r} values" if listed else f"{entity.key}s"
    notes = [f"answers the {what} of the matching {plural(entity.name)} as {keys_as!r}"] if keys_as else []
    return _grade(intent.tool, effect, ignored, notes)


def documents_item(tool: ToolSpec, entity: Entity) -> bool:
    """Whether a function's answer, documented as one record, is the item of the list its name says
    it answers (``get_user_tickets`` documenting a ticket): it answers every matching record."""
    named = tokens(tool.name)
    return tool.source.http is None and declares_one_record(tool.output_schema) and plural(entity.name) in named


def listed_field(entity: Entity, output: JSON | None) -> str | None:
    """What a list of plain values names its rows by, when not their key: things keyed by a made-up
    id (``user_id``) and holding a name (a ``name``, ``title`` or ``username``, or a field named after
    the thing and described as its name: a user's ``user``, "User name of the user") are listed by
    name — unless the list says it holds ids. A natural key (a stock's ``symbol``) is listed itself."""
    if tokens(entity.key)[-1:] != ("id",) or re.search(r"\bids?\b|identifier", json.dumps(output or {}).lower()):
        return None
    for field, schema in entity.fields.items():
        words = tokens(field)
        said = str(schema.get("description") or "").lower() if isinstance(schema, dict) else ""
        if field != entity.key and (words[-1:] in (("name",), ("title",), ("username",))
                                    or (field == entity.name and "name" in said)):  # fmt: skip
            return field
    return None


def bare_values(entity: Entity, output: JSON | None) -> str | None:
    """The field an answer that is only a list of plain values lists (``ImportContentDigestList``:
    texts described as "String digest of an uploaded content"): the field of the entity its items'
    description or title names, else the key; None where the answer is no such list."""
    items = (output or {}).get("items") if primary_type(output) == "array" else None
    if not isinstance(items, dict) or primary_type(items) not in ("string", "integer", "number"):
        return None
    said = set(tokens(f"{items.get('title') or ''} {items.get('description') or ''}"))
    named = [f for f in entity.fields if f != entity.key and tokens(f) and set(tokens(f)) <= said
             and primary_type(entity.fields[f]) == primary_type(items)]  # fmt: skip
    return named[0] if len(named) == 1 else entity.key


def _finds(intent: Intent, entity: Entity, lookup: Lookup) -> Behaviour:
    """The one row whose fields equal the arguments a person knows (the fields are added to the
    entity where nothing declared them: :func:`envfactory.synth.entities.fields_follow_lookups`)."""
    props = intent.tool.properties
    filters = []
    for arg in lookup.args:
        found = _filter(arg, props.get(arg) or {}, intent, entity)
        filters.append(found if found is not None and found.op == "eq" else Filter(arg=arg, field=arg, op="eq"))
    effect = ListEffect(entity=entity.name, filters=tuple(filters), finds=lookup.finds)
    what = f"the {entity.key} of the {entity.name}" if lookup.finds == "key" else f"the {entity.name}"
    said = f"finds {what} whose {' and '.join(f.field or f.arg for f in filters)} match; none is not_found"
    ignored = [a for a in props if a not in lookup.args]
    return _grade(intent.tool, effect, ignored, [said])


def _filter(arg: str, arg_schema: JSON, intent: Intent, entity: Entity) -> Filter | None:
    if intent.parent and arg == intent.parent[0]:
        field = next((f for f, t in entity.refs.items() if t == intent.parent[1]), None)
        if field is None:
            return None
        listed = primary_type(entity.fields.get(field)) == "array"  # a download's ``DocumentId: [...]`` holds it
        return Filter(arg=arg, field=field, op="any" if listed else "eq")
    if arg.lower() in SEARCH_ARGS:
        return Filter(arg=arg, op="search")
    is_list = primary_type(arg_schema) == "array"
    fields = [(f, s) for f, s in entity.fields.items() if not f == "_id" == entity.key]  # an invented key: unnamed
    for field, field_schema in fields:  # a single value: the field of its very name before a list of its plural
        if same_field(field, arg) and primary_type(field_schema) == "object" and _shape(arg_schema) != "plain":
            return None  # ``properties: [names]`` beside a ``properties`` object: a projection, not a filter
        if same_field(field, arg) and not is_list and _meet(arg_schema, field_schema):
            return Filter(arg=arg, field=field, op="any" if primary_type(field_schema) == "array" else "eq")
    # a single value the thing's name prefixes to a field: an airport's ``airport_iata`` is its ``iata_code``
    named = None if is_list else matching_field([f for f, _ in fields], arg, entity.name)
    if named is not None and _meet(arg_schema, entity.fields[named]):
        return Filter(arg=arg, field=named, op="any" if primary_type(entity.fields[named]) == "array" else "eq")
    for field, field_schema in fields:  # a list: whichever field comes first
        field_is_list = primary_type(field_schema) == "array"
        if is_list and same_field(field, arg) and _meet(arg_schema, field_schema):
            return Filter(arg=arg, field=field, op="any" if field_is_list else "in")
        if is_list and same_field(plural(field), arg) and _meet(arg_schema, field_schema):
            return Filter(arg=arg, field=field, op="any" if field_is_list else "in")
        if field_is_list and same_field(field, plural(arg)) and _meet(arg_schema, field_schema):
            return Filter(arg=arg, field=field, op="any")
    items = (arg_schema or {}).get("items") if isinstance(arg_schema, dict) else None
    words = enum_values(items) if isinstance(items, dict) else []
    keys = enum_values(entity.key_schema)
    if (
        is_list
        and entity.key != "_id"
        and (same_field(arg, plural(entity.name)) or same_field(arg, entity.name) or names_handle(arg, entity.name))
        and (not words or set(map(str, words)) <= set(map(str, keys)))  # ``flows: [elec_usage, ...]``: parts, not keys
    ):
        return Filter(arg=arg, field=entity.key, op="in")  # ``stocks: [symbols]``: the rows those keys name
    toks = tokens(arg)
    if len(toks) > 1:
        ranges: tuple[tuple[Any, Literal["gte", "lte"]], ...] = ((LOWER_WORDS, "gte"), (UPPER_WORDS, "lte"))
        for bound, op in ranges:
            for word, rest in ((toks[-1], toks[:-1]), (toks[0], toks[1:])):
                field = next((f for f in entity.fields if same_field(f, "_".join(rest))), None)
                if word in bound and field:
                    return Filter(arg=arg, field=field, op=op)
    if primary_type(arg_schema) == "string" and toks and toks[-1] in ("name", "title"):
        field = next((f for f in entity.fields if tokens(f)[-1:] == toks[-1:]), None)
        if field:
            return Filter(arg=arg, field=field, op="contains")
    return None


def _shape(schema: Any) -> str | None:
    """What a value of ``schema`` holds, read as its items where it is a list: ``plain`` values,
    lists (``array``) or records (``object``); None where its type is not declared."""
    kind = primary_type(schema) if isinstance(schema, dict) else None
    if kind == "array":
        kind = primary_type(schema.get("items")) if isinstance(schema.get("items"), dict) else None
    return None if kind is None else kind if kind in ("array", "object") else "plain"


def _meet(arg_schema: JSON, field_schema: Any) -> bool:
    """Whether an argument's values can equal a field's: a point given as ``"51.1,13.4"`` never equals
    a field's ``[13.4, 51.1]``. A side whose type is not declared meets anything, and a plain value
    meets a list of records, which it names by one of their values (a tag ``"urgent"`` among
    ``tags: [{"name": "urgent"}]``)."""
    sides = _shape(arg_schema), _shape(field_schema)
    records = sides == ("plain", "object") and primary_type(field_schema) == "array"
    return None in sides or sides[0] == sides[1] or records


DEPOSIT_VERBS = {"top_up", "topup", "deposit", "credit", "recharge", "refill", "add_funds", "fund", "load"}
WITHDRAW_VERBS = {"withdraw", "charge", "debit", "spend", "deduct"}


def _adjust(intent: Intent, entity: Entity, key_arg: str) -> Behaviour | None:
    """top_up / deposit / withdraw one row's balance by an amount argument."""
    verb = intent.verb.lower()
    amount = next((a for a in intent.tool.properties if a.lower() in AMOUNT_ARGS), None)
    field = next((f for f in BALANCE_FIELDS if f in entity.fields), None)
    if verb not in DEPOSIT_VERBS | WITHDRAW_VERBS or amount is None or field is None:
        return None
    sign: Literal[1, -1] = 1 if verb in DEPOSIT_VERBS else -1
    effect = AdjustEffect(entity=entity.name, key_arg=key_arg, field=field, amount_arg=amount, sign=sign)
    note = f"{'adds' if sign > 0 else 'takes'} {amount!r} {'to' if sign > 0 else 'from'} the {entity.name}'s {field}"
    return Behaviour(tool=intent.tool.name, effect=effect, prior="confident", notes=(note,))


@BUILDERS.register("action")
def _action(intent: Intent, entity: Entity, schema: StateSchema) -> Behaviour:
    key_arg = _key_arg(intent, entity)
    if key_arg is None:
        return fallback(intent.tool.name, f"{intent.verb} on {entity.name} but no argument holds its key", writes=True)
    adjusted = _adjust(intent, entity, key_arg)
    if adjusted is not None:
        return adjusted
    said = said_rule(intent.tool, entity.name)  # "cancel a pending order"; "the status becomes 'cancelled'"
    for field in _status_fields(entity):
        enum = entity.fields[field].get("enum")
        found = said_transition(said, enum, transition_for(intent.verb, enum)) if said else None
        found = found or transition_for(intent.verb, enum)
        if found is None:
            continue
        to, allowed, forbidden = found
        mapped, ignored = _field_args(intent, entity, {key_arg})
        mapped = {a: f for a, f in mapped.items() if f != field}
        releases = consumed_counters(entity, schema) if to.lower() in RELEASING else {}
        effect = ActionEffect(
            entity=entity.name,
            key_arg=key_arg,
            field=field,
            to=to,
            allowed_from=allowed,
            forbidden_from=forbidden,
            args=mapped,
            releases=releases,
        )
        notes = [f"sets {field} to {to!r}" + (f" from {list(allowed)}" if allowed else "")]
        notes += [f"gives back one {c} of the {entity.refs[r]} it refers to" for r, c in releases.items()]
        if not enum:
            notes.append(f"{field} has no enum; the new value {to!r} is a guess")
            ignored = [*ignored]  # keep the grade honest below
            return Behaviour(tool=intent.tool.name, effect=effect, prior="plausible", notes=tuple(notes))
        return _grade(intent.tool, effect, ignored, notes)
    return fallback(
        intent.tool.name, f"{intent.verb!r} on {entity.name}: no status field with a matching value", writes=True
    )


def _needed_states(intent: Intent, entity: Entity) -> dict[str, tuple[str, ...]]:
    """The states the prose says a change needs (``modify_pending_order_address``, "only while the
    ticket is open"), on the entity's first status field whose values hold them."""
    said = said_rule(intent.tool, entity.name)
    if not said.allowed and not said.forbidden:
        return {}
    for field in _status_fields(entity):
        enum = [str(v) for v in entity.fields[field].get("enum") or ()]
        found = said_transition(said, enum, ("", None, ())) if enum else None
        if found is not None and found[1]:
            return {field: found[1]}
        if found is not None and found[2]:
            return {field: tuple(v for v in enum if v not in found[2])}
    return {}


def _status_fields(entity: Entity) -> list[str]:
    named = [f for f in entity.fields if tokens(f)[-1:] and tokens(f)[-1] in STATUS_FIELDS]
    enums = [f for f, s in entity.fields.items() if s.get("enum") and f not in named]
    return [*named, *enums]


def _transfer(intent: Intent, schema: StateSchema) -> Behaviour | None:
    if intent.tool.annotations.read_only or intent.kind in ("read", "list"):
        return None
    props = intent.tool.properties
    by_target: dict[str, list[str]] = {}
    for arg in props:
        stem = id_stem(arg)
        if stem is not None and stem in schema and role_of(arg):
            by_target.setdefault(stem, []).append(arg)
    pair = next(((e, args) for e, args in by_target.items() if len(args) == 2), None)
    amount = next(
        (
            a
            for a in props
            if tokens(a)[-1:] and tokens(a)[-1] in AMOUNT_ARGS and primary_type(props[a]) in ("number", "integer")
        ),
        None,
    )
    if pair is None or amount is None:
        return None
    entity = schema[pair[0]]
    field = next((f for f in BALANCE_FIELDS if f in entity.fields), None)
    if field is None:
        return None
    src, dst = sorted(pair[1], key=lambda a: role_of(a) not in ("from", "source", "src", "sender", "origin"))
    record = None
    record_noun = title_noun(intent.item_schema)
    if record_noun is not None and record_noun in schema and record_noun != entity.name:
        rec_entity = schema[record_noun]
        mapped, _ = _field_args(intent, rec_entity, set())
        record = CreateEffect(entity=record_noun, args=mapped)
    status = next((f for f in _status_fields(entity) if entity.fields[f].get("enum")), None)
    usable = tuple(v for v in (entity.fields[status]["enum"] if status else ()) if v in ("active", "open"))
    effect = TransferEffect(
        entity=entity.name,
        from_arg=src,
        to_arg=dst,
        amount_arg=amount,
        field=field,
        record=record,
        status_field=status if usable else None,
        usable=usable,
    )
    notes = [f"moves {amount} of {entity.name}.{field} from {src} to {dst}"]
    if record:
        notes.append(f"records a {record.entity}")
    return Behaviour(tool=intent.tool.name, effect=effect, prior="confident", notes=tuple(notes))

"""State schema inference: merge tool intents into entities with keys, fields and references."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

from envfactory.ir.effect import WILDCARDS, Behaviour, ListEffect
from envfactory.ir.jsonschema import outcome_flags, primary_type
from envfactory.ir.state import Entity, StateSchema, names_key
from envfactory.ir.tool import ToolSet
from envfactory.patterns import FORMAT_SHAPES
from envfactory.runtime.validation import accepts
from envfactory.synth.intents import Intent
from envfactory.synth.naming import credential, id_stem, matching_field, names_handle, same_field, tokens

JSON = dict[str, Any]
ENTITY_KINDS = ("read", "list", "create", "update", "delete", "action")
PAGING_ARGS = {
    "limit",
    "offset",
    "page",
    "page_size",
    "pagesize",
    "page_length",
    "pagelength",
    "page_limit",
    "pagelimit",
    "page_offset",
    "pageoffset",
    "per_page",
    "perpage",
    "cursor",
    "page_token",
    "pagetoken",
    "next_token",
    "skip",
    "start",
    "rows",
    "max_results",
    "maxresults",
    "size",
    "count",
    "top",
    "sort",
    "order_by",
    "orderby",
    "sort_by",
}


# an update's object argument whose members are the entity's fields (applied one by one)
PATCH_ARGS = {"updates", "update", "changes", "patch", "fields", "attributes", "properties", "values", "data"}


def wraps_entity(arg: str, schema: Any, noun: str, kind: str) -> bool:
    """Is ``arg`` an object whose members are the entity's fields: a patch (``updates``) of an
    update, or the record itself wrapped in its name (AWS's ``Budget`` / ``NewBudget``, Rails'
    ``{"user": {...}}``)?"""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict) or not schema["properties"]:
        return False
    named = same_field(arg, noun) or same_field(arg, f"new_{noun}")
    return named or (kind == "update" and arg.lower() in PATCH_ARGS)


# the last word of a compound noun that names a view of a thing rather than a thing of its own
ASPECTS = frozenset({"balance", "history", "stat", "stats", "statistic", "info", "detail", "details", "summary",
                     "status", "count", "overview"})  # fmt: skip


def assign_entities(intents: list[Intent]) -> dict[str, str]:
    """tool name -> entity noun: the most specific candidate that another tool names first
    (``word_list`` for ``createWordList`` when ``getWordListByPermalink`` names it first, not the
    ``word`` many tools mention; ``word`` for ``getRelatedWords``), else the candidate named first
    most often (``ssh_key``, not the ``key`` that only trails other compounds). A compound ending in
    an aspect (``credit_card_balance``, ``order_history``) belongs to the thing another tool names."""
    entity_intents = [i for i in intents if i.kind in ENTITY_KINDS and i.nouns]
    first = Counter(i.nouns[0] for i in entity_intents)
    support = Counter(n for i in entity_intents for n in dict.fromkeys(i.nouns))
    out: dict[str, str] = {}
    for intent in entity_intents:
        shared = [n for n in intent.nouns if first[n] > 1]
        best = shared[0] if shared else max(intent.nouns, key=lambda n: (first[n], support[n], -intent.nouns.index(n)))
        out[intent.tool.name] = best
    named = set(out.values())
    for tool, noun in out.items():  # ``credit_card_balance`` is an aspect of the credit card another tool names
        base, _, aspect = noun.rpartition("_")
        if aspect in ASPECTS and base in named and base != noun:
            out[tool] = base
    return out


def infer_schema(intents: list[Intent], assigned: dict[str, str]) -> StateSchema:
    nouns = list(dict.fromkeys(assigned.values()))
    entities = [_build_entity(noun, [i for i in intents if assigned.get(i.tool.name) == noun]) for noun in nouns]
    entities = [_shaped_by_children(e, intents) for e in entities]
    names = {e.name for e in entities}
    natural = _natural_keys(entities)
    key_types = {e.name: {"type": e.key_type} for e in entities}  # a parent's id is held as its key is
    linked = []
    for entity in entities:
        parents = {
            arg: p
            for i in intents
            if assigned.get(i.tool.name) == entity.name and i.parent
            for arg, p in [i.parent]
            if p in names
        }
        # what the create and update tools say of a field they take ("User ID of the user to send the
        # message to") names its target where the record's own description does not
        said = [(arg, schema) for i in intents if assigned.get(i.tool.name) == entity.name
                and i.kind in ("create", "update") for arg, schema in i.tool.properties.items()]  # fmt: skip
        linked.append(_link(entity, names, parents, said, natural, key_types))
    return StateSchema(entities=tuple(linked))


def _shaped_by_children(entity: Entity, intents: list[Intent]) -> Entity:
    """A text key that says nothing of its shape takes the shape of the parameters that name it in
    the routes of the records under it (Storecove's ``/invoice_submissions/{guid}/evidence``, ``guid``
    a uuid, where no route reads a submission by it): keys those routes could never be given are
    records nothing can reach."""
    if entity.key_type != "string" or entity.key_schema:
        return entity
    shapes = [s for i in intents if i.parent and i.parent[1] == entity.name
              and isinstance(s := i.tool.properties.get(i.parent[0]), dict)]  # fmt: skip
    shape = next(({k: v for k, v in s.items() if k in KEY_CONSTRAINTS} for s in shapes
                  if primary_type(s) == "string" and any(k in s for k in KEY_CONSTRAINTS)), None)  # fmt: skip
    if not shape:
        return entity
    fields = {**entity.fields, entity.key: {**entity.fields.get(entity.key, {"type": "string"}), **shape}}
    return entity.model_copy(update={"key_schema": shape, "fields": fields})


_GENERIC_KEYS = frozenset({"id", "_id", "name", "title", "key", "path", "slug", "uuid", "code", "type"})


def _natural_keys(entities: list[Entity]) -> dict[str, str]:
    """Key field -> the entity it names, for the entities keyed by a natural key of their own
    (stocks by ``symbol``); where several share one, the one with most fields (the stock, not the
    watchlist of symbols); a tie names none."""
    by_key: dict[str, list[Entity]] = {}
    for e in entities:
        if e.key not in _GENERIC_KEYS and tokens(e.key)[-1:] not in (("id",), ("uuid",)):
            by_key.setdefault(e.key, []).append(e)
    out = {}
    for key, owners in by_key.items():
        ranked = sorted(owners, key=lambda e: -len(e.fields))
        if len(ranked) == 1 or len(ranked[0].fields) > len(ranked[1].fields):
            out[key] = ranked[0].name
    return out


def _build_entity(noun: str, intents: list[Intent]) -> Entity:
    fields: JSON = {}
    required: list[str] = []
    for intent in intents:  # returned objects describe the entity best
        item = intent.item_schema or {}
        flags = outcome_flags(item)  # ``sent_status``: whether the call succeeded, not part of the message
        for name, schema in (item.get("properties") or {}).items():
            if name in flags or (same_field(name, noun) and primary_type(schema) == "object"):
                continue  # ``{"ok": true, "task": {...}}``: the task itself, sketched, not a member of it
            if name not in fields:
                fields[name] = _clean(schema)
            elif _adds_values(fields[name], schema):  # a later answer that lists the values says more
                fields[name] = {**fields[name], "enum": [v for v in schema["enum"] if v is not None]}
        required += [r for r in item.get("required") or () if r not in required]
    for intent in intents:  # then what create/update accept
        if intent.kind not in ("create", "update"):
            continue
        for arg, schema in intent.tool.properties.items():
            named = matching_field(fields, arg, noun)
            if named is not None and arg != intent.key_arg and _untyped(fields[named]) and not _untyped(schema):
                # an answer read from prose names the field (``{id, title, priority, due}``); the
                # argument that writes it says what it holds (``one of "low", "med", "high"``)
                fields[named] = {**_clean(schema), **fields[named]}
            if (
                arg == intent.key_arg
                or names_handle(arg, noun)
                or arg.lower() in PAGING_ARGS
                or matching_field(fields, arg, noun)
                or credential(arg)
                or intent.tool.is_transport(arg)
            ):
                continue
            if wraps_entity(arg, schema, noun, intent.kind):
                for member, sub in schema["properties"].items():  # the wrapper's members are the entity's fields
                    if not matching_field(fields, member):
                        fields[member] = _clean(sub)
                continue
            if intent.kind == "update" and (arg == "id" or same_field(arg, f"{noun}_id")):
                continue  # the entity's own key, named after it
            fields[arg] = _clean(schema)  # a parent's id too: the row remembers what it belongs to
            if intent.kind == "create" and arg in intent.tool.required:
                required.append(arg)
    for intent in intents:  # ``resolve_ticket(ticket_id, resolution)``: what an action is told, the row keeps
        if intent.kind != "action":
            continue
        for arg, schema in intent.tool.properties.items():
            plain = isinstance(schema, dict) and primary_type(schema) in ("string", "number", "integer", "boolean")
            if (plain and arg != intent.key_arg and arg in intent.tool.required and not credential(arg)
                    and not names_handle(arg, noun)
                    and not intent.tool.is_transport(arg)
                    and not matching_field(fields, arg) and tokens(arg)[-1:] not in (("id",), ("ids",))):  # fmt: skip
                fields[arg] = _clean(schema)
    for intent in intents:  # ``get_user_id(user)``, "User name of the user": users hold the name it finds them by
        if intent.kind == "read" and intent.key_arg is None and len(intent.tool.required) == 1:
            arg = intent.tool.required[0]
            schema = intent.tool.properties.get(arg)
            if isinstance(schema, dict) and not matching_field(fields, arg) and _names_the(schema, noun):
                fields[arg] = _clean(schema)
    key_args = [i.key_arg for i in intents if i.key_arg]
    natural = _natural_key(intents, fields) if not key_args else None
    if natural is not None:  # ``get_stock_info(symbol)``: stocks are named by their symbol
        fields.setdefault(natural[0], _clean(natural[1]))
        key_args = [natural[0]]
    key = _key_field(noun, fields, key_args)
    if key not in fields:
        key_schema = next((i.tool.properties.get(i.key_arg) for i in intents if i.key_arg), None)
        fields = {key: _clean(key_schema or {"type": "string"}), **fields}
    # ``order_id`` beside an order's ``id`` is the key under the name other answers give it (the
    # runtime answers the key there), not a second number
    fields = {key: fields[key], **{k: v for k, v in fields.items() if k != key and not names_key(k, noun, key)}}
    # the id parameters decide the key's type and shape: they are what validates a key passed back; those
    # naming the key field first (Gitea's ``/teams/{id}: integer``, not ``/repos/{o}/{r}/teams/{team}``: a name)
    keyed = [(i.key_arg, s) for i in intents if i.key_arg and isinstance(s := i.tool.properties.get(i.key_arg), dict)]
    own = [s for arg, s in keyed if matching_field((key,), arg, noun) == key]
    arg_schemas = own or [s for _, s in keyed]
    typed = [primary_type(s) for s in arg_schemas if primary_type(s) in ("integer", "number", "string")]
    key_type: Literal["integer", "string"] = (
        "integer" if (typed[0] if typed else primary_type(fields[key])) in ("integer", "number") else "string"
    )
    shape: JSON = {}
    if key_type == "string":
        for schema in (*arg_schemas, fields[key]):
            shape.update({k: v for k, v in schema.items() if k in KEY_CONSTRAINTS and k not in shape})
        fields[key] = {**{k: v for k, v in fields[key].items() if k not in KEY_CONSTRAINTS}, **shape}
        fields[key]["type"] = "string"
    else:
        fields[key] = {k: v for k, v in fields[key].items() if k not in ("format", "pattern")} | {"type": "integer"}
    for arg, schema in keyed:  # ``DELETE /projects/{id}/share/{group_id: integer}``: the share's group_id is a number
        named = matching_field(fields, arg, noun)
        if named not in (None, key) and primary_type(schema) == "integer" and _plain_text(fields[named]):
            fields[named] = {**fields[named], "type": "integer"}
    return Entity(
        name=noun,
        key=key,
        key_type=key_type,
        key_schema=shape,
        key_prefix=noun[:40],
        fields=fields,
        required=tuple(dict.fromkeys(r for r in required if r in fields)),
        sources=tuple(i.tool.name for i in intents),
    )


KEY_CONSTRAINTS = ("format", "pattern", "minLength", "maxLength", "enum")


def _plain_text(schema: JSON) -> bool:
    """A text field that says nothing of its shape (no format, pattern, enum or length)."""
    return primary_type(schema) == "string" and not any(k in schema for k in KEY_CONSTRAINTS)


def keys_follow_parameters(schema: StateSchema, behaviours: list[Behaviour], tools: ToolSet) -> StateSchema:
    """An entity whose every id parameter (``comicId: number``, ``{id}: integer``) takes a number
    gets integer keys: they are what validates a key passed back, whatever the record schema said.
    So does one whose parameters named after its key field disagree — ``{id}: integer`` on one
    route, ``{id}: string`` on the others, none asking a shape of the text (a format, a pattern):
    a number is the one key all of them take, the text ones as its digits."""
    params: dict[str, list[JSON]] = {}
    own: dict[str, list[JSON]] = {}
    passed: dict[str, list[JSON]] = {}  # parameters taking the key of a record another one refers to
    by_name = {t.name: t for t in tools.tools}
    for b in behaviours:
        entity = getattr(b.effect, "entity", None)
        if not isinstance(entity, str) or entity not in schema or b.tool not in by_name:
            continue
        key = schema[entity].key
        key_args = [getattr(b.effect, "key_arg", None)] + [  # a read by key, or a list filtered on the key
            f.arg for f in getattr(b.effect, "filters", ()) if f.field == key and f.op == "eq"
        ]
        for key_arg in filter(None, key_args):
            prop = by_name[b.tool].properties.get(key_arg) or {}
            params.setdefault(entity, []).append(prop)
            if matching_field((key,), key_arg, entity) == key or tokens(key_arg) == ("pk",):  # a primary key
                own.setdefault(entity, []).append(prop)
        for f in getattr(b.effect, "filters", ()):  # ``decode(vin)`` finds specs by the car they refer to
            target = schema[entity].refs.get(f.field or "")
            if f.op == "eq" and target is not None and target in schema and target != entity:
                passed.setdefault(target, []).append(by_name[b.tool].properties.get(f.arg) or {})
    numeric = {e: _numbers_all_take(props, own.get(e, [])) for e, props in params.items()}
    for e in schema.entities:  # no id parameter: the records that refer to it say (NYT's ``list_id: integer``)
        for field, target in e.refs.items():
            if target in schema and target not in numeric and primary_type(e.fields.get(field) or {}) == "integer":
                numeric[target] = True
    changed = [e for e in schema.entities if e.key_type == "string" and numeric.get(e.name) and e.key != "_id"]
    updated = {}
    for e in changed:
        key_field = {k: v for k, v in e.fields.get(e.key, {}).items() if k not in KEY_CONSTRAINTS} | {"type": "integer"}
        fields = {**e.fields, e.key: key_field}
        updated[e.name] = e.model_copy(update={"key_type": "integer", "key_schema": {}, "fields": fields})
    for name, shape in _shapes_named_elsewhere(schema, tools).items():
        e = updated.get(name, schema[name])
        if e.key_type == "string" and not e.key_schema and e.key != "_id":
            fields = {**e.fields, e.key: {**e.fields.get(e.key, {}), **shape}}
            updated[name] = e.model_copy(update={"key_schema": shape, "fields": fields})
    # ``crmCheck(vin: minLength 10)`` reads cars: their keys are that long
    for name in dict.fromkeys([*params, *passed]):
        e, props = updated.get(name, schema[name]), params.get(name, []) + passed.get(name, [])
        lengths = _lengths_all_take(e.key_schema, props) if e.key_type == "string" and e.key != "_id" else {}
        if lengths and not _length_fits(str(e.format_key(1)), lengths):  # keys made as they are would be refused
            fields = {**e.fields, e.key: {**e.fields.get(e.key, {}), **lengths}}
            updated[name] = e.model_copy(update={"key_schema": {**e.key_schema, **lengths}, "fields": fields})
    if not updated:
        return schema
    return StateSchema(entities=tuple(updated.get(e.name, e) for e in schema.entities))


def _numbers_all_take(params: list[JSON], own: list[JSON]) -> bool:
    """Whether a number is a key every id parameter takes: all take numbers, or those named after
    the key field disagree and none of their text ones asks a shape of it."""
    if all(primary_type(p) in ("integer", "number") for p in params):
        return True
    numbers = [p for p in own if primary_type(p) in ("integer", "number")]
    texts = [p for p in own if primary_type(p) not in ("integer", "number")]
    return bool(numbers) and all(primary_type(p) == "string" and not set(p) & set(KEY_CONSTRAINTS) for p in texts)


def refs_fit_keys(schema: StateSchema, behaviours: Sequence[Behaviour] = (), tools: ToolSet | None = None
                  ) -> StateSchema:  # fmt: skip
    """Drop references whose field cannot hold the target's key: NYT's ``overview.list_id`` is an
    integer while lists are keyed by ``list_name``; TheTVDB's ``languageId`` an integer while its
    language route takes a string id; Box's ``templateKey`` one declared word
    (``securityClassification-6VMVochwUWo``) while templates are keyed by other words. A value
    there names nothing the environment holds. So where a tool writing the field takes it in an
    argument that cannot hold one (Reverb's conversation ``listing_id: integer``, listings keyed
    by text): every write would be refused for naming nothing."""
    written: dict[tuple[str, str], list[JSON]] = {}
    by_name = {t.name: t for t in tools.tools} if tools is not None else {}
    for b in behaviours:
        entity, args = getattr(b.effect, "entity", None), getattr(b.effect, "args", None)
        if isinstance(entity, str) and isinstance(args, dict) and b.tool in by_name:
            for arg, field in args.items():
                written.setdefault((entity, field), []).append(by_name[b.tool].properties.get(arg) or {})
    updated = []
    for e in schema.entities:
        held = {f: [e.fields.get(f) or {}, *written.get((e.name, f), ())] for f in e.refs}
        refs = {f: t for f, t in e.refs.items() if t not in schema or all(_holds_keys(p, schema[t]) for p in held[f])}
        updated.append(e.model_copy(update={"refs": refs}) if refs != e.refs else e)
    return StateSchema(entities=tuple(updated))


def _holds_keys(field: JSON, target: Entity) -> bool:
    """Whether a field can hold a key of ``target``: not a number where its keys are free text, not an
    object, and not one of a few declared words its keys are not drawn from."""
    keys = target.key_schema.get("enum")
    if target.key_type == "string" and not keys and primary_type(field) in ("integer", "number"):
        return False
    if primary_type(field) == "object":  # ``external_ids: {provider: id}``: a map of ids names no one record
        return False
    shaped = {"type": "string", "format": field["format"]} if isinstance(field.get("format"), str) else None
    if target.key_type == "string" and shaped and not accepts(shaped, target.format_key(1)):
        return False  # a store's ``email: format email`` holds no ``email_0006`` key
    words = field.get("enum")
    return not (isinstance(words, list) and words and all(isinstance(w, str) for w in words)
                and not set(words) <= set(keys if isinstance(keys, list) else ()))  # fmt: skip


def fields_follow_lookups(schema: StateSchema, behaviours: list[Behaviour], tools: ToolSet) -> StateSchema:
    """A look-up's arguments are fields of the records it finds (``find_user_id_by_email(email)``:
    users have an ``email``), typed as the arguments are, where nothing declared them; so seeded
    records can be found by what a person knows."""
    added: dict[str, JSON] = {}
    by_name = {t.name: t for t in tools.tools}
    for b in behaviours:
        effect = b.effect
        if not isinstance(effect, ListEffect) or effect.finds is None or effect.entity not in schema:
            continue
        fields = schema[effect.entity].fields
        for f in effect.filters:
            if f.field and f.field not in fields:
                prop = by_name[b.tool].properties.get(f.arg) if b.tool in by_name else None
                typed = {k: v for k, v in (prop or {}).items() if k in ("type", "format", "description", "enum")}
                added.setdefault(effect.entity, {}).setdefault(f.field, typed or {"type": "string"})
    if not added:
        return schema
    grown = [e.model_copy(update={"fields": {**e.fields, **added[e.name]}}) if e.name in added else e
             for e in schema.entities]  # fmt: skip
    return StateSchema(entities=tuple(grown))


def _formatted_as(members: list[Any], field: JSON) -> bool:
    """Whether some of a filter's words have the field's format (a ``due_date`` filtered by ``valid`` or
    ``exceeded``, "records in future" or past, holds dates, not those words); true where no known
    format says."""
    shape = FORMAT_SHAPES.get(str(field.get("format")))
    return shape is None or any(isinstance(m, str) and shape.match(m) for m in members)


def fields_follow_filters(schema: StateSchema, behaviours: list[Behaviour], tools: ToolSet) -> StateSchema:
    """A field an equality filter compares with an enum parameter takes that enum (NYT's
    ``/{section}``: articles are in one of the sections the parameter allows; where several
    parameters or the field list values, those all of them accept), and the text lengths
    such parameters ask, so seeded rows can be found by the values the tool accepts."""
    enums: dict[tuple[str, str], list[Any]] = {}
    offered: dict[tuple[str, str], list[list[Any]]] = {}
    lengths: dict[tuple[str, str], list[JSON]] = {}
    by_name = {t.name: t for t in tools.tools}
    for b in behaviours:
        if not isinstance(b.effect, ListEffect) or b.tool not in by_name or b.effect.entity not in schema:
            continue
        for f in b.effect.filters:
            prop = by_name[b.tool].properties.get(f.arg) or {}
            if f.op == "eq" and f.field and f.field != schema[b.effect.entity].key:
                lengths.setdefault((b.effect.entity, f.field), []).append(prop)
            members = prop.get("enum") if f.op == "eq" else None
            if isinstance(members, list):  # ``all`` beside the statuses is no status a row holds
                members = [m for m in members if not (isinstance(m, str) and m.lower() in WILDCARDS)]
            field = schema[b.effect.entity].fields.get(f.field or "")
            if (
                isinstance(members, list)
                and members
                and isinstance(field, dict)
                and primary_type(field) in (None, primary_type(prop))
                and f.field != schema[b.effect.entity].key
                and _formatted_as(members, field)
            ):
                offered.setdefault((b.effect.entity, f.field or ""), []).append(members)
    # the values every such parameter accepts, of those the field declares: getDailyStats's ``country``
    # (``us``, ``ca``, default ``us``) finds no dealer seeded in ``uk``; where they share none, the first's
    for at, lists in offered.items():
        own = schema[at[0]].fields[at[1]].get("enum")
        shared = [m for m in (own if isinstance(own, list) else lists[0]) if all(m in ms for ms in lists)]
        if shared and shared != own:
            enums[at] = shared
        elif not isinstance(own, list):
            enums[at] = lists[0]
    # ``decode(vin: minLength 17)`` finds specs by their vin: seeded vins are that long
    sized = {
        at: shape
        for at, props in lengths.items()
        if primary_type(field := schema[at[0]].fields.get(at[1]) or {}) == "string"
        and "enum" not in field
        and "pattern" not in field
        and (shape := _lengths_all_take(field, props))
    }
    if not enums and not sized:
        return schema
    updated = []
    for e in schema.entities:
        fields = {f: ({**v, "enum": enums[(e.name, f)]} if (e.name, f) in enums else v) for f, v in e.fields.items()}
        fields = {f: ({**v, **sized[(e.name, f)]} if (e.name, f) in sized else v) for f, v in fields.items()}
        updated.append(e.model_copy(update={"fields": fields}) if fields != e.fields else e)
    return StateSchema(entities=tuple(updated))


def _lengths_all_take(held: JSON, props: list[JSON]) -> JSON:
    """The text lengths every one of ``props`` accepts, where they ask more than ``held`` does:
    the longest ``minLength`` and the shortest ``maxLength`` (none where the two cross)."""
    texts = [p for p in props if primary_type(p) == "string"]
    low: int = held["minLength"] if isinstance(held.get("minLength"), int) else 0
    high: int | None = held["maxLength"] if isinstance(held.get("maxLength"), int) else None
    lows = [p["minLength"] for p in texts if isinstance(p.get("minLength"), int)]
    highs = [p["maxLength"] for p in texts if isinstance(p.get("maxLength"), int)]
    out: JSON = {}
    if lows and max(lows) > low:
        low = out["minLength"] = max(lows)
    if highs and (high is None or min(highs) < high):
        high = out["maxLength"] = min(highs)
    return {} if high is not None and high < low else out


def _length_fits(text: str, shape: JSON) -> bool:
    return shape.get("minLength", 0) <= len(text) <= shape.get("maxLength", len(text))


def _shapes_named_elsewhere(schema: StateSchema, tools: ToolSet) -> dict[str, JSON]:
    """Key shapes the API gives where another route or record names the entity: Resend's
    ``/emails/{email_id}/attachments`` declares ``email_id`` a uuid though ``/emails/{id}`` says
    nothing; an ``email`` key passed there (or held in a metric's ``domain_id``) must be one."""
    found: dict[str, JSON] = {}
    named = [(arg, prop) for tool in tools.tools for arg, prop in tool.properties.items()]
    named += [(f, prop) for e in schema.entities for f, prop in e.fields.items() if f in e.refs]  # records too
    for arg, prop in named:
        stem = id_stem(arg)
        if stem is None or stem not in schema or not isinstance(prop, dict) or primary_type(prop) != "string":
            continue
        shape = {k: v for k, v in prop.items() if k in ("format", "pattern")}
        if shape:
            found.setdefault(stem, shape)
    return found


NATURAL_KEYS = frozenset({"symbol", "ticker", "code", "slug", "handle", "username", "email", "isbn", "sku"})
# a name or title is a key only where two tools or more name the thing by it alone: people share names,
# but a project read, renamed and removed by ``name`` is named by it
NAMES = frozenset({"name", "title"})


def _natural_key(intents: list[Intent], fields: JSON) -> tuple[str, JSON] | None:
    """A keyless tool set's natural key: the one required argument, a symbol, code, slug or
    username, of a tool that reads or acts on one thing — or a name or title that two such tools
    take alone (``project_get(name)``, ``project_remove(name)``); never where the records carry an id."""
    if any(tokens(f)[-1:] == ("id",) for f in fields):
        return None
    named: dict[str, int] = {}
    for intent in intents:
        required = [a for a in intent.tool.required if a in intent.tool.properties]
        if intent.kind in ("read", "update", "delete", "action") and len(required) == 1:
            arg = required[0]
            schema = intent.tool.properties[arg]
            if primary_type(schema) != "string" or not tokens(arg):
                continue
            if tokens(arg)[-1] in NATURAL_KEYS:
                return arg, schema
            if tokens(arg)[-1] in NAMES and tokens(arg)[0] not in ("id", "new"):
                named[arg] = named.get(arg, 0) + 1
    two = next((a for a, n in named.items() if n >= 2), None)
    if two is None:
        return None
    return two, next(i.tool.properties[two] for i in intents if two in i.tool.properties)


def _key_field(noun: str, fields: JSON, key_args: list[str]) -> str:
    # addressed by ``{permalink}``, ``{username}``, ``{itemId}`` of ``ratingItemId``: that field is the key
    named = [matching_field(fields, a) or matching_field(fields, f"{noun}_{a}") for a in key_args]
    for arg, found in zip(key_args, named, strict=True):
        if found and (tokens(found)[-1:] != ("id",) or found != arg) and all(n == found for n in named):
            return found
    for candidate in ("id", f"{noun}_id", f"{noun}Id", "uuid"):
        if candidate in fields:
            return candidate
    for arg in key_args:
        found = matching_field(fields, arg)
        if found:
            return found
    for name in fields:  # ``card_id`` keys a ``credit_card``
        if tokens(name)[-1:] == ("id",) and id_stem(name) in (None, noun, noun.rsplit("_", 1)[-1]):
            return name
    # VictorOps' incidents are numbered (``incidentNumber``), AWS budgets named (``BudgetName``)
    return matching_field(fields, f"{noun}_number") or matching_field(fields, f"{noun}_name") or "id"


def _link(entity: Entity, names: set[str], parents: dict[str, str], said: Sequence[tuple[str, Any]] = (),
          natural: dict[str, str] | None = None, key_types: dict[str, JSON] | None = None) -> Entity:  # fmt: skip
    fields = dict(entity.fields)
    refs: dict[str, str] = {}
    for arg, parent in parents.items():
        if parent == entity.name:
            continue  # /ratings/{itemType}/{itemId}: a qualifier of the rating, not a parent rating
        field = matching_field(fields, arg) or (arg if id_stem(arg) == parent else f"{parent}_id")
        if field == entity.key and f"{parent}_id" != entity.key:
            # /hooks/{id}/tests: the ``id`` names the hook; a test has a key of its own and holds the hook's beside it
            field = matching_field(fields, f"{parent}_id") or f"{parent}_id"
        fields.setdefault(field, dict((key_types or {}).get(parent) or {"type": "string"}))
        refs[field] = parent
    for field in fields:
        stem = id_stem(field)
        if field != entity.key and stem in names and stem != entity.name:
            refs.setdefault(field, stem)
        elif field != entity.key and field not in refs and tokens(field)[-1:] == ("id",):
            # a record of its own kind where the field names another role ("Parent task ID" of a task)
            others = names if stem not in (None, entity.name) else names - {entity.name}
            named = _described_target(fields[field], others) or next(
                (t for arg, schema in said if same_field(arg, field) and (t := _described_target(schema, others))), None
            )
            if named is not None:  # ``receiver_id``: "User ID of the user to send the message to"
                refs[field] = named
        elif field != entity.key and field not in refs and (natural or {}).get(field, entity.name) != entity.name:
            refs[field] = (natural or {})[field]  # an order's ``symbol`` names a stock keyed by its symbol
    return entity.model_copy(update={"fields": fields, "refs": refs})


def _names_the(schema: JSON, noun: str) -> bool:
    """Whether a parameter's description says it is the thing's name ("User name of the user",
    "the name of the user", "the user's name")."""
    text, word = str(schema.get("description") or "").lower(), re.escape(noun.replace("_", " "))
    return primary_type(schema) == "string" and bool(
        re.search(rf"\b{word}\s*name\b|\bname of (?:the |a |an )?{word}\b|\b{word}'s name\b", text)
    )


def _described_target(schema: Any, names: set[str]) -> str | None:
    """The one entity a field's description says it holds the id of ("User ID of ...", "the ID of
    the booking"); None when it names none or several."""
    text = str(schema.get("description") or "").lower() if isinstance(schema, dict) else ""
    if not text:
        return None
    found = [n for n in names if re.search(rf"\b{re.escape(n.replace('_', ' '))}\s+id\b|\bid of (?:the |a |an )?"
                                           rf"{re.escape(n.replace('_', ' '))}\b", text)]  # fmt: skip
    return found[0] if len(found) == 1 else None


def _adds_values(known: JSON, other: Any) -> bool:
    """Whether ``other`` lists the values of a field ``known`` leaves open (an order's ``status`` is
    free text in ``cancel_order``'s answer and ``Open``/``Pending``/``Completed``/``Cancelled`` in
    ``get_order_details``'), with the same type; its ``null`` stays out (the field may not be nullable)."""
    listed = other.get("enum") if isinstance(other, dict) else None
    return (isinstance(listed, list) and any(v is not None for v in listed) and "enum" not in known
            and primary_type(other) == primary_type(known))  # fmt: skip


_TYPING = frozenset({"type", "enum", "const", "anyOf", "oneOf", "allOf", "format", "properties", "items", "pattern"})


def _untyped(schema: Any) -> bool:
    """A schema that says nothing of what its value holds (``{}``, a description alone)."""
    return isinstance(schema, dict) and not _TYPING & set(schema)


def _clean(schema: Any) -> JSON:
    if not isinstance(schema, dict):
        return {}
    return {k: v for k, v in schema.items() if k not in ("readOnly", "writeOnly", "title")}

"""Collection-shaped tool sets: batch tools over arrays, natural keys, list fields, dumps.

Many MCP servers and RPC-style APIs do not look like REST resources: ``create_entities`` takes an
array of objects, things are keyed by ``name``, ``add_observations`` appends to a list inside a
row, ``delete_entities`` takes an array of names, and ``read_graph`` / ``search_nodes`` /
``open_nodes`` answer several collections at once. ``plan_batches`` recognizes these shapes
before the per-resource inference runs, and returns the entities and behaviours for the tools it
understood; the rest go through the usual route.

The rules, in order (each needs the shape *and* the verb):

1. **create many** — a create verb and one required array of objects ``xs``: entity ``x`` with the
   items' fields; its key is the items' ``id``, else a natural key (``name``, ``title``, ``path``,
   ``key``, ``slug``), else a hidden generated id (then duplicates are items equal on every field).
2. **edit a list field** — an add/remove verb, one required array of objects each naming a row of
   an entity from rule 1 (``entityName``, or a field described as "the name of the entity") and
   holding an array of values, and a tool noun that is a list field of that entity (``observations``).
3. **delete many** — a delete verb and one required array: of keys (``entityNames``, ``ids``), or of
   objects of an entity from rule 1 (matched field by field). Rows referring to deleted ones go too.
4. **dump** — an object output whose array members are the plurals of entities from rule 1 (and
   at most one required argument: a search string or an array of keys of the first such entity).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from envfactory.ir.effect import Behaviour, CreateManyEffect, DeleteManyEffect, DumpEffect, EditListEffect
from envfactory.ir.jsonschema import data_path, primary_type
from envfactory.ir.state import SINGLETON_KEY, Entity, StateSchema, names_key
from envfactory.ir.tool import ToolSpec
from envfactory.synth.intents import name_verb
from envfactory.synth.naming import VERBS, matching_field, plural, same_field, singular, tokens
from envfactory.synth.transitions import TRANSITIONS

JSON = dict[str, Any]
NATURAL_KEYS = ("id", "name", "title", "path", "key", "slug")
SEARCH_ARGS = ("query", "q", "search", "text", "keyword", "term")
_KEY_WORDS = {"name", "id", "key", "title", "path", "slug"}
_ADD = {"add", "append", "attach", "insert", "push"}
_REMOVE = {"remove", "delete", "detach", "drop", "pop", "discard", "erase"}


@dataclass
class BatchPlan:
    entities: list[Entity] = field(default_factory=list)
    behaviours: dict[str, Behaviour] = field(default_factory=dict)


def plan_batches(tools: tuple[ToolSpec, ...] | list[ToolSpec]) -> BatchPlan:
    plan = BatchPlan()
    candidates = {tool.name: noun for tool in tools if (noun := _create_noun(tool))}
    for tool in tools:
        nouns = set(candidates.values()) - {candidates.get(tool.name)}
        found = _create_many(tool, candidates[tool.name], nouns) if tool.name in candidates else None
        if found is not None and found[0].name not in {e.name for e in plan.entities}:
            plan.entities.append(found[0])
            plan.behaviours[tool.name] = found[1]
    if not plan.entities:
        return plan
    links = _links(plan.entities)
    plan.entities = [e.model_copy(update={"refs": {**e.refs, **links.get(e.name, {})}}) for e in plan.entities]
    by_name = {e.name: e for e in plan.entities}
    for tool in tools:
        if tool.name in plan.behaviours:
            continue
        behaviour = _edit_list(tool, by_name) or _delete_many(tool, by_name, links) or _dump(tool, by_name, links)
        if behaviour is not None:
            plan.behaviours[tool.name] = behaviour
    return plan


def records_made_in_batches(tools: list[ToolSpec], schema: StateSchema, behaviours: list[Behaviour]) -> list[Behaviour]:
    """Rule 1 for a resource API, once its entities are known: a create whose whole request body
    is one list of records, every member of them a field of one entity (Keycloak's ``POST
    /{realm}/clients/{id}/protocol-mappers/add-models`` taking ``[ProtocolMapperRepresentation]``),
    makes one record of that entity per item; so does a list of plain values named after a field
    (Gitea's ``emails: [text]``: one e-mail record per address); its route's other parameters
    that name fields of it (the ``realm``) are every record's. A create whose body holds the list beside other members
    (an order and its ``items``) makes one record, as before."""
    by_name = {t.name: t for t in tools}
    return [_made_in_a_batch(b, by_name[b.tool], schema) or b if b.tool in by_name else b for b in behaviours]


def _made_in_a_batch(behaviour: Behaviour, tool: ToolSpec, schema: StateSchema) -> Behaviour | None:
    http = tool.source.http
    body = [a for a, where in http.params.items() if where == "body"] if http else []
    if behaviour.effect.kind != "create" or len(body) != 1 or primary_type(tool.properties.get(body[0])) != "array":
        return None
    route = tokens(http.path.split(":")[-1].split("/")[-1]) if http else ()
    if {VERBS.get(w) for w in (*tokens(tool.name), *route)} - {None, "create"}:
        return None  # a POST whose name or route says another verb (``permissions:batchDelete``) makes nothing
    arg = body[0]
    items = tool.properties[arg].get("items")
    members = list((items.get("properties") or {}) if isinstance(items, dict) else {})
    plain = isinstance(items, dict) and primary_type(items) in ("string", "integer", "number")
    entity = _valued(singular(arg), schema) if plain else _holding(members, schema, behaviour.effect.entity)
    if entity is None:
        return None
    value_field = matching_field(entity.fields, singular(arg), entity.name) if plain else None
    if value_field is not None and primary_type(entity.fields.get(value_field)) == "array":
        return None  # ``{ids: [text]}`` kept whole by one record (an attempt over those devices): one record made
    members = [value_field] if value_field else members
    fields = {m: f for m in members if (f := matching_field(entity.fields, m, entity.name)) is not None}
    scope = {a: f for a in tool.properties
             if a != arg and (f := matching_field(entity.fields, a, entity.name)) not in (None, entity.key)
             and f not in fields.values()}  # fmt: skip
    _, record, as_list = data_path(tool.output_schema)
    keys_as = None if as_list or record is None else _keys_member(record, entity)
    if record is not None and not as_list and keys_as is None:
        return None  # one record answered, naming none of the records made: not a batch it can answer
    effect = CreateManyEffect(entity=entity.name, items_arg=arg, fields=fields, args=scope, keys_as=keys_as,
                              value_field=value_field)  # fmt: skip
    note = f"creates one {entity.name} per item of {arg!r}" + (f", each with {sorted(scope)}" if scope else "")
    return Behaviour(tool=tool.name, effect=effect, prior="confident", notes=(note,))


def _keys_member(record: JSON, entity: Entity) -> str | None:
    """The member of a batch's one answered object listing the keys of the records made:
    ``transaction_ids`` for transactions keyed by ``id`` (plain values, named after the key), or
    the first list of plain values described as ids (``created: [string]``, "created nodes ID")."""
    described = None
    for member, prop in (record.get("properties") or {}).items():
        items = prop.get("items") if isinstance(prop, dict) and primary_type(prop) == "array" else None
        if not isinstance(items, dict) or primary_type(items) in ("object", "array", None):
            continue
        named = member.removesuffix("s") if member.lower().endswith(("ids", "keys")) else singular(member)
        if names_key(named, entity.name, entity.key) or named == entity.key:
            return member
        if described is None and {"id", "ids"} & set(tokens(str(items.get("description") or ""))):
            described = member
    return described


def _valued(field: str, schema: StateSchema) -> Entity | None:
    """The entity a list of plain values named after one of its fields makes (``emails: [text]``:
    e-mail records by their ``email``): the one named so, else the one with the fewest fields."""
    fitting = [e for e in schema.entities
               if e.key != SINGLETON_KEY and matching_field(e.fields, field, e.name) is not None]  # fmt: skip
    return min(fitting, key=lambda e: (e.name != field, len(e.fields), e.name), default=None)


def _holding(members: list[str], schema: StateSchema, own: str) -> Entity | None:
    """The entity holding a field for every one of (at least two) item members: the create's own
    (the route's: ``POST /categories`` with ``categories: [{uuid, name}]``) where it does, else, of
    several, the one with the fewest other fields."""
    if len(members) < 2:
        return None
    fitting = [e for e in schema.entities
               if e.key != SINGLETON_KEY and all(matching_field(e.fields, m, e.name) for m in members)]  # fmt: skip
    return min(fitting, key=lambda e: (e.name != own, len(e.fields), e.name), default=None)


def _verb(tool: ToolSpec) -> str:
    return name_verb(tool.name, _ADD | _REMOVE)[0]


def _batch_arg(tool: ToolSpec) -> tuple[str, JSON] | None:
    """The one required argument, when it is an array (with its item schema)."""
    required = [r for r in tool.required if r in tool.properties]
    if len(required) != 1:
        return None
    schema = tool.properties[required[0]]
    if primary_type(schema) != "array" or not isinstance(schema.get("items"), dict):
        return None
    return required[0], schema["items"]


def _noun(arg: str) -> str:
    toks = [t for t in tokens(arg) if t not in _KEY_WORDS and singular(t) not in _KEY_WORDS]
    return singular(toks[-1]) if toks else ""


# ``body``: an array sent as the whole request body
_GENERIC_ITEMS = {"inputs", "items", "records", "data", "entries", "objects", "values", "batch", "body"}


def _route_words(tool: ToolSpec) -> list[str]:
    """The static words of an HTTP tool's path, last first (``/contacts/batch/archive``)."""
    http = tool.source.http
    path = http.path.split("#")[0] if http else ""
    return [w for seg in reversed(path.strip("/").split("/")) if seg and not seg.startswith("{") for w in [seg]]


def _create_noun(tool: ToolSpec) -> str | None:
    """The noun of a create verb over one required array of objects, else None. An HTTP route's
    last word decides the verb (``POST /contacts/batch/archive`` archives), and a generic array
    (``inputs``) takes its noun from the route (``contacts``)."""
    found = _batch_arg(tool)
    route = _route_words(tool)
    last = next(iter(tokens(route[0])), "") if route else ""
    verb = VERBS.get(last) or ("action" if last in TRANSITIONS else None) if last else None
    if found is None or (verb or VERBS.get(_verb(tool))) != "create" or tool.annotations.read_only:
        return None
    arg, items = found
    if not (primary_type(items) == "object" and items.get("properties")):
        return None
    if arg.lower() in _GENERIC_ITEMS:
        owner = next((w for w in route if w.lower() not in ("batch", "bulk") and not VERBS.get(w.lower())), None)
        return singular(tokens(owner)[-1]) if owner and tokens(owner) else None
    return _noun(arg) or None


def _create_many(tool: ToolSpec, noun: str, others: set[str]) -> tuple[Entity, Behaviour] | None:
    """Rule 1, unless each item names a row of another candidate and carries an array of values
    (``add_observations: [{entityName, contents: [...]}]`` edits a list field; rule 2)."""
    found = _batch_arg(tool)
    assert found is not None
    arg, items = found
    props = items.get("properties") or {}
    stub = {n: Entity(name=n) for n in others}
    if _owner_field(props, stub) is not None and any(primary_type(v) == "array" for v in props.values()):
        return None
    fields = {k: _clean(v) for k, v in props.items() if isinstance(v, dict)}
    key = next((k for k in NATURAL_KEYS if k in fields and primary_type(fields[k]) in ("string", "integer")), None)
    if key is None:
        key = "id"
        fields = {"id": {"type": "string"}, **fields}
    entity = Entity(
        name=noun,
        key=key,
        key_type="integer" if primary_type(fields[key]) == "integer" else "string",
        key_prefix=noun[:40],
        fields=fields,
        required=tuple(r for r in items.get("required") or () if r in fields),
        sources=(tool.name,),
    )
    _, record, as_list = data_path(tool.output_schema)
    keys_as = None if as_list or record is None else _keys_member(record, entity)
    if record is not None and not as_list and keys_as is None and record.get("properties"):
        return None  # one record answered, naming none of the records made: not a batch it can answer
    effect = CreateManyEffect(entity=noun, items_arg=arg, fields={k: k for k in props if k in fields}, keys_as=keys_as)
    notes = (f"creates one {noun} per item of {arg!r}; skips {'existing keys' if key != 'id' else 'duplicates'}",)
    return entity, Behaviour(tool=tool.name, effect=effect, prior="confident", notes=notes)


def _owner_field(props: JSON, entities: dict[str, Entity] | None) -> tuple[str, str] | None:
    """(item field, entity) when an item field names a row of an entity: ``entityName``, ``entity_id``,
    or a field described as "the name of the <entity>"."""
    for name, schema in props.items():
        toks = tokens(name)
        if len(toks) >= 2 and toks[-1] in _KEY_WORDS:
            noun = singular("_".join(toks[:-1]))
            if entities is None or noun in entities:
                return name, noun
        described = _described_ref(schema, entities)
        if described:
            return name, described
    return None


def _described_ref(schema: Any, entities: dict[str, Entity] | None) -> str | None:
    text = str(schema.get("description") or "").lower() if isinstance(schema, dict) else ""
    for noun in entities or ():
        spoken = noun.replace("_", " ")
        if any(f"{w} of the {spoken}" in text or f"{spoken} {w}" in text for w in _KEY_WORDS):
            return noun
    return None


def _links(entities: list[Entity]) -> dict[str, dict[str, str]]:
    """entity -> {field: entity it refers to}: fields named or described after another entity."""
    names = {e.name: e for e in entities}
    out: dict[str, dict[str, str]] = {}
    for entity in entities:
        for name, schema in entity.fields.items():
            if name == entity.key:
                continue
            toks = tokens(name)
            stem = singular("_".join(toks[:-1])) if len(toks) >= 2 and toks[-1] in _KEY_WORDS else None
            target = stem if stem in names and stem != entity.name else _described_ref(schema, names)
            if target and target != entity.name:
                out.setdefault(entity.name, {})[name] = target
    return out


def _edit_list(tool: ToolSpec, entities: dict[str, Entity]) -> Behaviour | None:
    found = _batch_arg(tool)
    verb = _verb(tool)
    if found is None or not (verb in _ADD or verb in _REMOVE) or primary_type(found[1]) != "object":
        return None
    arg, items = found
    props = items.get("properties") or {}
    owner = _owner_field(props, entities)
    if owner is None:
        return None
    owner_arg, noun = owner
    entity = entities[noun]
    rest = [t for t in tokens(tool.name)[1:]]
    wanted = {plural(singular(t)) for t in rest} | set(rest)
    lists = [f for f, s in entity.fields.items() if primary_type(s) == "array" and f.lower() in wanted]
    values = [k for k, s in props.items() if k != owner_arg and primary_type(s) == "array"]
    if not lists or len(values) != 1:
        return None
    op: Literal["add", "remove"] = "add" if verb in _ADD else "remove"
    record = ((tool.output_schema or {}).get("properties") or {}).values()
    result_field = next(
        (
            k
            for r in record
            if isinstance(r, dict) and isinstance(r.get("items"), dict)
            for k, s in (r["items"].get("properties") or {}).items()
            if k != owner_arg and primary_type(s) == "array"
        ),
        None,
    )
    effect = EditListEffect(
        entity=noun,
        field=lists[0],
        items_arg=arg,
        owner_arg=owner_arg,
        values_arg=values[0],
        op=op,
        result_field=result_field,
    )
    note = f"{'adds to' if op == 'add' else 'removes from'} the {lists[0]!r} list of the {noun} each item names"
    return Behaviour(tool=tool.name, effect=effect, prior="confident", notes=(note,))


def plan_list_edits(tools: list[ToolSpec], schema: StateSchema) -> dict[str, Behaviour]:
    """Tools that would fall back but add to (or remove from) one row's list field: a required key
    of an entity and a required array, the list named by the verb or the array (``mention(tweet_id,
    mentioned_usernames)`` adds to a tweet's ``mentions``; ``add_tags(card_id, tags)`` to its ``tags``); plain
    values only: an array of records is a batch of its own (YNAB's ``updateTransactions``)."""
    out: dict[str, Behaviour] = {}
    for tool in tools:
        required = [r for r in tool.required if r in tool.properties]
        arrays = [r for r in required if primary_type(tool.properties[r]) == "array"
                  and primary_type(tool.properties[r].get("items")) in ("string", "integer", "number")]  # fmt: skip
        keys = [(r, e) for r in required if r not in arrays for e in schema.entities
                if same_field(r, f"{e.name}_id") or (e.key != "id" and same_field(r, e.key))]  # fmt: skip
        if len(required) != 2 or len(arrays) != 1 or len(keys) != 1:
            continue
        (owner, entity), values, verb = keys[0], arrays[0], _verb(tool)
        named = {singular(verb), *(singular(t) for t in tokens(values))}
        lists = [f for f, fs in entity.fields.items() if primary_type(fs) == "array"
                 and primary_type(fs.get("items")) not in ("object", "array") and singular(f) in named]  # fmt: skip
        if len(lists) != 1:
            continue
        op: Literal["add", "remove"] = "remove" if verb in _REMOVE else "add"
        effect = EditListEffect(entity=entity.name, field=lists[0], items_arg=None, owner_arg=owner,
                                values_arg=values, op=op)  # fmt: skip
        note = (
            f"{'adds to' if op == 'add' else 'removes from'} the {lists[0]!r} list of the {entity.name} {owner} names"
        )
        out[tool.name] = Behaviour(tool=tool.name, effect=effect, prior="confident", notes=(note,))
    return out


def _delete_many(tool: ToolSpec, entities: dict[str, Entity], links: dict[str, dict[str, str]]) -> Behaviour | None:
    found = _batch_arg(tool)
    if found is None or VERBS.get(_verb(tool)) != "delete":
        return None
    arg, items = found
    noun = _noun(arg)
    if noun not in entities:
        rest = [singular(t) for t in name_verb(tool.name, _ADD | _REMOVE)[1]]
        noun = next((n for n in rest if n in entities), "")
    if noun not in entities:
        return None
    entity = entities[noun]
    cascade = {e: tuple(f for f, t in refs.items() if t == noun) for e, refs in links.items()}
    cascade = {e: fs for e, fs in cascade.items() if fs}
    if primary_type(items) == "object":
        props = items.get("properties") or {}
        if _owner_field(props, {noun: entity}) is not None and not set(props) <= set(entity.fields):
            return None  # items name a row and hold values: a list edit, not a delete of rows
        fields = {k: k for k in props if k in entity.fields}
        if not fields:
            return None
        effect = DeleteManyEffect(entity=noun, items_arg=arg, by="fields", fields=fields, cascade=cascade)
        note = f"deletes every {noun} equal to an item of {arg!r}"
    else:
        effect = DeleteManyEffect(entity=noun, items_arg=arg, by="key", cascade=cascade)
        note = f"deletes the {plural(noun)} whose {entity.key} is listed in {arg!r}; missing ones are ignored"
    if cascade:
        note += f"; {', '.join(plural(e) for e in cascade)} referring to them go too"
    return Behaviour(tool=tool.name, effect=effect, prior="confident", notes=(note,))


def _dump(tool: ToolSpec, entities: dict[str, Entity], links: dict[str, dict[str, str]]) -> Behaviour | None:
    out = tool.output_schema or {}
    props = out.get("properties") or {}
    members = {
        m: singular(m)
        for m, s in props.items()
        if isinstance(s, dict) and primary_type(s) == "array" and singular(m) in entities
    }
    if primary_type(out) != "object" or not members or len(tool.required) > 1:
        return None
    primary = next(iter(members.values()))
    search_arg = keys_arg = None
    for arg in tool.required:
        schema = tool.properties.get(arg) or {}
        if primary_type(schema) == "string" and arg.lower() in SEARCH_ARGS:
            search_arg = arg
        elif primary_type(schema) == "array" and primary_type(schema.get("items") or {}) in ("string", "integer"):
            keys_arg = arg
        else:
            return None
    link_fields = {e: tuple(f for f, t in refs.items() if t == primary) for e, refs in links.items()}
    effect = DumpEffect(
        members=members,
        primary=primary if (search_arg or keys_arg) else None,
        search_arg=search_arg,
        keys_arg=keys_arg,
        links={e: fs for e, fs in link_fields.items() if fs},
    )
    what = (
        f"the {plural(primary)} matching {search_arg!r}"
        if search_arg
        else f"the {plural(primary)} named in {keys_arg!r}"
        if keys_arg
        else "everything"
    )
    note = f"answers {what} as {', '.join(members)}"
    return Behaviour(tool=tool.name, effect=effect, prior="confident", notes=(note,))


def _clean(schema: JSON) -> JSON:
    return {k: v for k, v in schema.items() if k not in ("readOnly", "writeOnly", "title")}


__all__ = ["BatchPlan", "plan_batches"]

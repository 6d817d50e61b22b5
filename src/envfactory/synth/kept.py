"""Which inferred entities are collections the API keeps, and which only looked like one.

An entity stands for records the API stores and looks up. Inference from paths and answers
proposes some that are not, and the schema then seeds, lists and builds tasks on made-up rows.
An entity nothing writes and nothing refers to is dropped, its readers falling back to their
declared answer (schema-faithful, graded low), when

- **nothing acts on it**: the tools that named it act on something else now;
- **its readers answer one free-form document**, none reads one by a key, and nothing is known of
  its records beyond a key: a health check's answer, a version document (``GET /__heartbeat__``:
  ``{"type": "object"}``);
- **its answer is computed from the arguments**: every reader requires a value to compute with,
  an argument that is neither its key, nor a filter over its fields, nor paging, nor a credential,
  nor a name of a thing or of a kind (a route's part, ``/{dataset}/{version}/fields``; an
  ``item_id``, a ``projectName``, a ``source_type``): a cost estimate for a route (``start_lat``), a
  trend analysis over a ``period``.

A reference from another entity, or any mention in another tool's behaviour (a parent, a count, a
gate), keeps an entity: something else relies on its rows.
"""

from __future__ import annotations

from envfactory.ir.effect import Behaviour, ListEffect, ReadEffect
from envfactory.ir.state import SINGLETON_KEY, Entity, StateSchema
from envfactory.ir.tool import ToolSet
from envfactory.synth.effects import fallback
from envfactory.synth.naming import credential, id_stem, singular, tokens


def kept_collections(schema: StateSchema, behaviours: list[Behaviour], tools: ToolSet
                     ) -> tuple[StateSchema, list[Behaviour]]:  # fmt: skip
    """The schema without the entities that are no kept collection (see the module), and the
    behaviours with their readers falling back."""
    dropped: dict[str, str] = {}
    mentions = [(getattr(b.effect, "entity", None), _strings(b.effect.model_dump())) for b in behaviours]
    for entity in schema.entities:
        own = [b for b in behaviours if getattr(b.effect, "entity", None) == entity.name]
        if entity.key == SINGLETON_KEY or _relied_on(entity.name, schema, mentions):
            continue
        why = _not_kept(entity, own, tools, set(schema.names))
        if why is not None:
            dropped[entity.name] = why
    if not dropped:
        return schema, behaviours
    out = []
    for b in behaviours:
        named = getattr(b.effect, "entity", None)
        out.append(fallback(b.tool, dropped[named]) if isinstance(named, str) and named in dropped else b)
    return StateSchema(entities=tuple(e for e in schema.entities if e.name not in dropped)), out


def _not_kept(entity: Entity, own: list[Behaviour], tools: ToolSet, names: set[str]) -> str | None:
    """Why ``entity`` is no collection the API keeps, given the behaviours acting on it; ``None`` if it is."""
    if not own:
        return ""  # nothing acts on it: dropped, no tool to note it on
    if not all(isinstance(b.effect, (ListEffect, ReadEffect)) for b in own):
        return None  # something writes it (or counts, dumps, gates on it): state, whatever else holds
    if set(entity.fields) <= {entity.key} and all(
        isinstance(b.effect, ListEffect) and b.tool in tools.names and _free_form(tools[b.tool].output_schema)
        for b in own
    ):
        return f"answers one free-form document, not {entity.name!r} records: no collection kept"
    computed = [_computed_from(b, tools, names) for b in own]
    if all(computed):
        return f"computes its answer from {', '.join(sorted(set().union(*computed)))}: no {entity.name!r} records kept"
    return None


def _free_form(answer: object) -> bool:
    """Is a declared answer one object of no declared members (a health check's, a version's)? An
    undeclared answer (most MCP tools') says nothing either way."""
    return isinstance(answer, dict) and answer.get("type") == "object" and not answer.get("properties")


def _computed_from(behaviour: Behaviour, tools: ToolSet, names: set[str]) -> set[str]:
    """The required arguments of a reading tool that select nothing among stored rows and name nothing."""
    if behaviour.tool not in tools.names:
        return set()
    tool, effect = tools[behaviour.tool], behaviour.effect
    if isinstance(effect, ReadEffect):
        used = {effect.key_arg}
    elif isinstance(effect, ListEffect):
        used = {f.arg for f in effect.filters} | set(effect.needs) | effect.paging.args
    else:
        return set()
    http = tool.source.http
    routed = set() if http is None else {a for a, where in http.params.items() if where == "path"}
    skip = used | routed
    return {a for a in tool.required if a not in skip and not tool.is_transport(a) and not credential(a)
            and not _names(a, names)}  # fmt: skip


# the last word of an argument that names a thing (or a person) rather than giving a value to compute with
_NAMING = frozenset({"name", "path", "file", "dir", "directory", "folder", "url", "uri", "slug", "key", "handle",
                     "email", "username", "login", "phone", "symbol", "type", "kind"})  # fmt: skip


def _names(arg: str, entities: set[str]) -> bool:
    """Does ``arg`` name a thing or a kind of thing (``item_id``, ``projectName``, ``database_file``, a
    user's ``email``, a ``source_type``, ``project`` where projects are kept) rather than give a value
    (``start_lat``, ``period``, ``sql``)? Such an argument picks what is read, like a route's part,
    even where no filter was inferred for it."""
    words = tokens(arg)
    return id_stem(arg) is not None or (bool(words) and words[-1] in _NAMING) or singular(arg) in entities


def _relied_on(name: str, schema: StateSchema, mentions: list[tuple[object, set[str]]]) -> bool:
    """Does another entity refer to ``name``, or another tool's behaviour mention it (a list's parent,
    a count, a gate, a dump's member)? Any string value equal to the name counts: keeping is the safe side."""
    if any(name in e.refs.values() for e in schema.entities if e.name != name):
        return True
    return any(name in said for entity, said in mentions if entity != name)


def _strings(value: object) -> set[str]:
    """Every string value in a dumped model, and the entity part of an ``entity.field`` one."""
    if isinstance(value, str):
        return {value, value.split(".", 1)[0]}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values()))
    if isinstance(value, (list, tuple)):
        return set().union(*(_strings(v) for v in value))
    return set()

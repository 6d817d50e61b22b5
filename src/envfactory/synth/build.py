"""synthesize(): tool descriptions -> EnvSpec (schema, behaviours, initial state). Offline."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from envfactory.errors import SpecError, SynthesisError
from envfactory.ingest import MCP_PREFIX, Loaded, load
from envfactory.ir.docstrings import sketched_replies
from envfactory.ir.effect import (
    ActionEffect,
    Behaviour,
    BoundEffect,
    CountEffect,
    CreateEffect,
    FallbackEffect,
    ReadEffect,
    ServedEffect,
    UpdateEffect,
)
from envfactory.ir.env import EnvConfig, EnvSpec
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import SINGLETON_KEY, SINGLETON_ROW, Entity, StateSchema
from envfactory.ir.tool import ToolSet, ToolSpec
from envfactory.runtime.conform import placeholder_value
from envfactory.synth.batches import records_made_in_batches
from envfactory.synth.conditions import rows_by_condition
from envfactory.synth.counts import plan_counts
from envfactory.synth.data import load_state, seed_state
from envfactory.synth.effects import fallbacks_name_rows, infer_behaviour
from envfactory.synth.entities import (
    assign_entities,
    fields_follow_filters,
    fields_follow_lookups,
    infer_schema,
    keys_follow_parameters,
    refs_fit_keys,
)
from envfactory.synth.handles import named_records
from envfactory.synth.intents import (
    Intent,
    aspects_read,
    children_made,
    collection_paths,
    namespace,
    queries_posted,
    read_intent,
    rooted,
)
from envfactory.synth.kept import kept_collections
from envfactory.synth.naming import plural, tokens
from envfactory.synth.planners import claim, contested, rereaders
from envfactory.synth.selects import plan_selects
from envfactory.synth.singletons import list_refs
from envfactory.synth.statuses import Said, said_rule, statuses_follow_prose
from envfactory.synth.transitions import STATUS_FIELDS

JSON = dict[str, Any]
_INITIAL = (
    "available",
    "active",
    "open",
    "pending",
    "placed",
    "new",
    "draft",
    "scheduled",
    "requested",
    "confirmed",
    "todo",
    "unpaid",
    "booked",
)
_CREATED = (
    "created",
    "created_at",
    "createdat",
    "creation_date",
    "timestamp",
    "sent_at",
    "booked_at",
    "placed_at",
    "added_at",
    "date_created",
    "submitted_at",
)
_UPDATED = (
    "updated",
    "updated_at",
    "updatedat",
    "modified",
    "modified_at",
    "last_modified",
    "date_modified",
)


def synthesize(
    source: str | Path | Loaded | ToolSet,
    *,
    name: str | None = None,
    seed: int = 0,
    rows: int = 12,
    state: str = "seeded",
    bind: bool = False,
    max_steps: int = 50,
    trust_code: bool = False,
    ref_roots: tuple[Path, ...] = (),
    reader: Any = None,
    scenario: str | None = None,
    scenario_loader: str | None = None,
    server_env: dict[str, str] | None = None,
) -> EnvSpec:
    """Build an environment from tool descriptions.

    ``state`` is ``"seeded"`` (Faker rows), ``"empty"`` or the path of a JSON file
    ``{entity: [rows]}``. ``bind=True`` makes a Python object's own methods the behaviour.
    A Python source is imported (executed) only with ``trust_code=True``; ``bind=True`` asks
    to run it and so implies it. ``ref_roots`` are folders besides the spec's own that
    ``$ref`` may read. ``reader`` (an ``LLMClient``) reads plain documentation. ``scenario``: a
    JSON file a bound class loads into every fresh object (with ``scenario_loader``, else the
    first of ``_load_scenario``, ``load_scenario``, ``load_state``, ``set_state``, ``load``).
    A live server ``mcp+stdio:CMD`` starts with ``server_env``; with ``bind=True`` it answers every
    tool itself, a fresh server per episode.
    """
    if isinstance(source, Loaded):
        loaded = source
    elif isinstance(source, ToolSet):
        loaded = Loaded(source)
    else:
        loaded = load(source, trust_code=trust_code or bind, ref_roots=ref_roots, reader=reader, server_env=server_env)
    toolset = sketched_replies(loaded.toolset)  # Returns: {"ok": true, "task": {id, title}}: the reply's shape
    claims = claim(list(toolset.tools))  # readings of groups of tools, each tool to the plan that pins it down
    claimed = claims.behaviours
    collections = collection_paths(list(toolset.tools))
    prefix = namespace(list(toolset.tools))
    intents = aspects_read(
        rooted(
            queries_posted(
                children_made([read_intent(t, collections, prefix) for t in toolset.tools if t.name not in claimed])
            )
        )
    )
    taken = {e.name for e in claims.entities}
    one_record = {e.name for e in claims.entities if e.key == SINGLETON_KEY}  # the sign-in session, a device
    assigned = apart_from_claimed(assign_entities(intents), intents, one_record)  # the rest, one by one, as resources
    inferred = infer_schema(intents, assigned)
    schema = StateSchema(entities=(*claims.entities, *(e for e in inferred.entities if e.name not in taken)))
    # what the actions' prose says of their records' statuses ("cancel a pending order"), and their verbs
    said: dict[str, list[Said]] = {}
    verbs: dict[str, list[str]] = {}
    for i in intents:
        if i.kind in ("action", "update") and i.tool.name in assigned:
            said.setdefault(assigned[i.tool.name], []).append(said_rule(i.tool, assigned[i.tool.name]))
            verbs.setdefault(assigned[i.tool.name], []).append(i.verb)
    schema = statuses_follow_prose(schema, said, verbs)
    by_tool = {
        i.tool.name: _finish(
            infer_behaviour(i, schema[assigned[i.tool.name]] if i.tool.name in assigned else None, schema),
            schema,
            i.tool,
        )
        for i in intents
    }
    behaviours = [claimed.get(t.name) or by_tool[t.name] for t in toolset.tools]
    singles = [e for p in claims.in_tool_order for e in p.singles]
    schema, behaviours, devices = _from_fallbacks(toolset, schema, behaviours)
    singles += devices
    behaviours = plan_counts(list(toolset.tools), schema, behaviours)  # get_user_stats: counts of the state
    behaviours = records_made_in_batches(list(toolset.tools), schema, behaviours)  # POST .../add-models: [records]
    behaviours = plan_selects(list(toolset.tools), schema, behaviours)  # displayCarStatus(option): a part of it
    # create_record(table, data), update_records(table, data, conditions): rows of free fields, writes by conditions
    kinds = {i.tool.name: i.kind for i in intents}
    schema, behaviours = rows_by_condition(list(toolset.tools), schema, behaviours, kinds)
    schema = _without_unused(schema, behaviours, taken={b.tool for b in behaviours if b.effect.kind == "count"})
    schema = fields_follow_lookups(schema, behaviours, toolset)  # find_user_by_email: users have an email
    schema = fields_follow_filters(keys_follow_parameters(schema, behaviours, toolset), behaviours, toolset)
    schema = refs_fit_keys(schema, behaviours, toolset)
    schema = named_records(schema, behaviours, toolset)  # "The ID or name of the container": named by either
    schema = list_refs(schema, behaviours)  # a watchlist of stock symbols refers to the stocks
    schema, behaviours = kept_collections(schema, behaviours, toolset)  # a heartbeat, an estimate: no table
    behaviours = [_initial_statuses(b, schema) for b in behaviours]  # the statuses a list's filter offers
    behaviours = fallbacks_name_rows(schema, behaviours, toolset)
    if bind:
        behaviours = _bind(loaded, behaviours)
    else:
        for plan in claims.in_tool_order:  # a session's gates on the tools that need a signed-in user
            behaviours = plan.finish(behaviours, schema, toolset) if plan.finish else behaviours
    if scenario is not None and not bind:
        raise SpecError("a scenario is loaded into a bound implementation: pass bind=True (--bind)", file=str(scenario))
    scenario = str(Path(scenario).resolve()) if scenario is not None else None
    config = EnvConfig(seed=seed, rows_per_entity=rows, max_steps=max_steps, state_source=str(state),
                       scenario=scenario, scenario_loader=scenario_loader)  # fmt: skip
    if bind and state == "seeded":
        initial: dict[str, list[JSON]] = {e: [] for e in schema.names}  # a bound implementation keeps its own state
    elif state == "seeded":
        initial = seed_state(schema, rows=rows, seed=seed, clock_start=config.clock_start,
                             key_caps=key_caps(behaviours, toolset), made=keys_made(behaviours, toolset))  # fmt: skip
        for plan in claims.in_tool_order:  # a tree's folders, a shell's current folder
            initial.update(plan.seeded(seed) if plan.seeded else {})
    elif state == "empty":
        initial = {e: [] for e in schema.names}
    else:
        initial = load_state(state, schema)
    if not bind:  # environments start signed in
        for plan in claims.in_tool_order:
            initial.update(plan.start)
    for single in singles:  # a singleton always exists: one seeded record, whatever the state source
        if not initial.get(single.name) or len(initial[single.name]) != 1:
            one = seed_state(StateSchema(entities=(single,)), rows=1, seed=seed, clock_start=config.clock_start)
            initial[single.name] = [{**one[single.name][0], SINGLETON_KEY: SINGLETON_ROW}]
    behaviours = _unmade_refs_unchecked(schema, behaviours, initial)
    return EnvSpec(
        name=_env_name(name or toolset.name),
        description=toolset.description,
        config=config,
        tools=toolset,
        state_schema=schema,
        behaviours=tuple(behaviours),
        initial_state=initial,
        choices=contested(claims, behaviours),
    )


def apart_from_claimed(assigned: dict[str, str], intents: list[Intent], claimed: set[str]) -> dict[str, str]:
    """Records addressed by a key under the name of a one-record entity a plan claimed (Tradematic's
    ``GET /cloud/sessions/{sessionid}`` beside the sign-in ``session``) are a collection of their own,
    named by the route's word before theirs (``cloud_session``), else ``<name>_record``."""
    keyed = {assigned[i.tool.name] for i in intents if i.key_arg and i.tool.name in assigned}
    renamed = {name: _qualified(name, [i for i in intents if assigned.get(i.tool.name) == name], claimed)
               for name in keyed & claimed}  # fmt: skip
    return {tool: renamed.get(name, name) for tool, name in assigned.items()} if renamed else assigned


def _qualified(name: str, intents: list[Intent], taken: set[str]) -> str:
    for intent in intents:
        http = intent.tool.source.http
        words = [w for w in (http.path.strip("/").split("/") if http else []) if w and not w.startswith("{")]
        at = next((n for n, w in enumerate(words) if "_".join(tokens(w)) in (name, plural(name))), None)
        before = "_".join(tokens(words[at - 1])) if at else ""
        if before and not re.fullmatch(r"v\d+|api", before) and f"{before}_{name}" not in taken:
            return f"{before}_{name}"
    return f"{name}_record"


def keys_made(behaviours: list[Behaviour], toolset: ToolSet) -> frozenset[str]:
    """The entities a create may make the keys of (no argument, or an optional one, gives it)."""
    return frozenset(
        b.effect.entity
        for b in behaviours
        if isinstance(b.effect, CreateEffect)
        and (b.effect.key_arg is None or b.effect.key_arg not in toolset[b.tool].required)
    )


def key_caps(behaviours: list[Behaviour], toolset: ToolSet) -> dict[str, int]:
    """Per entity, the largest integer key a parameter naming one of its records accepts (its
    declared ``maximum``), where one declares it."""
    caps: dict[str, int] = {}
    for b in behaviours:
        entity, arg = getattr(b.effect, "entity", None), getattr(b.effect, "key_arg", None)
        if not isinstance(entity, str) or not isinstance(arg, str) or b.effect.kind == "create":
            continue
        top = (toolset[b.tool].input_schema.get("properties") or {}).get(arg, {}).get("maximum")
        if isinstance(top, int) and not isinstance(top, bool) and top > 0:
            caps[entity] = min(caps.get(entity, top), top)
    return caps


def _from_fallbacks(toolset: ToolSet, schema: StateSchema, behaviours: list[Behaviour],
                 ) -> tuple[StateSchema, list[Behaviour], tuple[Entity, ...]]:  # fmt: skip
    """The tools left falling back, read again with the schema at hand (:func:`rereaders`); a new
    record (a device) replaces the entities only the tools it absorbed named."""
    fallbacks = {b.tool for b in behaviours if isinstance(b.effect, FallbackEffect)}
    claims = claim([t for t in toolset.tools if t.name in fallbacks], rereaders(schema))
    if not claims.plans:
        return schema, behaviours, ()
    behaviours = [claims.behaviours.get(b.tool, b) for b in behaviours]
    new = tuple(claims.entities)
    if not new:
        return schema, behaviours, ()
    absorbed = {t for p in claims.plans if p.singles or p.entities for t in p.behaviours}
    kept = _without_unused(schema, behaviours, absorbed).entities
    return StateSchema(entities=(*kept, *new)), behaviours, new


# the effects that only read, change or remove rows an entity already holds
_KEEPS_ROWS = frozenset({"read", "list", "update", "delete", "delete_many", "action", "adjust", "count", "dump"})


def _unmade_refs_unchecked(schema: StateSchema, behaviours: list[Behaviour], initial: dict[str, list[JSON]]
                           ) -> list[Behaviour]:  # fmt: skip
    """A reference to an entity no tool makes, the start holds none of and whose records hold
    nothing but their key is not looked up: a context's ``project_id`` where projects are only the
    names contexts carry (``list_all_projects``) would otherwise refuse every write ``not_found``,
    since no project can ever exist. A record with fields of its own (a contact with a name and an
    e-mail), or one a tool reads by its key (``get_contact``), is data the real thing holds where
    the model cannot see it: still looked up."""
    made = {e for b in behaviours if b.effect.kind not in _KEEPS_ROWS and (e := getattr(b.effect, "entity", None))}
    made |= {b.effect.entity for b in behaviours if isinstance(b.effect, ReadEffect)}
    unmade = {e.name for e in schema.entities
              if e.name not in made and not initial.get(e.name) and set(e.fields) <= {e.key}}  # fmt: skip
    out = []
    for b in behaviours:
        effect = b.effect
        if isinstance(effect, (CreateEffect, UpdateEffect)) and effect.entity in schema:
            free = [f for f, t in schema[effect.entity].refs.items() if t in unmade and f not in effect.unchecked]
            if free:
                b = b.model_copy(update={"effect": effect.model_copy(update={"unchecked": (*effect.unchecked, *free)})})
        out.append(b)
    return out


def _without_unused(schema: StateSchema, behaviours: list[Behaviour], taken: set[str]) -> StateSchema:
    """The schema without the entities only the ``taken`` tools named, now that those tools act on
    something else (a device absorbed them; a statistics tool counts, it holds nothing: ``user_stat``)."""
    used = {getattr(b.effect, "entity", None) for b in behaviours} | {
        r for e in schema.entities for r in e.refs.values()
    }
    used |= {c.entity for b in behaviours if isinstance(b.effect, CountEffect) for c in b.effect.counts}
    kept = [e for e in schema.entities if e.name in used or not e.sources or not set(e.sources) <= taken]
    return StateSchema(entities=tuple(kept)) if len(kept) < len(schema.entities) else schema


def _finish(behaviour: Behaviour, schema: StateSchema, tool: ToolSpec) -> Behaviour:
    """Add what only the schema and the tool's parameters know: default values and clock-stamped fields."""
    effect = behaviour.effect
    if isinstance(effect, CreateEffect):
        entity = schema[effect.entity]
        effect = effect.model_copy(
            update={
                "defaults": {**create_defaults(entity, effect), **argument_defaults(tool, effect)},
                "timestamps": _stamps(entity, _CREATED + _UPDATED),
            }
        )
    elif isinstance(effect, UpdateEffect):
        effect = effect.model_copy(update={"timestamps": _stamps(schema[effect.entity], _UPDATED)})
    elif isinstance(effect, ActionEffect):
        verb = (tokens(tool.name) or ("",))[0]  # ``complete_task`` stamps a ``completed_at``
        done = f"{verb}d" if verb.endswith("e") else f"{verb}ed"
        stamps = (*_UPDATED, f"{effect.to}_at", f"{effect.to}at", f"{effect.to}_on", f"{done}_at", f"{done}at")
        effect = effect.model_copy(update={"timestamps": _stamps(schema[effect.entity], stamps)})
    else:
        return behaviour
    return behaviour.model_copy(update={"effect": effect})


def _initial_statuses(behaviour: Behaviour, schema: StateSchema) -> Behaviour:
    """A create's record starts in its initial status where the values became known after the
    create was read (a list's ``status`` filter offering ``open``, ``resolved``, ``all``)."""
    effect = behaviour.effect
    if not isinstance(effect, CreateEffect) or effect.entity not in schema:
        return behaviour
    entity = schema[effect.entity]
    found = {f: v for f, v in create_defaults(entity, effect).items() if f not in effect.defaults
             and tokens(f)[-1:] and tokens(f)[-1] in STATUS_FIELDS}  # fmt: skip
    if not found:
        return behaviour
    return behaviour.model_copy(update={"effect": effect.model_copy(update={"defaults": {**effect.defaults, **found}})})


def create_defaults(entity: Entity, effect: CreateEffect) -> JSON:
    given = set(effect.args.values()) | {entity.key}
    defaults: JSON = {}
    for field, schema in entity.fields.items():
        if field in given:
            continue
        enum = schema.get("enum")
        toks = tokens(field)
        if "default" in schema:
            defaults[field] = schema["default"]
        elif enum and toks and toks[-1] in STATUS_FIELDS:
            defaults[field] = next((v for v in _INITIAL if v in enum), enum[0])
        elif field in entity.required:
            defaults[field] = _placeholder(schema)
    return defaults


def argument_defaults(tool: ToolSpec, effect: CreateEffect) -> JSON:
    """What an omitted argument stores, where the tool declares its default: ``create_ticket``'s
    ``description`` (``"default": ""``) makes a ticket whose description is empty, not absent. A
    default that spells nothing (``"None"``, ``null``) stores nothing."""
    props = tool.input_schema.get("properties") or {}
    out: JSON = {}
    for arg, field in effect.args.items():
        schema = props.get(arg)
        if isinstance(schema, dict) and "default" in schema and schema["default"] not in (None, "None", "null"):
            out[field] = schema["default"]
    return out


def _placeholder(schema: JSON) -> Any:
    """A required field's starting value: the smallest value its schema admits
    (:func:`~envfactory.runtime.conform.placeholder_value`: its first declared value, a text of its
    least length or format), but zero where a number may be zero (an accuracy of at least 1 m
    starts at 1; a latitude at 0, not -90)."""
    low = schema.get("minimum")
    if (
        primary_type(schema) in ("integer", "number")
        and not schema.get("enum")
        and (not isinstance(low, (int, float)) or low <= 0)
        and "exclusiveMinimum" not in schema  # (a weight above 0 starts above it)
    ):
        return 0
    return placeholder_value(schema)


def _stamps(entity: Entity, names: tuple[str, ...]) -> tuple[str, ...]:
    wanted = {n.replace("_", "") for n in names}
    return tuple(
        f for f, s in entity.fields.items() if f.replace("_", "").lower() in wanted and s.get("type") != "integer"
    )


def _bind(loaded: Loaded, behaviours: list[Behaviour]) -> list[Behaviour]:
    if loaded.target and loaded.target.startswith(MCP_PREFIX):  # the live server answers every tool itself
        served = ServedEffect(target=loaded.target, env=loaded.server_env)
        return [Behaviour(tool=b.tool, effect=served, prior="real", notes=("answered by the live server",))
                for b in behaviours]  # fmt: skip
    if not any(t.source.python for t in loaded.toolset.tools):
        raise SynthesisError(
            "--bind needs Python tools (a module or class) or a live server (mcp+stdio:CMD); "
            "these tools have no implementation"
        )
    ref = loaded.target.rsplit(":", 1)[0] if loaded.target else None
    out = []
    for behaviour, tool in zip(behaviours, loaded.toolset.tools, strict=True):
        if not tool.source.python:
            out.append(behaviour)
            continue
        module, qualname = tool.source.python.split(":", 1)
        named = loaded.target.rsplit(":", 1)[1] if loaded.target and ":" in loaded.target else None
        if named and "." in qualname:  # the class the user named, not the one that defines the method
            qualname = f"{named}.{qualname.rsplit('.', 1)[1]}"
        target = f"{ref or tool.source.file or module}:{qualname}"
        out.append(
            Behaviour(
                tool=tool.name,
                effect=BoundEffect(target=target),
                prior="real",
                notes=("runs the user's own implementation",),
            )
        )
    return out


def _env_name(raw: str) -> str:
    return re.sub(r"[^a-z0-9_\-]+", "_", raw.lower()).strip("_") or "env"

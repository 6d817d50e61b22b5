"""Where a real implementation starts, as a synthesized environment's state.

The fidelity instrument and the tasks on real implementations both need the synthesized model to
start where a fresh episode of the real thing starts. :func:`entity_rows` maps a bound object's
attributes onto the model's entities (``_flights`` and ``ticket_queue`` as rows, ``user_map`` as
named users, ``account_info`` or ``engine_state`` as a singleton's fields), :func:`real_counters`
its id counters, and :func:`mirrored` puts it together: the object's records, singletons as
synthesized with the fields it holds, a file tree only its scenario shows, its sign-in status; or,
for a live server, an empty state (a file server's tree holding its ``{tmp}`` root) where its
setup calls leave it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envfactory.ir.effect import ShellEffect, SingletonEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import SINGLETON_KEY, SINGLETON_ROW, Entity, StateSchema
from envfactory.real.mcp import TMP, McpTarget
from envfactory.runtime.environment import Environment
from envfactory.runtime.owner import owner_state
from envfactory.synth.naming import flat, singular, tokens
from envfactory.synth.session import ENTITY as SESSION
from envfactory.synth.tree import tree_rows

JSON = dict[str, Any]


_CONTAINERS = {"queue", "list", "map", "dict", "record", "records", "db", "store", "table", "index", "registry",
               "collection", "data", "by", "all", "info"}  # fmt: skip


def _entity_named(attr: str, names: set[str]) -> str | None:
    """The entity an attribute holds: ``_flights`` -> flight, ``ticket_queue`` -> ticket,
    ``credit_card_list`` -> credit_card, ``booking_record`` -> booking; a one-word attribute also
    names the one compound entity it ends (``comments`` -> tweet_comment)."""
    words = [w.lower() for w in tokens(attr.strip("_"))]
    while len(words) > 1 and words[-1] in _CONTAINERS:
        words.pop()
    if not words:
        return None
    words[-1] = singular(words[-1])
    exact = next((n for n in ("_".join(words), "".join(words)) if n in names), None)
    if exact is not None or len(words) > 1:
        return exact
    ending = sorted(n for n in names if n.endswith("_" + words[0]))
    return ending[0] if len(ending) == 1 else None


def _records(value: Any, entity: Entity) -> list[JSON] | None:
    """A list of records, or a mapping of records (by their key, which the record may omit:
    ``{"12345": {"symbol": ...}}``), as rows holding the key; None when it holds something else."""
    if isinstance(value, list):
        rows = value
    elif isinstance(value, dict):
        integer = (entity.fields.get(entity.key) or {}).get("type") == "integer"
        rows = [v if entity.key in v else {entity.key: int(k) if integer and str(k).isdigit() else k, **v}
                for k, v in value.items() if isinstance(v, dict)]  # fmt: skip
    else:
        return None
    if value and not rows:  # a mapping of plain values: a name -> key directory (``{"Alice": "USR001"}``), else none
        return _directory(value, entity)
    return rows if all(isinstance(r, dict) and entity.key in r for r in rows) else None


def _directory(value: dict[Any, Any], entity: Entity) -> list[JSON] | None:
    """``{"Alice": "USR001"}`` as users ``{"user_id": "USR001", "user": "Alice"}``: the values are
    the keys and the names go to the entity's own name field (``user``, ``name``, ``user_name``)."""
    own = {flat(entity.name), "name", flat(entity.name) + "name", "username"}
    names = [f for f, s in entity.fields.items() if f != entity.key and s.get("type") == "string" and flat(f) in own]
    if len(names) != 1 or not all(isinstance(v, str | int) and not isinstance(v, bool) for v in value.values()):
        return None
    return [{entity.key: v, names[0]: k} for k, v in value.items()]


def entity_rows(state: Any, schema: StateSchema) -> dict[str, list[JSON]] | None:
    """The real object's records as ``{entity: [rows]}``: an attribute named after an entity
    (``_flights``, ``ticket_queue`` for ``flight``, ``ticket``) holding a list or mapping of
    records. None when none maps."""
    if not isinstance(state, dict):
        return None
    names = set(schema.names)
    out: dict[str, list[JSON]] = {}
    for attr, value in state.items():
        name = _entity_named(str(attr), names)
        if name is None or name in out or schema[name].key == SINGLETON_KEY:
            continue
        rows = _records(value, schema[name])
        if rows is not None:
            out[name] = rows
    for entity in schema.entities:
        if entity.key == SINGLETON_KEY and (row := _singleton_row(state, entity, names)) is not None:
            out[entity.name] = [row]
    return out or None


def real_counters(state: Any, schema: StateSchema) -> dict[str, int]:
    """The object's id counters (``ticket_counter = 1``: the next ticket is number 1) as the
    environment's: the last number handed out, for the entities keyed by integers."""
    if not isinstance(state, dict):
        return {}
    out: dict[str, int] = {}
    for attr, value in state.items():
        words = [w.lower() for w in tokens(str(attr).strip("_"))]
        if not isinstance(value, int) or isinstance(value, bool) or words[-1:] != ["counter"]:
            continue
        name = _entity_named("_".join(words[:-1]), set(schema.names))
        if name is not None and schema[name].key_type == "integer":
            out[name] = value - 1
    return out


def _singleton_row(state: JSON, entity: Entity, names: set[str]) -> JSON | None:
    """A singleton's fields as the object holds them: in an attribute named after it
    (``account_info`` for ``account``), else in attributes named like its fields (``engine_state``
    for ``engineState``). Only the fields found (at least two, or the one field of a one-field
    singleton: ``watch_list`` for a watchlist); None when fewer."""
    fields = {flat(f): f for f in entity.fields if f != SINGLETON_KEY}
    named = next((v for a, v in state.items() if isinstance(v, dict) and _entity_named(str(a), names) == entity.name),
                 None)  # fmt: skip
    source = named if named is not None else state
    row = {fields[flat(str(a))]: v for a, v in source.items() if flat(str(a)) in fields and _plain(v)}
    return {SINGLETON_KEY: SINGLETON_ROW, **row} if len(row) >= min(2, len(fields)) else None


def _plain(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def mirrored(spec: EnvSpec, real: Environment) -> EnvSpec:
    """``spec`` (a synthesized model of ``real``'s tools) starting where a fresh episode of the real
    implementation starts. A bound object: its records mapped onto the entities, singletons as
    synthesized with the fields it holds, a file tree only its scenario shows, its sign-in status
    and id counters. A live server: empty, a file server's tree holding only its ``{tmp}`` root."""
    from envfactory.real.served import served_setup, served_target

    target = served_target(real.spec)
    if target is not None:
        started = spec.model_copy(update={"initial_state": _served_start(spec, target)})
        return after_setup(started, served_setup(real.spec))
    return mirror_object(spec, real)[0]


def served_model(spec: EnvSpec, target: McpTarget, calls: list[tuple[str, JSON]],
                 answers: list[Any] | None = None) -> EnvSpec:  # fmt: skip
    """``spec`` starting as a fresh server of ``target`` does once it has had its setup ``calls``
    (``answers``: a fresh server's answers to them, see :func:`after_setup`)."""
    return after_setup(spec.model_copy(update={"initial_state": _served_start(spec, target)}), calls, answers)


def after_setup(spec: EnvSpec, calls: list[tuple[str, JSON]], answers: list[Any] | None = None) -> EnvSpec:
    """``spec`` starting where its setup calls (the ones every fresh server gets) leave it.

    ``answers`` are the real side's answers to the same calls, where known. Setup calls are written
    for the real side, so a later one names the records an earlier one made by the ids the real side
    minted (``"parent": "s01"``): paired as replay pairs them (:class:`~envfactory.real.keypool.Aliases`),
    each call is given the model's own ids, and the records the calls made end up keyed as the real
    side keyed them (a value holding one of the model's keys holds the real one): where every
    sequence starts is the same state on both sides, under the same names."""
    from envfactory.real.keypool import Aliases, holds_key

    if not calls:
        return spec
    episode = Environment(spec).episode(max_steps=10**6)
    aliases = Aliases()
    for i, (tool, args) in enumerate(calls):
        result = episode.call_tool(tool, aliases.translate(args))
        real = answers[i] if answers is not None and i < len(answers) else None
        if real is not None and result.ok:
            aliases.pair(real, result.data, given=args, holds=lambda key: holds_key(spec, episode, key))
    return spec.model_copy(update={"initial_state": _keyed_as_real(spec, episode.state(), aliases.mapping)})


def _keyed_as_real(spec: EnvSpec, state: dict[str, list[JSON]], paired: dict[Any, Any]) -> dict[str, list[JSON]]:
    """``state`` with each record the model keyed by a value ``paired`` holds (real -> model) keyed
    by the real one instead, and every text holding that key (a reference, a parent) holding the
    real one. Only where the real key is of the model key's type and no other record of the entity
    holds it; numbers elsewhere than a key are counts, never renamed."""
    renamed: dict[Any, Any] = {}
    for entity in spec.state_schema.entities:
        keys = {row.get(entity.key) for row in state.get(entity.name, [])}
        for real, model in paired.items():
            if model in keys and type(real) is type(model) and real not in keys and model not in renamed:
                renamed[model] = real
    if not renamed:
        return state
    out: dict[str, list[JSON]] = {}
    for entity in spec.state_schema.entities:
        out[entity.name] = [
            {k: _renamed(renamed, v, k == entity.key or k in entity.refs) for k, v in row.items()}
            for row in state.get(entity.name, [])
        ]
    return {**state, **out}


def _renamed(renamed: dict[Any, Any], value: Any, keyed: bool) -> Any:
    if isinstance(value, str) or (keyed and isinstance(value, int) and not isinstance(value, bool)):
        return renamed.get(value, value)
    if isinstance(value, list):
        return [_renamed(renamed, v, keyed) for v in value]
    return value


def mirror_object(spec: EnvSpec, real: Environment) -> tuple[EnvSpec, dict[str, list[JSON]] | None]:
    """:func:`mirrored` of a bound object, and the records it starts with (``None``: unreadable)."""
    fresh = owner_state(real.owner_factory()) if real.owner_factory else None
    # the object's records, and a file tree only its scenario shows (a shell's ``cwd`` alone maps)
    scenario = real.spec.config.scenario
    start = {**(_scenario_tree(spec, scenario) or {}), **(entity_rows(fresh, spec.state_schema) or {})} or None
    initial = dict(spec.initial_state)
    if start is not None:  # the object's records; singletons as synthesized, with the fields it holds;
        # what it holds nowhere we can see, as synthesized
        initial = {name: start.get(name, spec.initial_state.get(name, [])) for name in spec.state_schema.names}
        for entity in spec.state_schema.entities:
            seeded = spec.initial_state.get(entity.name) or []
            if entity.key == SINGLETON_KEY and seeded:
                initial[entity.name] = [{**seeded[0], **(start.get(entity.name) or [{}])[0]}]
    initial.update(_real_session(spec, real, initial))
    counters = real_counters(fresh, spec.state_schema)
    return spec.model_copy(update={"initial_state": initial, "counters": counters}), start


def _served_start(spec: EnvSpec, target: McpTarget) -> dict[str, list[JSON]]:
    """Both sides of a live server start empty; a file server rooted at ``{tmp}`` holds that folder."""
    start: dict[str, list[JSON]] = {name: [] for name in spec.state_schema.names}
    if rooted_at_tmp(spec, target):
        for entity in {b.effect.entity for b in spec.behaviours if b.effect.kind == "tree"}:
            start[entity] = [{"path": TMP, "type": "directory", "content": ""}]
    return start


def rooted_at_tmp(spec: EnvSpec, target: McpTarget) -> bool:
    """Whether a live server is a file server rooted at its ``{tmp}`` folder: its command names the
    folder and the model holds a file tree. A server that only keeps its own store there
    (``--storage-path {tmp}/tasks``) is not: ``{tmp}`` is no value its tools take."""
    return any(TMP in a for a in target.argv) and any(b.effect.kind == "tree" for b in spec.behaviours)


def _real_session(spec: EnvSpec, real: Environment, initial: dict[str, list[JSON]]) -> dict[str, list[JSON]]:
    """The synthesized session signed in or out as the real object starts (asked through the
    status tool, on a fresh object): its first boolean answer."""
    status = next((b for b in spec.behaviours if isinstance(b.effect, SingletonEffect) and b.effect.op == "get"
                   and b.effect.entity == SESSION and b.tool in real.tools), None)  # fmt: skip
    rows = initial.get(SESSION) or spec.initial_state.get(SESSION) or []  # with what the object holds of it
    if status is None or not rows:
        return {}
    answer = real.episode(max_steps=10).call_tool(status.tool, {})
    said = _first_bool(answer.data) if answer.ok else None
    field = next((f for f, v in rows[0].items() if isinstance(v, bool)), None)
    if said is None or field is None:
        return {}
    return {SESSION: [{**rows[0], field: said}]}


def _scenario_tree(spec: EnvSpec, scenario: str | None) -> dict[str, list[JSON]] | None:
    """A file tree the scenario writes as nested JSON, as the environment's tree rows (and its
    current directory at the first root): objects that hold their tree privately start alike."""
    tree = next((b.effect for b in spec.behaviours if b.effect.kind in ("tree", "shell")), None)
    if tree is None or scenario is None:
        return None
    rows = tree_rows(json.loads(Path(scenario).read_text(encoding="utf-8")))
    if not rows:
        return None
    start = {tree.entity: rows}
    if isinstance(tree, ShellEffect):
        start[tree.cwd_entity] = [{SINGLETON_KEY: SINGLETON_ROW, "cwd": rows[0]["path"]}]
    return start


def _first_bool(value: Any) -> bool | None:
    """The first boolean in an answer, depth first (a status tool's ``{"login_status": true}``)."""
    if isinstance(value, bool):
        return value
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return next((found for v in items if (found := _first_bool(v)) is not None), None)


__all__ = ["after_setup", "entity_rows", "mirror_object", "mirrored", "real_counters", "rooted_at_tmp", "served_model"]

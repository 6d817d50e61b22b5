"""Self-checks of the collection-shaped effects (batch creates and deletes, writes by conditions,
list edits, dumps).

Registered into ``selfcheck.PROBES`` when ``self_check`` runs. Each probe builds its own
arguments from the episode's rows, so that it tests the effect rather than the value generator.
"""

from __future__ import annotations

from typing import Any

from envfactory.ir.effect import (
    AdjustEffect,
    CreateManyEffect,
    DeleteManyEffect,
    DumpEffect,
    EditListEffect,
    SingletonEffect,
    WhereEffect,
)
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import SINGLETON_ROW
from envfactory.runtime.answers import opened_text
from envfactory.runtime.batch import item_schema, items_given
from envfactory.runtime.singleton import written
from envfactory.synth.probe import PROBES, Probe

JSON = dict[str, Any]


@PROBES.register("create_many")
def _probe_create_many(p: Probe) -> None:
    effect = p.effect(CreateManyEffect)
    entity = p.spec.state_schema[effect.entity]
    items_schema = item_schema(effect, p.spec.tools[p.behaviour.tool], p.spec)
    items = []
    for n in range(2):
        item = p.maker.value(items_schema, effect.items_arg, entity.name)
        if (
            isinstance(item, dict)
            and isinstance(item.get(entity.key), str)
            and not _formatted(items_schema, entity.key)
        ):
            item[entity.key] = f"{item[entity.key]} {n}"  # two different natural keys (a drawn uuid is new as it is)
        elif isinstance(item, dict) and isinstance(item.get(entity.key), int):
            item[entity.key] = _free_number(p, entity.name, n)  # a number no record is keyed by yet
        items.append(item)
    before = len(p.rows(entity.name))
    args = {
        **p.args(),
        effect.items_arg: items_given(effect, items),
    }  # the route's other required arguments (a realm) drawn as usual
    result = p.call(p.behaviour.tool, args)
    p.note("batch create succeeds", result.ok, result.content[:200])
    made = len(p.rows(entity.name)) - before
    p.note("creates one row per new item", made == len(items), f"{made} rows for {len(items)} items")
    fresh = p.rows(entity.name)[before:]
    lost = [a for a, f in effect.args.items() if a in args and any(r.get(f) != args[a] for r in fresh)]
    if effect.args:
        p.note("each row holds the route's arguments", not lost, f"not stored: {lost}" if lost else "")
    again = p.call(p.behaviour.tool, args)
    p.note("repeating the batch creates nothing", again.ok and len(p.rows(entity.name)) - before == made,
           again.content[:200])  # fmt: skip


def _formatted(items_schema: JSON | None, member: str) -> bool:
    """Whether the items' ``member`` has a format or a pattern (a uuid, a date): text appended to
    it would make it invalid."""
    prop = ((items_schema or {}).get("properties") or {}).get(member)
    return isinstance(prop, dict) and bool(prop.get("format") or prop.get("pattern"))


def _free_number(p: Probe, entity: str, n: int) -> int:
    """The ``n``-th number (from 0) above every integer key ``entity``'s records hold."""
    key = p.spec.state_schema[entity].key
    held = [r[key] for r in p.rows(entity) if isinstance(r.get(key), int)]
    return max(held, default=0) + 1 + n


@PROBES.register("delete_many")
def _probe_delete_many(p: Probe) -> None:
    effect = p.effect(DeleteManyEffect)
    entity = p.spec.state_schema[effect.entity]
    rows = p.rows(entity.name)[:2]
    if not rows:
        p.note("batch delete removes the rows", None, f"no {entity.name} rows")
        return
    if effect.by == "key":
        items: list[Any] = [r[entity.key] for r in rows]
    else:
        items = [{a: r.get(f) for a, f in effect.fields.items()} for r in rows]
    result = p.call(p.behaviour.tool, {effect.items_arg: items})
    gone = [r[entity.key] for r in rows if p.episode.store.get(entity.name, r[entity.key]) is not None]
    p.note("batch delete removes the rows", result.ok and not gone, result.content[:200])
    keys = {r[entity.key] for r in rows}
    dangling = [e for e, fields in effect.cascade.items() for r in p.rows(e) if any(r.get(f) in keys for f in fields)]
    p.note("rows referring to deleted ones go too", not dangling, f"left in {sorted(set(dangling))}")
    before = p.episode.state_hash()
    again = p.call(p.behaviour.tool, {effect.items_arg: items})
    p.note("deleting again changes nothing", again.ok and p.episode.state_hash() == before, again.content[:200])


@PROBES.register("where")
def _probe_where(p: Probe) -> None:
    effect = p.effect(WhereEffect)
    entity = p.spec.state_schema[effect.entity]
    conditions = [f.arg for f in effect.filters if f.op == "members"]
    rows = p.rows(entity.name)
    name = "a write by conditions reaches the rows they match, and only those"
    if not rows or not conditions:
        p.note(name, None, f"no {entity.name} rows" if conditions else "no condition argument")
        return
    row = rows[0]
    scope = {f.arg: row[f.field] for f in effect.filters if f.op != "members" and f.field and f.field in row}
    args = {k: v for k, v in p.args().items() if k not in conditions}
    args.update(scope)
    written = {"probe_note": f"probe value {p.maker.rng.randrange(10**6)}"}
    if effect.set_arg:
        args[effect.set_arg] = written
    others = {r[entity.key]: r for r in rows[1:]}
    refused = p.call(p.behaviour.tool, {**args, conditions[0]: {}})
    p.note("empty conditions are refused", not refused.ok and p.rows(entity.name) == rows, refused.content[:200])
    result = p.call(p.behaviour.tool, {**args, conditions[0]: {entity.key: row[entity.key]}})
    after = p.episode.store.get(entity.name, row[entity.key])
    if effect.delete:
        reached = after is None
    else:
        reached = after is not None and all(after.get(m) == v for m, v in written.items())
    untouched = all(p.episode.store.get(entity.name, k) == r for k, r in others.items())
    p.note(name, result.ok and reached and untouched, result.content[:200])


@PROBES.register("edit_list")
def _probe_edit_list(p: Probe) -> None:
    effect = p.effect(EditListEffect)
    entity = p.spec.state_schema[effect.entity]
    rows = [r for r in p.rows(entity.name) if effect.op == "add" or r.get(effect.field)]
    if not rows:
        p.note("list edit changes the row", None, f"no {entity.name} row to edit")
        return
    key = rows[0][entity.key]
    values = [_new_value(p, effect, entity)] if effect.op == "add" else rows[0][effect.field][:1]
    args = effect.arguments(key, values)
    result = p.call(p.behaviour.tool, args)
    after = (p.episode.store.get(entity.name, key) or {}).get(effect.field) or []
    changed = all(v in after for v in values) if effect.op == "add" else not any(v in after for v in values)
    p.note("list edit changes the row", result.ok and changed, result.content[:200])
    if effect.op == "add":
        p.call(p.behaviour.tool, args)
        again = (p.episode.store.get(entity.name, key) or {}).get(effect.field) or []
        p.note("adding twice keeps one copy", len(again) == len(after), f"{len(after)} -> {len(again)}")
        missing = effect.arguments(entity.format_key(99_999), values)
        refused = p.call(p.behaviour.tool, missing)
        p.note("adding to a missing row is not_found", refused.error == "not_found", refused.content[:200])


def _new_value(p: Probe, effect: EditListEffect, entity: Any) -> Any:
    """A value to add that the list does not hold, of the type its argument's items declare (an
    article's integer id, a tag's text)."""
    given = p.spec.tools[p.behaviour.tool].properties.get(effect.values_arg or effect.items_arg or "") or {}
    items = (
        given.get("items") if isinstance(given.get("items"), dict) else entity.fields.get(effect.field, {}).get("items")
    )
    if isinstance(items, dict) and primary_type(items) in ("integer", "number"):
        return p.maker.rng.randrange(10**6, 2 * 10**6)
    return f"probe value {p.maker.rng.randrange(10**6)}"


@PROBES.register("dump")
def _probe_dump(p: Probe) -> None:
    effect = p.effect(DumpEffect)
    schema = p.spec.state_schema
    if effect.primary is None:
        result = p.call(p.behaviour.tool, {})
        counts = {m: len(p.rows(e)) for m, e in effect.members.items()}
        got = {m: len(result.data.get(m) or []) for m in counts} if result.ok and isinstance(result.data, dict) else {}
        p.note("answers every row", got == counts, f"{got} for {counts}")
        return
    primary = schema[effect.primary]
    rows = p.rows(primary.name)
    if not rows:
        p.note("answers the selected rows", None, f"no {primary.name} rows")
        return
    row = rows[0]
    if effect.search_arg:
        text = next((v for v in row.values() if isinstance(v, str) and len(v) >= 3), str(row[primary.key]))
        args: JSON = {effect.search_arg: text[1:-1] if len(text) > 4 else text}
    else:
        args = {effect.keys_arg or "": [row[primary.key]]}
    result = p.call(p.behaviour.tool, args)
    member = next(m for m, e in effect.members.items() if e == primary.name)
    listed = result.data.get(member) if result.ok and isinstance(result.data, dict) else None
    found = isinstance(listed, list) and any(all(r.get(k) == row.get(k) for k in r) for r in listed)
    p.note("answers the selected rows", found, result.content[:200])


@PROBES.register("adjust")
def _probe_adjust(p: Probe) -> None:
    effect = p.effect(AdjustEffect)
    entity = p.spec.state_schema[effect.entity]
    rows = [r for r in p.rows(entity.name) if isinstance(r.get(effect.field), (int, float))]
    if not rows:
        p.note("the amount moves the balance", None, f"no {entity.name} with a numeric {effect.field}")
        return
    row = max(rows, key=lambda r: r[effect.field])
    before = row[effect.field]
    result = p.call(p.behaviour.tool, {**p.args(), effect.key_arg: row[entity.key], effect.amount_arg: 1})
    after = (p.episode.store.get(entity.name, row[entity.key]) or {}).get(effect.field)
    p.note("the amount moves the balance", result.ok and after == before + effect.sign, result.content[:200])
    refused = p.call(p.behaviour.tool, {**p.args(), effect.key_arg: row[entity.key], effect.amount_arg: -5})
    p.note("a negative amount is refused", refused.error == "invalid_arguments", refused.content[:200])


@PROBES.register("singleton")
def _probe_singleton(p: Probe) -> None:
    effect = p.effect(SingletonEffect)
    if effect.op == "get":
        result = p.call(p.behaviour.tool, p.args())
        # a record declared as text (an HTML page's ``{"logged_in": true}``) is the JSON it holds
        p.note("answers the one record", result.ok and isinstance(opened_text(result.data), dict), result.content[:200])
        return
    fields = p.spec.state_schema[effect.entity].fields
    if any(primary_type(fields.get(f)) == "array" for f in (*effect.adds.values(), *effect.takes.values())):
        _probe_list(p, effect)
        return
    required = set(p.spec.tools[p.behaviour.tool].required)  # a login's password: sent, never stored
    args = {a: v for a, v in p.args().items() if a in effect.args or a in required or a in effect.adds}
    before = dict(p.episode.store.get(effect.entity, SINGLETON_ROW) or {})
    for arg, field in effect.checks.items():  # credentials the record holds: the right ones (a refresh's token)
        if before.get(field) not in (None, ""):
            args[arg] = before[field]
    for arg, field in effect.adds.items():  # an amount that fits under the field's maximum
        room = _room(fields.get(field) or {}, before.get(field))
        args[arg] = 1 if room is None else max(0, min(1, room))
    for arg, field in effect.takes.items():  # an amount the field holds
        held = before.get(field)
        args[arg] = max(0, min(1, held)) if isinstance(held, (int, float)) else 0
    result = p.call(p.behaviour.tool, args)
    row = p.episode.store.get(effect.entity, SINGLETON_ROW) or {}
    stored = all(row.get(f) == v for f, v in written(effect, args).items())
    added = all(row.get(f) == (before.get(f) or 0) + args[a] for a, f in effect.adds.items())
    added &= all(row.get(f) == (before.get(f) or 0) - args[a] for a, f in effect.takes.items())
    fixed = all(row.get(f) == v for f, v in effect.sets.items())
    p.note("set writes the record", result.ok and stored and added and fixed, result.content[:200])
    for arg, field in effect.takes.items():
        held = row.get(field)
        if isinstance(held, (int, float)):
            refused = p.call(p.behaviour.tool, {**args, arg: held + 1})
            p.note("taking more than is held is refused", refused.error == "precondition_failed", refused.content[:200])
    for arg, field in effect.adds.items():
        room = _room(fields.get(field) or {}, row.get(field))
        if room is not None:
            refused = p.call(p.behaviour.tool, {**args, arg: room + 1})
            p.note("an amount past the maximum is refused", refused.error == "precondition_failed",
                   refused.content[:200])  # fmt: skip


def _held(p: Probe, effect: SingletonEffect, field: str) -> list[Any]:
    """The values the singleton's list ``field`` holds now."""
    return (p.episode.store.get(effect.entity, SINGLETON_ROW) or {}).get(field) or []


def _probe_list(p: Probe, effect: SingletonEffect) -> None:
    """A keyless list (``add_to_watchlist(stock)``): a value added is there once, however often it
    is added; a value removed is gone, and removing it again is ``not_found`` — or, where the answer
    says whether the list changed (``follow_status``), answered ``false``."""
    entity = p.spec.state_schema[effect.entity]
    for arg, field in effect.adds.items():
        held = _held(p, effect, field)
        value = p.args().get(arg)
        target = entity.refs.get(field)
        if target is not None:  # a list of references: add a row that exists, and see a missing one refused
            key = p.spec.state_schema[target].key
            options = [r[key] for r in p.rows(target) if r[key] not in held]
            if not options:
                p.note("a value added is in the list once", None, f"no {target} to add")
                continue
            missing = p.call(p.behaviour.tool, {arg: [f"no-such-{target}"] if isinstance(value, list)
                                                else f"no-such-{target}"})  # fmt: skip
            p.note("adding what does not exist is refused", missing.error == "not_found", missing.content[:200])
            value = [options[0]] if isinstance(value, list) else options[0]
        first, again = p.call(p.behaviour.tool, {arg: value}), p.call(p.behaviour.tool, {arg: value})
        after = _held(p, effect, field)
        wanted = value if isinstance(value, list) else [value]
        p.note("a value added is in the list once", first.ok and again.ok and all(after.count(v) == 1 for v in wanted)
               and after[: len(held)] == held, first.content[:200])  # fmt: skip
        if effect.reports and first.ok and again.ok:  # "True if followed, False if already following"
            said = [r.data.get(effect.reports) if isinstance(r.data, dict) else None for r in (first, again)]
            p.note("the answer says whether the list changed", said == [True, False], again.content[:200])
    for arg, field in effect.takes.items():
        held = _held(p, effect, field)
        if not held:
            p.note("a value removed is gone", None, f"the {field} list is empty")
            continue
        schema = p.spec.tools[p.behaviour.tool].properties.get(arg) or {}
        value = [held[0]] if primary_type(schema) == "array" else held[0]
        result = p.call(p.behaviour.tool, {arg: value})
        after = _held(p, effect, field)
        p.note("a value removed is gone", result.ok and held[0] not in after, result.content[:200])
        again = p.call(p.behaviour.tool, {arg: value})
        if effect.reports:  # "False if not following": answered, not refused
            answer = again.data.get(effect.reports) if again.ok and isinstance(again.data, dict) else None
            p.note("removing a value not there answers false", answer is False, again.content[:200])
        else:
            p.note("removing a value not there is refused", again.error == "not_found", again.content[:200])


def _room(schema: JSON, current: Any) -> float | None:
    """How much more fits under the field's maximum (None without one)."""
    maximum = schema.get("maximum")
    if not isinstance(maximum, (int, float)):
        return None
    return max(0, maximum - (current if isinstance(current, (int, float)) else 0))


__all__: list[str] = []

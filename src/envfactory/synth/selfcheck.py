"""The fidelity report: executable self-checks of every tool of an environment.

create -> read round trip, create -> list contains, update persists, delete -> not found,
actions change state and refuse repeats, transfers conserve the total, outputs validate
against output schemas, and the same seed gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict

from envfactory.ir.effect import (
    ActionEffect,
    Behaviour,
    CreateEffect,
    DeleteEffect,
    FallbackEffect,
    ListEffect,
    ReadEffect,
    TransferEffect,
    UpdateEffect,
)
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import (
    data_path,
    declares_no_members,
    declares_one_record,
    min_records,
    primary_type,
)
from envfactory.runtime.answers import opened_text
from envfactory.runtime.behaviours import declared_defaults
from envfactory.runtime.conform import compile_conformer
from envfactory.runtime.environment import Environment
from envfactory.synth.arguments import action_ready, fits, pick_row, within_range
from envfactory.synth.data import coerce_key
from envfactory.synth.naming import matching_field
from envfactory.synth.probe import PROBES, Check, Probe

JSON = dict[str, Any]


class ToolFidelity(BaseModel):
    model_config = ConfigDict(frozen=True)

    tool: str
    kind: str
    entity: str | None
    # the grade: ``real`` where the real implementation answers, else ``unmeasured`` — the self-check
    # checks the model against itself, so it grades nothing; ``prior`` is synthesis's own confidence
    fidelity: str
    low_fidelity: bool
    prior: str = ""
    checks: tuple[Check, ...]
    notes: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return all(c.status != "fail" for c in self.checks)


class FidelityReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    env: str
    deterministic: bool
    tools: tuple[ToolFidelity, ...]

    @property
    def passed(self) -> bool:
        return self.deterministic and all(t.passed for t in self.tools)

    @property
    def failures(self) -> list[str]:
        out = [f"{t.tool}: {c.name}: {c.detail}" for t in self.tools for c in t.checks if c.status == "fail"]
        return out if self.deterministic else ["replaying the checks gave different bytes", *out]

    def counts(self) -> dict[str, int]:
        checks = [c for t in self.tools for c in t.checks]
        return {s: sum(c.status == s for c in checks) for s in ("pass", "fail", "skip")}


def _key_of(probe: Probe, entity: str) -> str:
    return probe.spec.state_schema[entity].key


def _created_key(probe: Probe, entity: str) -> Any:
    changed = probe.episode.store.changes().get(entity, {})
    fresh = [k for k, r in changed.items() if r is not None and probe.env.base.tables[entity].get(k) is None]
    return fresh[-1] if fresh else None


def _readable_key(p: Probe, effect: CreateEffect, args: JSON) -> JSON:
    """``args`` whose key, where the caller chooses it, is one the entity's read takes (within its
    parameter's range) and no row holds: a record made under a key nothing can read is no round
    trip, and one made under a key a row holds is a conflict (a collaborator invited by the id of one
    invited already)."""
    entity = p.spec.state_schema[effect.entity]
    props = p.spec.tools[p.behaviour.tool].properties
    wrapped = args.get(effect.body_arg) if effect.body_arg else None
    member = next((m for m, f in effect.body.items() if f == entity.key), None)  # ``{user: {id, ...}}``: its id
    if effect.key_arg is not None and effect.key_arg in args:
        holder, name, own = args, effect.key_arg, props.get(effect.key_arg) or {}
    elif isinstance(wrapped, dict) and member is not None and member in wrapped:
        holder, name = wrapped, member
        own = ((props.get(effect.body_arg or "") or {}).get("properties") or {}).get(member) or {}
    else:
        return args
    reader = p.tool_of("read", effect.entity)
    read = p.spec.behaviour(reader).effect if reader is not None else None
    prop = p.spec.tools[reader].properties.get(read.key_arg) or {} if isinstance(read, ReadEffect) and reader else {}
    key = holder[name]
    held = any(str(r.get(entity.key)) == str(key) for r in p.episode.store.rows(effect.entity))
    if not held and (not prop or (fits(key, prop) and within_range(key, prop))):
        return args
    free = _absent_key(p, effect.entity, {**prop, **own})  # readable, and within what the create takes
    if free is None:
        return args
    chosen = {**holder, name: coerce_key(free, own)}
    return {**args, effect.body_arg: chosen} if holder is wrapped else chosen  # type: ignore[dict-item]


@PROBES.register("create")
def _probe_create(p: Probe) -> None:
    effect = p.effect(CreateEffect)
    args = _readable_key(p, effect, p.args())
    result = p.call(p.behaviour.tool, args)
    p.note("create succeeds", result.ok, result.content[:200])
    key = _created_key(p, effect.entity)
    if not result.ok or key is None:
        return
    row = p.episode.store.get(effect.entity, key) or {}
    missing = _not_persisted(p, effect.entity, row, args)
    p.note("created row holds the arguments", not missing, f"not stored: {missing}" if missing else "")
    got = p.read(effect.entity, key)
    if got is None:
        p.note("create -> read round trip", None, "no read tool")
    else:
        reader = p.tool_of("read", effect.entity)
        declared = _as_declared(p, reader, row)
        answer = p.spec.tools[reader].output_schema if reader else None
        shown = _unwrapped(opened_text(got.data), answer) if got.ok else None  # a record worded as JSON text too
        # a read whose answer holds its record in a list (Personio's ``data.attributes: [...]``, or a
        # whole answer ``[{...}]``): the record there that shows the row
        candidates = shown if isinstance(shown, list) else [shown]
        same = any(
            isinstance(one, dict) and all(one[k] == declared.get(k, v) for k, v in row.items() if k in one)
            for one in candidates
        )
        p.note("create -> read round trip", same, got.content[:200])
    lister = p.tool_of("list", effect.entity)
    if lister is None:
        p.note("create -> list contains it", None, "no list tool")
        return
    filters = _filters_matching(p, lister, row)
    hidden = _defaulted_away(p, lister, row, filters)
    if hidden is not None:
        p.note("create -> list contains it", None, f"{lister} lists only {hidden} records and takes no other value")
        return
    required = {a: filters[a] for a in p.spec.tools[lister].required if a in filters}
    if len(required) < len(p.spec.tools[lister].required):
        p.note("create -> list contains it", None, f"cannot fill the required arguments of {lister}")
        return
    if _answers_one(p, lister):
        p.note("create -> list contains it", None, f"{lister} answers with one record, not a list")
        return
    members = _shown_members(p, lister)
    fields = p.spec.state_schema[effect.entity].fields
    if members and members <= set(fields) and all(row.get(m) is None for m in members):  # computed tags, by tag
        p.note("create -> list contains it", None, f"{lister} shows only {sorted(members)}, left empty in the record")
        return
    # found by its key as the state holds it, or as the listing declares the record (a text key
    # ``milestone_0013`` answered as the integer ``id`` the listing declares, as the read shows it)
    listed_as = p.spec.behaviour(lister).effect.listed  # type: ignore[union-attr]  # names, digests: the listed field
    for listed in _pages(p, lister, required, len(p.rows(effect.entity))):
        shown = (
            _shows(listed.data, row, key)
            or _holds(listed.data, _as_declared(p, lister, row))
            or (listed_as is not None and row.get(listed_as) is not None and _mentions(listed.data, row[listed_as]))
        )
        if not listed.ok or shown:
            break
    p.note("create -> list contains it", listed.ok and shown, listed.content[:200])


def _shown_members(p: Probe, lister: str) -> frozenset[str]:
    """The members a listing declares its records to show (none declared: empty)."""
    record = data_path(p.spec.tools[lister].output_schema)[1]
    return frozenset((record or {}).get("properties") or ()) if isinstance(record, dict) else frozenset()


def _pages(p: Probe, lister: str, args: JSON, rows: int) -> Iterator[Any]:
    """``lister``'s answers page by page, the largest pages it takes, as far as ``rows`` records
    reach: a listing capped at ten (``limit`` at most 10) shows the thirteenth record on its second
    page."""
    first = _max_page(p, lister)
    yield p.call(lister, {**first, **args})
    paging = p.spec.behaviour(lister).effect.paging  # type: ignore[union-attr]
    size = next(iter(first.values()), None) if first else paging.default_limit
    size = int(size) if isinstance(size, (int, str)) and str(size).isdigit() and int(size) > 0 else None
    if size is None or not (paging.page_arg or paging.offset_arg):
        return
    for page in range(2, -(-rows // size) + 1):
        turned: JSON = {paging.page_arg: page} if paging.page_arg else {str(paging.offset_arg): (page - 1) * size}
        yield p.call(lister, {**first, **args, **turned})


def _unwrapped(data: Any, schema: JSON | None) -> Any:
    """The record inside the envelopes ``schema`` declares (``{"data": {...}, "success": true}``)."""
    for key, _ in data_path(schema)[0]:
        if not isinstance(data, dict) or key not in data:
            return data
        data = data[key]
    return data


def _as_declared(p: Probe, tool: str | None, row: JSON) -> JSON:
    """``row`` as ``tool`` must show it: fitted to its declared output (runtime.conform)."""
    fit = compile_conformer(data_path(p.spec.tools[tool].output_schema)[1]) if tool else None
    shown = fit(row) if fit else row
    return shown if isinstance(shown, dict) else row


def _not_persisted(p: Probe, entity: str, row: JSON, args: JSON, skip: str | None = None) -> list[str]:
    """Arguments named like a field of the entity whose value the row does not hold (not a header).

    Aliases (Trello's ``prefs/background`` and ``prefs_background``) name one field: the row
    holds the value of one of them.
    """
    fields = p.spec.state_schema[entity].fields
    tool = p.spec.tools[p.behaviour.tool]
    sent: dict[str, list[tuple[str, Any]]] = {}
    for arg, value in args.items():
        field = matching_field(fields, arg)
        if tool.is_transport(arg):  # a header (``path``, ``hmac`` of an upload) is how it is sent, not the record
            continue
        if arg != skip and field is not None and field != _key_of(p, entity):
            sent.setdefault(field, []).append((arg, value))
    return [arg for field, pairs in sent.items() if all(row.get(field) != v for _, v in pairs) for arg, _ in pairs[:1]]


def _filters_matching(p: Probe, lister: str, row: JSON) -> JSON:
    """Arguments of ``lister``'s filters that ``row`` satisfies."""
    out: JSON = {}
    effect = p.spec.behaviour(lister).effect
    key = p.spec.state_schema[effect.entity].key  # type: ignore[union-attr]
    for f in effect.filters:  # type: ignore[union-attr]
        if f.op == "search" and f.field is None:  # a free-text search: a text the row holds, not its key, finds it
            said = next((v for k, v in row.items() if isinstance(v, str) and v.strip() and k != key), None)
            if said is not None and fits(said, p.spec.tools[lister].properties.get(f.arg) or {}):
                out[f.arg] = said
            continue
        if f.field and row.get(f.field) not in (None, [], ""):  # an empty one names nothing to look for
            value = row[f.field]
            if (
                f.op == "any"
                and isinstance(value, list)
                and primary_type(p.spec.tools[lister].properties.get(f.arg)) != "array"
            ):
                if not value:
                    continue
                value = value[0]  # one tag of the row's tags
            prop = p.spec.tools[lister].properties.get(f.arg) or {}
            many = f.op == "in" and primary_type(prop) == "array"  # ``ids: [...]``: the row's key, listed
            one = (prop.get("items") or {}) if many else prop
            if isinstance(value, (dict, list)) and primary_type(one) not in ("object", "array"):
                continue  # a tag record ``{tag, visible}`` the text filter ``tags`` names some other way
            if primary_type(one) in ("string", "integer"):  # a key 7 the parameter takes as the text "7"
                value = coerce_key(value, one)
            if not fits(value, one) or not within_range(value, one):
                continue  # Box's pending collaborations list only ``status: pending``: the row is not one
            out[f.arg] = [value] if f.op == "in" else value
    return out


def _defaulted_away(p: Probe, lister: str, row: JSON, given: JSON) -> str | None:
    """``arg=value`` where ``lister``, given none of it, filters by its declared default
    (:func:`~envfactory.runtime.behaviours.declared_defaults`, as the runtime does) that ``row`` does
    not hold, and the row's own value is not one the argument takes (MotaWord's projects listed by
    ``type`` of ``["active"]``, default ``active``): the listing cannot show the row; else ``None``."""
    effect = p.spec.behaviour(lister).effect
    if not isinstance(effect, ListEffect):
        return None
    defaults = declared_defaults(effect, p.spec.tools[lister].properties, p.spec.state_schema[effect.entity])
    fields = {f.arg: f.field or "" for f in effect.filters}
    return next((f"{arg}={value!r}" for arg, value in defaults.items()
                 if arg not in given and row.get(fields[arg]) != value), None)  # fmt: skip


def _answers_one(p: Probe, lister: str) -> bool:
    return declares_one_record(p.spec.tools[lister].output_schema)


def _max_page(p: Probe, lister: str) -> JSON:
    paging = p.spec.behaviour(lister).effect.paging  # type: ignore[union-attr]
    if not paging.limit_arg:
        return {}
    prop = p.spec.tools[lister].properties.get(paging.limit_arg, {})
    offered = [v for v in prop.get("enum") or () if isinstance(v, int) and not isinstance(v, bool)]
    most = max(offered) if offered else int(prop.get("maximum", 1000))  # ``per_page``: one of 2, 10, ..., 50
    return {paging.limit_arg: str(most) if primary_type(prop) == "string" else most}


def _mentions(data: Any, key: Any) -> bool:
    """Whether ``data`` holds ``key``; a list (the values a record holds in a field listed value by
    value) where it holds each of them."""
    if isinstance(key, list) and key:
        return all(_mentions(data, k) for k in key)
    return json.dumps(key) in json.dumps(data)


def _shows(data: Any, row: JSON, key: Any) -> bool:
    """Whether a listing shows ``row``: by its key, or (records that declare no key: dweet.io's
    dweets) by a record whose every member the row holds; a listing answered as JSON text (a
    download declared a string) read as the JSON it is."""
    data = opened_text(data)
    return _mentions(data, key) or _holds(data, row)


def _holds(data: Any, row: JSON) -> bool:
    """Whether ``data`` holds a record whose every member ``row`` holds with the same value."""
    stack, seen = [data], 0
    while stack and seen < 10_000:
        node, seen = stack.pop(), seen + 1
        if isinstance(node, dict):
            if node and all(row.get(k) == v for k, v in node.items()):
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


@PROBES.register("read")
def _probe_read(p: Probe) -> None:
    effect = p.effect(ReadEffect)
    result = p.call(p.behaviour.tool, p.args())
    p.note("read of an existing row succeeds", result.ok, result.content[:200])
    absent = _absent_key(p, effect.entity, p.spec.tools[p.behaviour.tool].properties.get(effect.key_arg) or {})
    if absent is None:
        p.note("read of a missing row is not_found", None, f"every key {effect.key_arg} allows names a row")
        return
    missing = p.call(p.behaviour.tool, p.args(**{effect.key_arg: absent}))
    p.note("read of a missing row is not_found", missing.error == "not_found", missing.content[:200])


def _absent_key(p: Probe, entity: str, prop: JSON) -> Any:
    """A key no row holds, as the tool's key parameter takes it: an integer key passed as the text
    a string parameter wants, a number within the parameter's range; None where it allows no other."""
    ent = p.spec.state_schema[entity]
    taken = {str(r.get(ent.key)) for r in p.episode.store.rows(entity)}
    key = coerce_key(ent.format_key(99_999), prop)
    if fits(key, prop) and within_range(key, prop) and str(key) not in taken:
        return key
    if isinstance(prop.get("enum"), list):
        return next((v for v in prop["enum"] if str(v) not in taken), None)
    if primary_type(prop) in ("integer", "number"):
        lo, hi = int(prop.get("minimum", 0)), int(prop.get("maximum", 99_999))
        free = (n for n in range(min(hi, lo + 100_000), lo - 1, -1) if str(n) not in taken)
        return next(free, None)
    if primary_type(prop) == "string":
        return str(key) if str(key) not in taken else None
    return key


@PROBES.register("list")
def _probe_list(p: Probe) -> None:
    tool = p.spec.tools[p.behaviour.tool]
    paging = p.effect(ListEffect).paging
    args = p.args()
    for arg, first in ((paging.offset_arg, 0), (paging.page_arg, 1)):  # a required offset: the first page
        if arg in args:
            prop = tool.properties.get(arg) or {}
            low = prop.get("minimum")
            start = low if isinstance(low, int) and low > first else first
            args[arg] = str(start) if primary_type(prop) == "string" else start
    rows = p.env.base.tables[p.effect(ListEffect).entity]
    finds = p.effect(ListEffect).finds is not None  # a look-up (``find_user_by_email``): none found is not_found
    if (finds or _answers_one(p, tool.name) or min_records(tool.output_schema)) and rows:  # ask for one that exists
        # the row the filters name most fully: one whose country the parameter's enum lacks cannot be
        # named, and a filter left out takes its declared default
        held = [f.field for f in p.effect(ListEffect).filters]
        named = [(_filters_matching(p, tool.name, row), row) for row in rows.values()]
        # fewest of its values the filters cannot take, then most it can be named by
        args.update(min(named, key=lambda n: (sum(f in n[1] for f in held) - len(n[0]), -len(n[0])))[0])
    result = p.call(p.behaviour.tool, args)
    p.note("list succeeds", result.ok, result.content[:200])
    if not tool.required and p.env.base.tables[p.effect(ListEffect).entity]:
        if declares_no_members(tool.output_schema):  # what it answers is ``{}``, whatever the rows
            p.note("list returns rows", None, "its declared answer is a closed object of no members")
            return
        p.note(
            "list returns rows",
            result.ok and result.content not in ("[]", "{}"),
            result.content[:120],
        )


@PROBES.register("update")
def _probe_update(p: Probe) -> None:
    effect = p.effect(UpdateEffect)
    args = p.args()
    key = _cast(p, effect.entity, args[effect.key_arg])
    result = p.call(p.behaviour.tool, args)
    p.note("update succeeds", result.ok, result.content[:200])
    if result.ok:
        row = p.episode.store.get(effect.entity, key) or {}
        missing = [a for a in _not_persisted(p, effect.entity, row, args, skip=effect.key_arg)
                   if a not in effect.timestamps]  # the clock sets these, whatever the caller sent  # fmt: skip
        p.note("update persists", not missing, f"not stored: {missing}" if missing else "")


def _cast(p: Probe, entity: str, value: Any) -> Any:
    from envfactory.runtime.behaviours import key_caster

    return key_caster(p.spec.state_schema[entity])(value)


@PROBES.register("delete")
def _probe_delete(p: Probe) -> None:
    effect = p.effect(DeleteEffect)
    if effect.by is not None:
        _probe_delete_by(p, effect)
        return
    args = p.args()
    result = p.call(p.behaviour.tool, args)
    p.note("delete succeeds", result.ok, result.content[:200])
    again = p.read(effect.entity, args[effect.key_arg]) if result.ok else None
    if again is not None:
        p.note("delete -> read is not_found", again.error == "not_found", again.content[:200])
    again = p.call(p.behaviour.tool, args)
    p.note("deleting twice is not_found", again.error == "not_found", again.content[:200])


def _probe_delete_by(p: Probe, effect: DeleteEffect) -> None:
    """A delete by a reference takes the latest matching row, one per call, until none is left."""
    by = effect.by or ""
    row = pick_row(p.episode.store, effect.entity, p.maker.rng, lambda r: r.get(by) is not None)
    if row is None:
        p.note("delete succeeds", None, f"no {effect.entity} holds a {by}")
        return
    args = {**p.args(), effect.key_arg: row[by]}
    matching = sum(1 for r in p.episode.store.rows(effect.entity) if r.get(by) == row[by])
    for _ in range(matching):
        result = p.call(p.behaviour.tool, args)
        p.note("delete succeeds", result.ok, result.content[:200])
    left = sum(1 for r in p.episode.store.rows(effect.entity) if r.get(by) == row[by])
    p.note(f"every {effect.entity} with that {by} is gone", left == 0, f"{left} left")
    again = p.call(p.behaviour.tool, args)
    p.note("deleting when none is left is not_found", again.error == "not_found", again.content[:200])


@PROBES.register("action")
def _probe_action(p: Probe) -> None:
    effect = p.effect(ActionEffect)
    row = pick_row(p.episode.store, effect.entity, p.maker.rng, action_ready(effect))
    if row is None:
        row = _prepare_row(p, effect)
    if row is None:
        p.note(
            "action changes the state",
            None,
            f"no {effect.entity} can be put in a state that allows it",
        )
        return
    key = row[_key_of(p, effect.entity)]
    # the key as the tool's parameter takes it (a number where the others take its digits)
    args = p.args(
        **{effect.key_arg: coerce_key(key, p.spec.tools[p.behaviour.tool].properties.get(effect.key_arg) or {})}
    )
    result = p.call(p.behaviour.tool, args)
    after = p.episode.store.get(effect.entity, key) or {}
    p.note(
        "action changes the state",
        result.ok and after.get(effect.field) == effect.to,
        result.content[:200],
    )
    again = p.call(p.behaviour.tool, args)
    p.note(
        "repeating the action is refused",
        again.error in ("conflict", "precondition_failed"),
        again.content[:200],
    )


def _prepare_row(p: Probe, effect: Any) -> JSON | None:
    """Put some row into a state the action may start from (setup, not part of the check)."""
    enum = p.spec.state_schema[effect.entity].fields[effect.field].get("enum") or []
    ready = action_ready(effect)
    start = next((v for v in (effect.allowed_from or enum) if ready({effect.field: v})), None)
    row = pick_row(p.episode.store, effect.entity, p.maker.rng, lambda r: True)
    if start is None or row is None:
        return None
    row = {**row, effect.field: start}
    p.episode.store.put(effect.entity, row[_key_of(p, effect.entity)], row)
    return row


@PROBES.register("transfer")
def _probe_transfer(p: Probe) -> None:
    effect = p.effect(TransferEffect)
    store = p.episode.store
    usable = [
        r for r in store.rows(effect.entity) if not effect.status_field or r.get(effect.status_field) in effect.usable
    ]
    usable = [r for r in usable if isinstance(r.get(effect.field), (int, float))]
    usable.sort(key=lambda r: -r[effect.field])
    if len(usable) < 2:
        p.note("transfer moves the amount", None, "fewer than two usable rows")
        return
    src, dst = usable[0], usable[1]
    key = _key_of(p, effect.entity)
    amount = 1 if isinstance(src[effect.field], int) else 1.5
    args = p.args(**{effect.from_arg: src[key], effect.to_arg: dst[key], effect.amount_arg: amount})
    result = p.call(p.behaviour.tool, args)
    new_src, new_dst = store.get(effect.entity, src[key]), store.get(effect.entity, dst[key])
    moved = (
        result.ok
        and new_src
        and new_dst
        and abs(new_src[effect.field] - (src[effect.field] - amount)) < 1e-6
        and abs(new_dst[effect.field] - (dst[effect.field] + amount)) < 1e-6
    )
    p.note("transfer moves the amount", bool(moved), result.content[:200])
    too_much = p.call(p.behaviour.tool, {**args, effect.amount_arg: (new_src or src)[effect.field] + 1000})
    p.note("overdraft is refused", too_much.error == "precondition_failed", too_much.content[:200])


@PROBES.register("fallback")
def _probe_fallback(p: Probe) -> None:
    args = p.args()
    if p.effect(FallbackEffect).writes:
        refused = p.call(p.behaviour.tool, args)
        p.note("refuses a write it cannot simulate", refused.error == "unsupported", refused.content[:200])
        return
    first = p.call(p.behaviour.tool, args)
    second = p.call(p.behaviour.tool, args)
    p.note(
        "answers deterministically",
        first.ok and first.content == second.content,
        first.content[:200],
    )


@PROBES.register("bound")
@PROBES.register("served")
def _probe_bound(p: Probe) -> None:
    result = p.call(p.behaviour.tool, p.args())
    p.note("the implementation answers", None if not result.ok else True, result.content[:200])


def self_check(
    spec: EnvSpec, *, env: Environment | None = None, seed: int = 0, trust_code: bool = False
) -> FidelityReport:
    """Run every tool's checks twice; the second run must give the same bytes."""
    from envfactory.synth import (  # noqa: F401
        selfcheck_batch,
        selfcheck_code,
        selfcheck_compute,
        selfcheck_count,
        selfcheck_shell,
        selfcheck_tree,
    )

    env = env or Environment(spec, trust_code=trust_code)
    first = [_run_probe(env, b, seed) for b in spec.behaviours]
    second = [_run_probe(env, b, seed) for b in spec.behaviours]
    deterministic = [t for _, t in first] == [t for _, t in second]
    tools = [f for f, _ in first]
    bound = [i for i, f in enumerate(tools) if f.kind in ("bound", "served")]
    if bound and not any(c.status == "pass" for i in bound for c in tools[i].checks):
        # no bound tool answered anything: a class missing its scenario, a broken import
        first_bound = tools[bound[0]]
        failed = Check(name="the implementation answers some call", status="fail",
                       detail="every call to every bound tool returned an error")  # fmt: skip
        tools[bound[0]] = first_bound.model_copy(update={"checks": (*first_bound.checks, failed)})
    return FidelityReport(env=spec.name, deterministic=deterministic, tools=tuple(tools))


def _run_probe(env: Environment, behaviour: Behaviour, seed: int) -> tuple[ToolFidelity, list[str]]:
    probe = Probe(env, behaviour, seed)
    PROBES[behaviour.effect.kind](probe)
    transcript = [*probe.transcript, probe.episode.state_hash()]
    return (
        ToolFidelity(
            tool=behaviour.tool,
            kind=behaviour.effect.kind,
            entity=getattr(behaviour.effect, "entity", None),
            fidelity="real" if behaviour.prior == "real" else "unmeasured",
            low_fidelity=behaviour.low_fidelity,
            prior=behaviour.prior,
            checks=tuple(probe.checks),
            notes=behaviour.notes,
        ),
        transcript,
    )

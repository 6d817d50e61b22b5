"""Executors: one compiled function per tool, from its Effect (a registry keyed by kind).

An executor takes the episode's :class:`CallContext` and validated arguments and returns a
JSON-able value, or raises :class:`~envfactory.runtime.result.ToolError`. Everything that can
be decided ahead of time (field maps, filters, key types) is decided at compile time.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from envfactory.core import ErrorCode
from envfactory.ir.effect import (
    WILDCARDS,
    ActionEffect,
    AdjustEffect,
    BoundEffect,
    CreateEffect,
    DeleteEffect,
    FallbackEffect,
    Filter,
    KeyFormat,
    KeySlug,
    ListEffect,
    Order,
    ReadEffect,
    Split,
    TransferEffect,
    UpdateEffect,
    WhereEffect,
    folded,
    may_leave,
)
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import declares_one_record, keyed_map_record, lists_values, min_records, primary_type
from envfactory.ir.state import SINGLETON_ROW, Entity, StateSchema
from envfactory.ir.tool import ToolSpec
from envfactory.registry import Registry
from envfactory.runtime.replies import reply_error
from envfactory.runtime.result import ToolError
from envfactory.runtime.store import Store, clone

JSON = dict[str, Any]


@dataclass(slots=True)
class CallContext:
    store: Store
    now: Callable[[], str]
    seed: int
    owner: Any = None  # the user's object, for bound behaviours
    fallback: Callable[[str, JSON], Any] | None = None
    raw: Any = None  # what the last effect produced before a learned answer worded it (for learning)
    shaped: Any = None  # that, shaped as the tool declares: what a learned answer's ``{out}`` fills from


Executor = Callable[[CallContext, JSON], Any]
Compiler = Callable[[Any, ToolSpec, "EnvSpec"], Executor]
COMPILERS: Registry[Compiler] = Registry("behaviour kind")
COMPILERS.defer("served", "envfactory.real.served")  # a live server's executor, with its sessions


def compile_executor(effect: Any, tool: ToolSpec, spec: EnvSpec) -> Executor:
    return COMPILERS[effect.kind](effect, tool, spec)


def key_caster(entity: Entity) -> Callable[[Any], Any]:
    """A key argument as the rows hold keys: digits as the integer an integer key is, a number as the
    text a text key is; a list or an object, which no row's key is, as its JSON text (naming no row)."""
    if entity.key_type == "integer":
        return lambda v: int(v) if isinstance(v, str) and v.lstrip("-").isdigit() else _hashable(v)
    return lambda v: str(v) if isinstance(v, int) and not isinstance(v, bool) else _hashable(v)


def key_finder(entity: Entity) -> Callable[[Store, Any], Any]:
    """A key argument as the key of the record it names: as :func:`key_caster` casts it; where the
    entity's records are also named by a field (``named_by``: "ID or name of the container"), a value
    no key matches is the key of the latest record whose field holds it."""
    cast, field, name = key_caster(entity), entity.named_by, entity.name
    if field is None:
        return lambda store, v: cast(v)
    key_field = entity.key

    def find(store: Store, value: Any) -> Any:
        key = cast(value)
        if store.get(name, key) is not None or not isinstance(value, str):
            return key
        held = _latest_holding(store, name, field, value)
        return held.get(key_field, key) if held is not None else key

    return find


def _hashable(value: Any) -> Any:
    return _norm(value) if isinstance(value, (list, dict)) else value  # its JSON text


def key_formatter(entity: Entity) -> Callable[[int], Any]:
    """``entity.format_key``, without the method's tests on every key where they decide nothing."""
    if entity.key_type == "integer":
        return int
    if entity.key_schema:
        return entity.format_key
    prefix = entity.key_prefix
    return lambda n: f"{prefix}_{n:04d}"


def _label(entity: Entity, key: Any) -> str:
    return f"{entity.name.replace('_', ' ')} {key!r}"


def _fetch(store: Store, entity: Entity, key: Any) -> JSON:
    row = store.get(entity.name, key)
    if row is None:
        raise ToolError("not_found", f"{_label(entity, key)} not found")
    return row


def ref_checks(entity: Entity, schema: StateSchema, unchecked: tuple[str, ...] = ()
               ) -> dict[str, tuple[Entity, Callable[[Any], Any]]]:  # fmt: skip
    """Field -> (the entity it refers to, a caster to that entity's key type), but the ``unchecked``."""
    return {f: (schema[t], key_caster(schema[t])) for f, t in entity.refs.items() if t in schema and f not in unchecked}


def check_refs(store: Store, refs: dict[str, tuple[Entity, Callable[[Any], Any]]], row: JSON, fields: Any) -> None:
    """Every value ``row`` holds in ``fields`` (one, or a list of them) names a row that exists, else ``not_found``."""
    for field in fields:
        ref = refs.get(field)
        if ref is None or row.get(field) is None:
            continue
        target, cast = ref
        values = row[field] if isinstance(row[field], list) else [row[field]]
        for value in values:
            if store.get(target.name, cast(value)) is None:
                raise ToolError("not_found", f"{_label(target, value)} not found (argument for {field!r})")


def _assign(row: JSON, args: JSON, mapping: dict[str, str], splits: dict[str, Split] | None = None) -> list[str]:
    written = []
    for arg, field in mapping.items():
        if arg in args:
            value = args[arg]
            if splits and arg in splits and isinstance(value, str):
                value = split_text(value, splits[arg])
            row[field] = clone(value) if isinstance(value, (dict, list)) else value
            written.append(field)
    return written


def split_text(text: str, order: Split) -> list[str]:
    """A comma-separated text as the list of its parts: each stripped, empty ones and repeats dropped,
    in the order given or sorted (``" work, urgent,,work"`` -> ``["work", "urgent"]``)."""
    parts = list(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    return sorted(parts) if order == "sorted" else parts


def _save(ctx: CallContext, entity: Entity, key: Any, row: JSON, timestamps: tuple[str, ...]) -> JSON:
    """Stamp the clock fields of a changed row and write it to the episode's overlay."""
    for field in timestamps:
        row[field] = ctx.now()
    ctx.store.put(entity.name, key, row)
    return row


@COMPILERS.register("create")
def _create(effect: CreateEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    schema = spec.state_schema
    entity = schema[effect.entity]
    refs, cast, order = ref_checks(entity, schema, effect.unchecked), key_caster(entity), tuple(entity.fields)
    mapping = {a: f for a, f in effect.args.items() if f != entity.key}
    defaults = dict(effect.defaults)

    body = {m: f for m, f in effect.body.items() if f != entity.key}
    body_key = next((m for m, f in effect.body.items() if f == entity.key), None)
    # what each call reads of the effect and entity, read once (every step below that has nothing to do is skipped)
    name, key_field, format_key = entity.name, entity.key, key_formatter(entity)
    body_arg, key_arg, consumes, timestamps = effect.body_arg, effect.key_arg, dict(effect.consumes), effect.timestamps
    spread = effect.spread
    replaces = next(((a, f) for a, f in mapping.items() if f == effect.replaces), None)  # (argument, field)
    signed = [(field, *source.partition(".")[::2]) for field, source in effect.signed.items()]  # (field, holder, held)
    copied = [(field, default, isinstance(default, (dict, list))) for field, default in defaults.items()]
    splits = dict(effect.splits)
    unique = [(a, f) for a, f in mapping.items() if f in effect.unique]  # (argument, field) no two records share
    numbered = list(effect.numbered.items())  # (field, scope)
    worded = effect.key_format  # the key worded as the real side words it
    slug = effect.key_slug  # the key made of an argument's text
    scope_arg = next((a for a, f in mapping.items() if worded and f == worded.scope), None)

    def run(ctx: CallContext, args: JSON) -> JSON:
        store = ctx.store
        for arg, field in unique:
            if _holding(store, name, arg, field, args) is not None:
                raise ToolError("conflict", f"a {name} with {field} {args[arg]!r} already exists")
        wrapped = args.get(body_arg) if body_arg else None
        wrapped = wrapped if isinstance(wrapped, dict) else {}
        given = args.get(key_arg) if key_arg else None
        given = wrapped.get(body_key) if given is None and body_key else given
        over = _holding(store, name, *replaces, args) if replaces is not None else None
        if over is not None:  # saved over the record holding the value, under its key
            key = over[key_field]
        elif given is not None:
            key = cast(given)
            if store.get(name, key) is not None:
                raise ToolError("conflict", f"{_label(entity, key)} already exists")
        elif slug is not None and (made := slugged(slug, args.get(slug.arg))) is not None:
            key = made
            if store.get(name, key) is not None:
                raise ToolError("conflict", f"{_label(entity, key)} already exists")
        elif worded is not None:
            key = formatted_key(worded, store.rows(name), key_field, args.get(scope_arg) if scope_arg else None)
        else:
            key = store.next_key(name, format_key)
            if key is None:
                raise ToolError("conflict", f"no {name} can be added: every key it may have is taken")
        values: JSON = {key_field: key}
        written = _assign(values, args, mapping, splits)
        if wrapped and body:
            written += _assign(values, wrapped, body)
        if refs:
            check_refs(store, refs, values, written)
        if consumes:
            _adjust_counters(store, refs, values, consumes, -1)
        for field in timestamps:
            values.setdefault(field, ctx.now())
        for field, holder, held in signed:  # who created it: the signed-in user
            if field not in values and (signer := (store.get(holder, SINGLETON_ROW) or {}).get(held)) is not None:
                values[field] = clone(signer)
        for field, default, mutable in copied:
            if field not in values:
                values[field] = clone(default) if mutable else default
        for field, scope in numbered:
            values[field] = next_number(store.rows(name), field, scope, values.get(scope))
        if over is None:
            row = {f: values[f] for f in order if f in values}
        else:  # what the create does not set stays as it was
            row = {f: values[f] if f in values else over[f] for f in order if f in values or f in over}
        if spread is not None and isinstance(members := args.get(spread), dict):  # the record's own free fields
            row.update({m: clone(v) for m, v in members.items() if m != key_field and m not in row})
        store.put(name, key, row)
        return row

    return run


def next_number(rows: Any, field: str, scope: str, value: Any) -> int:
    """1 + the largest whole number ``field`` holds among ``rows`` whose ``scope`` holds ``value``
    (1 where none does)."""
    held = [n for r in rows if r.get(scope) == value and isinstance(n := r.get(field), int) and not isinstance(n, bool)]
    return max(held, default=0) + 1


def formatted_key(fmt: KeyFormat, rows: Any, key_field: str, scope: Any = None) -> str:
    """The key a create mints, worded by ``fmt``: its head (``s``; with a scope value, the value and
    ``within``: ``s01t``) and 1 + the largest number a key of ``rows`` with that head ends in — among
    the rows holding the same scope value, where ``fmt`` has a scope —, zero-padded to its width."""
    scoped = fmt.scope is not None
    head = f"{scope}{fmt.within}" if scoped and scope is not None else fmt.head
    numbers = [
        int(tail) for r in rows
        if not scoped or r.get(fmt.scope) == scope
        if isinstance(k := r.get(key_field), str) and k.startswith(head) and (tail := k[len(head):]).isdigit()
    ]  # fmt: skip
    return f"{head}{max(numbers, default=0) + 1:0{fmt.width}d}"


def slugged(fmt: KeySlug, text: Any) -> str | None:
    """The key ``fmt`` makes of ``text`` (``None``: no text, or no letter or digit in it)."""
    if not isinstance(text, str):
        return None
    words = _NOT_WORD.sub(fmt.joiner, text.lower()).strip(fmt.joiner)
    return f"{fmt.head}{words}{fmt.tail}" if words else None


_NOT_WORD = re.compile(r"[\W_]+")  # what a slug joins: every run of characters but letters and digits


def _holding(store: Store, entity: str, arg: str, field: str, args: JSON) -> JSON | None:
    """The record whose ``field`` holds what ``arg`` gives, if any (the latest, should several)."""
    wanted = args.get(arg)
    return None if wanted is None else _latest_holding(store, entity, field, wanted)


def _latest_holding(store: Store, entity: str, field: str, value: Any) -> JSON | None:
    """The latest record of ``entity`` whose ``field`` holds ``value``, if any."""
    found = [row for row in store.rows(entity) if row.get(field) == value]
    return found[-1] if found else None


@COMPILERS.register("read")
def _read(effect: ReadEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    schema = spec.state_schema
    entity = schema[effect.entity]
    find, key_arg = key_finder(entity), effect.key_arg
    return lambda ctx, args: _fetch(ctx.store, entity, find(ctx.store, args.get(key_arg)))


@COMPILERS.register("update")
def _update(effect: UpdateEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    schema = spec.state_schema
    entity = schema[effect.entity]
    refs, find = ref_checks(entity, schema, effect.unchecked), key_finder(entity)
    mapping = {a: f for a, f in effect.args.items() if f != entity.key}
    key_arg, patch_arg, timestamps = effect.key_arg, effect.patch_arg, effect.timestamps
    when = list(effect.when.items())
    splits = dict(effect.splits)

    def run(ctx: CallContext, args: JSON) -> JSON:
        key = find(ctx.store, args.get(key_arg))
        row = dict(_fetch(ctx.store, entity, key))
        for field, allowed in when:  # "modify a pending order": only while it is pending
            if row.get(field) not in allowed:
                raise ToolError("precondition_failed", f"cannot {tool.name}: {_label(entity, key)} has {field} "
                                f"{row.get(field)!r} (needs {' or '.join(map(repr, allowed))})")  # fmt: skip
        written = _assign(row, args, mapping, splits)
        patch = args.get(patch_arg) if patch_arg else None
        if isinstance(patch, dict):  # members that are not fields of the row are left alone
            written += _assign(row, patch, effect.patch)
        if refs:
            check_refs(ctx.store, refs, row, written)
        return _save(ctx, entity, key, row, timestamps)

    return run


@COMPILERS.register("delete")
def _delete(effect: DeleteEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    schema = spec.state_schema
    entity = schema[effect.entity]
    find = key_finder(entity)
    echo_row = tool.output_schema is not None

    def run(ctx: CallContext, args: JSON) -> JSON:
        if effect.by is None:
            key = find(ctx.store, args.get(effect.key_arg))
            row = _fetch(ctx.store, entity, key)
        else:
            wanted = args.get(effect.key_arg)
            latest = _latest_holding(ctx.store, entity.name, effect.by, wanted)
            if latest is None:
                raise ToolError("not_found", f"no {entity.name} with {effect.by} {wanted!r}")
            row, key = latest, latest[entity.key]
        ctx.store.delete(entity.name, key)
        return row if echo_row else {"deleted": True, entity.key: key}

    return run


@COMPILERS.register("where")
def _where(effect: WhereEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    entity = spec.state_schema[effect.entity]
    predicates = compile_filters(effect.filters, entity)
    conditions = [f.arg for f in effect.filters if f.op == "members"]
    set_arg, name, key_field = effect.set_arg, entity.name, entity.key
    counted = "deleted" if effect.delete else "updated"

    def run(ctx: CallContext, args: JSON) -> JSON:
        if conditions and not any(isinstance(args.get(a), dict) and args[a] for a in conditions):
            raise ToolError("invalid_arguments", f"{tool.name}: no condition in {', '.join(map(repr, conditions))}; "
                            f"it would reach every {name.replace('_', ' ')}")  # fmt: skip
        changes = args.get(set_arg) if set_arg else None
        if set_arg and (not isinstance(changes, dict) or not changes):
            raise ToolError("invalid_arguments", f"{tool.name}: nothing to set in {set_arg!r}")
        rows = ctx.store.row_list(name)
        for arg, keep in predicates:
            if args.get(arg) is not None:
                rows = keep(rows, args[arg])
        for row in rows:
            key = row[key_field]
            if effect.delete:
                ctx.store.delete(name, key)
            else:
                written = {m: clone(v) for m, v in changes.items() if m != key_field}  # type: ignore[union-attr]
                ctx.store.put(name, key, {**row, **written})
        return {counted: len(rows)}

    return run


def _allowed_hint(allowed: frozenset[Any] | None) -> str:
    return f" (allowed from: {', '.join(sorted(allowed))})" if allowed is not None else ""


ALREADY = "is already"  # an action's refusal of a record already set to its value says this (learning reads it)


@COMPILERS.register("action")
def _action(effect: ActionEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    schema = spec.state_schema
    entity = schema[effect.entity]
    find, verb = key_finder(entity), tool.name.replace("_", " ")
    allowed = frozenset(effect.allowed_from) if effect.allowed_from is not None else None
    forbidden = folded(effect.forbidden_from)
    refs = ref_checks(entity, schema)
    key_arg, field, to, again, assigned, releases = (effect.key_arg, effect.field, effect.to, effect.again,
                                                     dict(effect.args), dict(effect.releases))  # fmt: skip
    to_folded = to.casefold() if isinstance(to, str) else None
    try:  # the refusal's hint, made once
        hint: str | None = _allowed_hint(allowed)
    except TypeError:  # members that do not sort or join: the refusal fails as it did (made on the call)
        hint = None
    close_children = _children(effect, entity, verb) if effect.children is not None else None
    reported = effect.children.reported_as if effect.children is not None else None

    def run(ctx: CallContext, args: JSON) -> JSON:
        key = find(ctx.store, args.get(key_arg))
        row = _fetch(ctx.store, entity, key)
        current = row.get(field)
        same = current == to or (to_folded is not None and isinstance(current, str) and current.casefold() == to_folded)
        if same and not again:
            raise ToolError("conflict", f"{_label(entity, key)} {ALREADY} {to!r}")
        if not may_leave(current, allowed, forbidden):
            said = hint if hint is not None else _allowed_hint(allowed)
            label = _label(entity, key)
            raise ToolError("precondition_failed", f"cannot {verb}: {label} has {field} {current!r}{said}")
        changed = close_children(ctx, args, key) if close_children is not None else []
        new = {**row, field: to}
        if assigned:
            _assign(new, args, assigned)
        if releases:
            _adjust_counters(ctx.store, refs, row, releases, +1)
        saved = _save(ctx, entity, key, new, effect.timestamps)
        return {**saved, reported: changed} if changed and reported else saved

    return run


def _children(effect: ActionEffect, entity: Entity, verb: str) -> Callable[[CallContext, JSON, Any], list[Any]]:
    """What an action with :class:`~envfactory.ir.effect.Children` does to the records under the one
    it changes: refuses while any is open, or (forced) sets them too and answers their keys."""
    rule = effect.children
    assert rule is not None
    field, to, blocking = effect.field, effect.to, frozenset(rule.blocking)

    def close(ctx: CallContext, args: JSON, key: Any) -> list[Any]:
        under = [r for r in ctx.store.rows(entity.name)
                 if r.get(rule.parent) == key and _hashable(r.get(field)) in blocking]  # fmt: skip
        if not under:
            return []
        if rule.force_arg is None or args.get(rule.force_arg) is not True:
            open_keys = ", ".join(repr(r.get(entity.key)) for r in under)
            told = f"; give {rule.force_arg}=true to {verb} them too" if rule.force_arg else ""
            raise ToolError("precondition_failed", f"cannot {verb}: {_label(entity, key)} has open records under it "
                            f"({open_keys}){told}")  # fmt: skip
        for r in under:
            _save(ctx, entity, r.get(entity.key), {**r, field: to}, effect.timestamps)
        return [r.get(entity.key) for r in under]

    return close


@COMPILERS.register("transfer")
def _transfer(effect: TransferEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    schema = spec.state_schema
    entity = schema[effect.entity]
    cast, field = key_caster(entity), effect.field
    record = _create(effect.record, tool, spec) if effect.record else None

    def run(ctx: CallContext, args: JSON) -> Any:
        amount = args.get(effect.amount_arg)
        if not isinstance(amount, (int, float)) or isinstance(amount, bool) or amount <= 0:
            raise ToolError("invalid_arguments", f"argument {effect.amount_arg!r} must be a positive number")
        src_key, dst_key = cast(args.get(effect.from_arg)), cast(args.get(effect.to_arg))
        if src_key == dst_key:
            raise ToolError("precondition_failed", f"cannot transfer from {_label(entity, src_key)} to itself")
        src, dst = _fetch(ctx.store, entity, src_key), _fetch(ctx.store, entity, dst_key)
        if effect.status_field:
            for key, row in ((src_key, src), (dst_key, dst)):
                if row.get(effect.status_field) not in effect.usable:
                    state = row.get(effect.status_field)
                    raise ToolError(
                        "precondition_failed",
                        f"{_label(entity, key)} is {state!r}; transfers need {' or '.join(effect.usable)}",
                    )
        balance = src.get(field) or 0
        if balance < amount:
            raise ToolError(
                "precondition_failed",
                f"insufficient {field}: {_label(entity, src_key)} has {balance}, needs {amount}",
            )
        ctx.store.put(entity.name, src_key, {**src, field: _money(balance - amount)})
        ctx.store.put(entity.name, dst_key, {**dst, field: _money((dst.get(field) or 0) + amount)})
        if record is not None:
            return record(ctx, args)
        return {
            "status": "completed",
            effect.from_arg: src_key,
            effect.to_arg: dst_key,
            effect.amount_arg: amount,
        }

    return run


@COMPILERS.register("adjust")
def _adjust(effect: AdjustEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    entity = spec.state_schema[effect.entity]
    find, field = key_finder(entity), effect.field

    def run(ctx: CallContext, args: JSON) -> JSON:
        amount = args.get(effect.amount_arg)
        if not isinstance(amount, (int, float)) or isinstance(amount, bool) or amount <= 0:
            raise ToolError("invalid_arguments", f"argument {effect.amount_arg!r} must be a positive number")
        key = find(ctx.store, args.get(effect.key_arg))
        row = _fetch(ctx.store, entity, key)
        current = row.get(field) or 0
        new = current + effect.sign * amount
        if new < 0:
            raise ToolError("precondition_failed", f"insufficient {field}: {_label(entity, key)} has {current}")
        row = {**row, field: _money(new)}
        ctx.store.put(entity.name, key, row)
        return row

    return run


def _money(value: float | int) -> float | int:
    return round(value, 2) if isinstance(value, float) else value


@COMPILERS.register("fallback")
def _fallback(effect: FallbackEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    needs = {arg: (spec.state_schema[e], key_caster(spec.state_schema[e])) for arg, e in effect.needs.items()}

    def run(ctx: CallContext, args: JSON) -> Any:
        for arg, (entity, cast) in needs.items():
            if arg in args:
                _fetch(ctx.store, entity, cast(args[arg]))
        if effect.writes:
            raise ToolError(
                "unsupported",
                f"{tool.name}: this environment cannot simulate what it changes ({effect.reason}); nothing was done",
            )
        if ctx.fallback is None:
            return {"status": "ok"}
        return ctx.fallback(tool.name, args)

    return run


# exceptions that say the implementation is broken, not that it refuses the call
_BUGS = (AttributeError, NameError, ZeroDivisionError, AssertionError, RecursionError)


@COMPILERS.register("bound")
def _bound(effect: BoundEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    method = effect.target.rsplit(".", 1)[-1].rsplit(":", 1)[-1]

    def run(ctx: CallContext, args: JSON) -> Any:
        if ctx.owner is None:
            raise ToolError("precondition_failed", f"no implementation is bound for {tool.name!r}")
        func = getattr(ctx.owner, method)
        try:
            result = func(**tool.wrap(args))  # as its callers send them: wrapped, where the tool takes them so
        except LookupError as err:
            raise ToolError("not_found", _describe(err)) from None
        except (ValueError, TypeError) as err:
            raise ToolError("invalid_arguments", _describe(err)) from None
        except _BUGS as err:  # the code itself is broken (BFCL's search over a scenario it cannot read)
            raise ToolError("internal_error", f"the implementation failed: {_describe(err)}") from None
        except Exception as err:  # the user's code: report, never crash the episode
            raise ToolError("precondition_failed", _describe(err)) from None
        refused = returned_error(result, args)
        if refused is not None:
            raise refused
        return to_jsonable(result)

    return run


def _adjust_counters(
    store: Store, refs: dict[str, tuple[Entity, Callable[[Any], Any]]], row: JSON, counters: dict[str, str], step: int
) -> None:
    """Take (``step`` -1) or give back (+1) units of each counter on the rows ``row`` refers to —
    the row's ``quantity`` when it has one, else one; taking more than is left is refused before
    anything changes."""
    quantity = row.get("quantity")
    units = quantity if isinstance(quantity, int) and not isinstance(quantity, bool) and quantity > 0 else 1
    updates = []
    for field, counter in counters.items():
        target = refs.get(field)
        if target is None or row.get(field) is None:
            continue
        entity, cast = target
        key = cast(row[field])
        parent = store.get(entity.name, key)
        left = parent.get(counter) if parent is not None else None
        if not isinstance(left, (int, float)) or isinstance(left, bool):
            continue
        if step < 0 and left < units:
            raise ToolError(
                "precondition_failed", f"{_label(entity, key)} has {left} {counter.replace('_', ' ')}, {units} needed"
            )
        updates.append((entity.name, key, {**parent, counter: left + step * units}))  # type: ignore[dict-item]
    for name, key, new in updates:
        store.put(name, key, new)


# words of an error message -> the error class it reports
_ERROR_WORDS: tuple[tuple[str, ErrorCode], ...] = (
    ("not found", "not_found"), ("does not exist", "not_found"), ("no such", "not_found"), ("not exist", "not_found"),
    ("already exists", "conflict"), ("already", "conflict"), ("duplicate", "conflict"),
    ("invalid", "invalid_arguments"), ("must be", "invalid_arguments"),
    ("timeout", "transient"), ("timed out", "transient"), ("try again", "transient"),
)  # fmt: skip


def returned_error(result: Any, args: JSON | None = None) -> ToolError | None:
    """A reply that is a refusal dressed as an answer (``{"error": "message"}``, ``success: false``,
    ``"Error: ..."``: :func:`envfactory.runtime.replies.reply_error`), as the tool error it is; the
    error class is read from the message."""
    message = reply_error(result, args)
    return None if message is None else ToolError(error_class(message), message)


def error_class(message: str) -> ErrorCode:
    """The error class a refusal's message reports ("... not found", "... already exists"), else
    ``precondition_failed``."""
    low = message.lower()
    return next((c for words, c in _ERROR_WORDS if words in low), "precondition_failed")


def _describe(err: Exception) -> str:
    text = str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err)
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def to_jsonable(value: Any) -> Any:
    """Plain JSON from pydantic models, dataclasses, tuples and the like; a set's members sorted."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if hasattr(value, "__dataclass_fields__") and not inspect.isclass(value):
        from dataclasses import asdict

        return asdict(value)
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):  # in an order of its own: a set's iteration order follows the hash seed
        return sorted((to_jsonable(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True, default=str))
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return value


RowFilter = Callable[[list[JSON], Any], list[JSON]]


def compile_filters(filters: tuple[Filter, ...], entity: Entity) -> list[tuple[str, RowFilter]]:
    """(argument, keep(rows, value): the rows the filter keeps for that value) pairs for a list
    tool. What depends on the value alone (its case-folded text, the set of values asked for) is
    worked out once per call, not once per row."""
    text_fields = [f for f, s in entity.fields.items() if s.get("type") == "string"]
    out = []
    for flt in filters:
        out.append((flt.arg, _row_filter(flt, text_fields)))
    return out


def _names(record: JSON, wanted: set[Any]) -> bool:
    """Whether a record in a list is named by one of ``wanted``: a tag ``{"name": "urgent", "id": 3}``
    by ``"urgent"`` or ``3``, one of its plain values."""
    return any(_norm(v) in wanted for v in record.values() if not isinstance(v, (dict, list)))


def _norm(value: Any) -> Any:
    """A comparable, hashable form: case-folded text; JSON text for objects and lists; a whole
    number as its digits, so the text a path or query parameter passes (``/services/{id}: string``)
    names the record keyed ``7``, as a key passed as text does."""
    if isinstance(value, str):
        return value.casefold()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, default=str)
    return value


def _row_filter(flt: Filter, text_fields: list[str]) -> RowFilter:
    field = flt.field or ""
    if flt.op == "search":

        def search(rows: list[JSON], v: Any) -> list[JSON]:
            needle, out = str(v).casefold(), []
            for r in rows:
                for f in text_fields:
                    x = r.get(f)
                    if isinstance(x, str) and needle in x.casefold():
                        out.append(r)
                        break
            return out

        return search
    if flt.op == "contains":

        def contains(rows: list[JSON], v: Any) -> list[JSON]:
            needle = str(v).casefold()
            return [r for r in rows if isinstance(r.get(field), str) and needle in r[field].casefold()]

        return contains
    if flt.op == "in":

        def among(rows: list[JSON], v: Any) -> list[JSON]:
            wanted = {_norm(x) for x in (v if isinstance(v, list) else [v])}
            return [r for r in rows if _norm(r.get(field)) in wanted]

        return among
    if flt.op == "any":

        def any_of(rows: list[JSON], v: Any) -> list[JSON]:
            wanted = {_norm(x) for x in (v if isinstance(v, list) else [v])}
            return [r for r in rows if {_norm(x) for x in r.get(field) or ()} & wanted
                    or any(isinstance(x, dict) and _names(x, wanted) for x in r.get(field) or ())]  # fmt: skip

        return any_of
    if flt.op == "unless":
        return lambda rows, v: rows if v is True else [r for r in rows if not r.get(field)]
    if flt.op == "members":
        return _members(flt.field)
    if flt.op == "gte":
        return lambda rows, v: [
            r for r in rows if r.get(field) is not None and _comparable(r[field], v) and r[field] >= v
        ]
    if flt.op == "lte":
        return lambda rows, v: [
            r for r in rows if r.get(field) is not None and _comparable(r[field], v) and r[field] <= v
        ]

    def equal(rows: list[JSON], v: Any) -> list[JSON]:
        want = _norm(v)  # a row's text is case-folded inline: _norm of a str
        if type(v) is list:  # ``modes: ["tube", "dlr"]`` for a row's one mode: any of them; a list field, the list
            among = {_norm(x) for x in v}
            return [r for r in rows if (_norm(x) == want if type(x := r.get(field)) is list else _norm(x) in among)]
        truth = v if type(v) is bool else _TRUTH.get(want)  # ``?error=false``, ``up: 1`` for a yes-or-no field
        return [r for r in rows if (x is truth if type(x := r.get(field)) is bool
                                    else (x.casefold() if type(x) is str else _norm(x)) == want)]  # fmt: skip

    return equal


# a yes-or-no as a query string or a number gives it (``?error=false``, ``up: 1``), as _norm leaves it
_TRUTH: dict[Any, bool] = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


def _members(field: str | None) -> RowFilter:
    """Rows holding every member of an object argument as a field of equal value (of the object
    field ``field``, else of the row itself); anything but a non-empty object filters nothing."""

    def members(rows: list[JSON], v: Any) -> list[JSON]:
        if not isinstance(v, dict) or not v:
            return rows
        wanted = [(k, _norm(x)) for k, x in v.items()]
        held = ((r.get(field) if field else r) for r in rows)
        return [r for r, h in zip(rows, held, strict=True)
                if isinstance(h, dict) and all(k in h and _norm(h[k]) == x for k, x in wanted)]  # fmt: skip

    return members


def _comparable(a: Any, b: Any) -> bool:
    return isinstance(a, (int, float)) == isinstance(b, (int, float))


def _offered_wildcards(prop: Any) -> frozenset[str]:
    """The members of an argument's enum that mean "whichever": ``all`` beside ``pending`` and ``done``."""
    members = prop.get("enum") if isinstance(prop, dict) else None
    return frozenset(m for m in members if isinstance(m, str) and m.lower() in WILDCARDS) if members else frozenset()


def _wildcard(value: Any, wildcards: dict[str, frozenset[str]], arg: str) -> bool:
    """Whether ``value`` is one of the argument's wildcards (which are words: a list given where the
    tool declared a word is none, and is no key of a set either)."""
    return type(value) is str and value in wildcards.get(arg, ())


def declared_defaults(effect: ListEffect, props: JSON, entity: Entity) -> JSON:
    """An equality filter's declared default where the record's field takes that value (``status``
    defaulting to ``pending``, one of a task's statuses): an omitted argument filters as it."""
    out: JSON = {}
    for f in effect.filters:
        prop = props.get(f.arg)
        default = prop.get("default") if isinstance(prop, dict) else None
        field = entity.fields.get(f.field or "") or {}
        if f.op == "eq" and isinstance(default, (str, int)) and default in (field.get("enum") or ()):
            out[f.arg] = default
    return out


def ordered(rows: list[JSON], order: tuple[Order, ...]) -> list[JSON]:
    """``rows`` listed by each key of ``order`` in turn (a stable sort per key, the last first): the
    written order breaks ties."""
    rows = list(rows)
    for key in reversed(order):
        rows.sort(key=partial(_order_key, key), reverse=key.descending and not key.ranks)
    return rows


def _order_key(key: Order, row: JSON) -> tuple[Any, ...]:
    value = row.get(key.field)
    if key.ranks:
        return (key.ranks.index(value) if value in key.ranks else len(key.ranks),)
    held = value is not None
    if not isinstance(value, (str, int, float)):  # a list or an object a write stored: compared as text
        value = repr(value)
    # nulls last either way; values of one type compare, of several by their type's name first
    kind = type(value).__name__
    return (not held, kind, value) if not key.descending else (held, kind, value)


@COMPILERS.register("list")
def _list(effect: ListEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    schema = spec.state_schema
    entity = schema[effect.entity]
    predicates = compile_filters(effect.filters, entity)
    paging = effect.paging
    max_rows = spec.config.max_list_rows
    # the first match, or not_found; unless the real thing was seen answering every row
    one = declares_one_record(tool.output_schema) and not effect.every and keyed_map_record(tool.output_schema) is None
    values_only = lists_values(tool.output_schema)
    searches = [f.arg for f in effect.filters if f.op == "search"]
    never_empty = min_records(tool.output_schema) > 0 and not effect.every  # ``minItems: 1``: none is not_found
    listed = effect.listed or entity.key
    # a field holding a list of values (the numbers a batch registered) is listed value by value
    spread = effect.listed is not None and primary_type(entity.fields.get(effect.listed)) == "array"
    needs = {arg: (schema[e], key_caster(schema[e])) for arg, e in effect.needs.items() if e in schema}
    props = tool.input_schema.get("properties") or {}
    # an include-flag filters when omitted too: as its declared default, else false
    flags: dict[str, Any] = {
        f.arg: bool((props.get(f.arg) or {}).get("default", False)) for f in effect.filters if f.op == "unless"
    }
    flags.update(declared_defaults(effect, props, entity))
    flags.update({f.arg: f.default for f in effect.filters if f.default is not None})  # learned: as its default
    # given its declared default, an argument with a learned default is as omitted (``project: ""``)
    declared = {a: p["default"] for a, p in props.items() if isinstance(p, dict) and "default" in p}
    as_omitted = {f.arg: declared[f.arg] for f in effect.filters if f.default is not None and f.arg in declared}
    # ``status: "all"`` where the tool offers "all" beside the statuses: no filter at all
    wildcards = {f.arg: _offered_wildcards(props.get(f.arg)) for f in effect.filters if f.op == "eq"}
    entity_name, paged = entity.name, bool(paging.offset_arg or paging.page_arg or paging.cursor_arg)
    order = effect.order

    def given(args: JSON) -> str:  # the filters a call gave, as a refusal names them
        return ", ".join(f"{a}={args[a]!r}" for a, _ in predicates if args.get(a) is not None)

    def none_found(args: JSON) -> str:
        return f"no {entity_name}" + (f" with {said}" if (said := given(args)) else "")

    def run(ctx: CallContext, args: JSON) -> Any:
        for arg, (parent, cast) in needs.items():  # the tweet whose comments are asked for must exist
            if args.get(arg) is not None:
                _fetch(ctx.store, parent, cast(args[arg]))
        if flags:
            valued = {**flags, **{a: v for a, v in args.items() if v is not None and
                                  (a not in as_omitted or v != as_omitted[a])}}  # fmt: skip
            active = [(p, valued[a]) for a, p in predicates if a in valued and not _wildcard(valued[a], wildcards, a)]
        else:  # the same, without the merged copy of the arguments
            active = [
                (p, v) for a, p in predicates if (v := args.get(a)) is not None and not _wildcard(v, wildcards, a)
            ]
        rows = ctx.store.row_list(entity_name)
        for keep, value in active:
            rows = keep(rows, value)
        if order:
            rows = ordered(rows, order)
        limit = args.get(paging.limit_arg) if paging.limit_arg else None
        limit = limit if isinstance(limit, int) and limit > 0 else paging.default_limit
        start = 0
        if not paged:
            pass
        elif paging.offset_arg and isinstance(args.get(paging.offset_arg), int):
            start = max(0, args[paging.offset_arg])
        elif paging.page_arg and isinstance(args.get(paging.page_arg), int) and limit:
            start = max(0, args[paging.page_arg] - 1) * limit
        elif paging.cursor_arg and str(args.get(paging.cursor_arg) or "").isdigit():
            start = int(args[paging.cursor_arg])
        if effect.finds is not None:  # ``find_user_id_by_email``: the one it finds, or not_found
            if not rows:
                raise ToolError("not_found", f"no {entity.name} with {given(args) or 'those values'}")
            return rows[0].get(entity.key) if effect.finds == "key" else rows[0]
        if effect.none_refused and not rows:
            raise ToolError("not_found", none_found(args))
        if effect.keys_as is not None or effect.listed is not None:
            # ``{filtered_stocks: [symbols]}``, ``["sha256:..."]``: the keys, or one field, of what matched
            page = rows[start : start + min(limit or max_rows, max_rows)]
            values = [r.get(listed) for r in page if r.get(listed) is not None]
            if spread:
                values = [v for held in values for v in (held if isinstance(held, list) else [held])]
            return {effect.keys_as: values} if effect.keys_as is not None else values
        if one:
            searched = any(args.get(a) is not None for a in searches)  # a query that finds nothing: an empty feed
            if not rows and (not predicates or values_only or searched):
                return {}  # "get all credit cards" in one object, symbols found by price: none is an empty answer
            if not rows:
                raise ToolError("not_found", none_found(args))
            return rows[0]
        if never_empty and not rows:
            raise ToolError("not_found", f"no {entity.name} matches")
        return rows[start : start + min(limit or max_rows, max_rows)]

    return run

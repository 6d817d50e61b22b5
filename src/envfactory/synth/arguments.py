"""Plausible arguments for a tool call, drawn from the current state (for self-checks and demos)."""

from __future__ import annotations

import random
from typing import Any

from envfactory.ir.effect import ActionEffect, Behaviour, TransferEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import PYTHON_TYPES, primary_type
from envfactory.ir.state import StateSchema
from envfactory.patterns import linear_pattern
from envfactory.runtime.singleton import held
from envfactory.runtime.store import Store
from envfactory.synth.data import coerce_key
from envfactory.synth.naming import id_stem
from envfactory.values import ValueMaker, has_format

JSON = dict[str, Any]


def sample_arguments(
    spec: EnvSpec, behaviour: Behaviour, store: Store, maker: ValueMaker, *, optional: bool = True
) -> JSON:
    """Arguments that satisfy the tool's schema and point at rows that exist."""
    tool = spec.tools[behaviour.tool]
    effect = behaviour.effect
    kind = effect.kind
    entity_name = getattr(effect, "entity", None)
    schema = spec.state_schema
    references = reference_args(effect, schema)
    wanted = list(tool.required)
    if optional and kind in ("create", "update", "bound", "fallback", "transfer"):
        wanted += [a for a in tool.properties if a not in wanted]
    key_arg = getattr(effect, "key_arg", None)
    if kind != "create" and key_arg in tool.properties and key_arg not in wanted:
        wanted.append(key_arg)  # ``deleteTemplate(template_id)``, optional as declared: what it acts on
    args: JSON = {}
    for arg in wanted:
        prop = tool.properties.get(arg) or {}
        target = references.get(arg) or _stem_entity(arg, spec)
        if kind == "create" and target == entity_name and arg == getattr(effect, "key_arg", None):
            target = None  # the key of the row being created: a new one, not one that exists
        if target is not None:
            row = pick_row(store, target, maker.rng, lambda r: True)
            key = coerce_key(row[schema[target].key], prop) if row is not None else None
            if key is not None and fits(key, prop):  # a key the parameter cannot take points at nothing
                args[arg] = key
                continue
        args[arg] = maker.value(prop, arg, entity_name or "")
    args.update(gate_arguments(behaviour, store))
    return fill_wrapped_references(spec, behaviour.tool, args, store, maker.rng)


def gate_arguments(behaviour: Behaviour, store: Store) -> JSON:
    """The token a gated tool must be passed (``access_token``), as the session holds it now."""
    gate = behaviour.gate
    if gate is None or gate.arg is None:
        return {}
    value = held(gate, store)
    return {gate.arg: value} if value is not None else {}


def fill_wrapped_references(spec: EnvSpec, tool: str, args: JSON, store: Store, rng: random.Random) -> JSON:
    """Members of a wrapped record (YNAB's ``scheduled_transaction.account_id``) that refer to
    another entity point at a row that exists, as the argument's own references do."""
    effect = spec.behaviour(tool).effect
    holder = getattr(effect, "body_arg", None) or getattr(effect, "patch_arg", None)
    members: dict[str, str] = getattr(effect, "body", None) or getattr(effect, "patch", None) or {}
    wrapped = args.get(holder) if holder else None
    entity = getattr(effect, "entity", None)
    if not isinstance(wrapped, dict) or not isinstance(entity, str) or entity not in spec.state_schema:
        return args
    refs = spec.state_schema[entity].refs
    props = (spec.tools[tool].properties.get(holder or "") or {}).get("properties") or {}
    for member, field in members.items():
        target = refs.get(field)
        if target is None or member not in wrapped:
            continue
        row = pick_row(store, target, rng, lambda r: True)
        key = coerce_key(row[spec.state_schema[target].key], props.get(member) or {}) if row else None
        if key is not None and fits(key, props.get(member) or {}):
            wrapped[member] = key
    return args


def fits(value: Any, prop: JSON) -> bool:
    """Whether ``value`` has the type the parameter declares, is one of its enum members, if any, and
    has its format (a row's ``2025-04-01`` is no ``date-time``); of alternatives (``oneOf: [uuid
    text, integer]``), one of them — exactly one of ``oneOf``'s."""
    if "type" not in prop and "enum" not in prop:
        for word, many in (("oneOf", False), ("anyOf", True)):
            alternatives = [a for a in prop.get(word) or () if isinstance(a, dict)]
            if alternatives:
                taken = sum(fits(value, a) for a in alternatives)
                return taken >= 1 if many else taken == 1
    enum = prop.get("enum")
    if isinstance(enum, list) and enum and value not in enum:
        return False
    if isinstance(value, str) and not has_format(value, prop):
        return False
    low, high = prop.get("minLength"), prop.get("maxLength")
    if isinstance(value, str) and ((isinstance(low, int) and len(value) < low) or
                                   (isinstance(high, int) and len(value) > high)):  # fmt: skip
        return False  # a key ``predictor_settings_0004`` where 24 characters are wanted
    check = linear_pattern(prop["pattern"]) if isinstance(value, str) and isinstance(prop.get("pattern"), str) else None
    if check is not None and not check(value):  # ``package_code`` of ``^[a-z0-9_]+$``: no ``se-...`` package id
        return False
    kinds = PYTHON_TYPES.get(primary_type(prop) or "")
    if isinstance(value, list) and isinstance(prop.get("items"), dict):  # ids, not lists of ids
        items = PYTHON_TYPES.get(primary_type(prop["items"]) or "")
        if items is not None and not all(isinstance(v, items) and (bool in items or not isinstance(v, bool))
                                         for v in value):  # fmt: skip
            return False
    return kinds is None or (isinstance(value, kinds) and not isinstance(value, bool))


def within_range(value: Any, prop: JSON) -> bool:
    """Whether a number lies within the parameter's ``minimum`` and ``maximum`` (anything else does)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return True
    lo, hi = prop.get("minimum"), prop.get("maximum")
    return (not isinstance(lo, (int, float)) or value >= lo) and (not isinstance(hi, (int, float)) or value <= hi)


def _stem_entity(arg: str, spec: EnvSpec) -> str | None:
    """``customer_id`` names a customer even where no effect says so (bound and fallback tools)."""
    stem = id_stem(arg)
    return stem if stem in spec.state_schema else None


def pick_row(store: Store, entity: str, rng: random.Random, accept: Any) -> JSON | None:
    rows = [r for r in store.rows(entity) if accept(r)]
    return rng.choice(rows) if rows else None


def action_ready(effect: ActionEffect) -> Any:
    """A predicate for rows the action may start from."""

    forbidden = {str(v).casefold() for v in effect.forbidden_from}

    def ok(row: JSON) -> bool:
        current = row.get(effect.field)
        if current == effect.to or str(current).casefold() in forbidden:
            return False
        return effect.allowed_from is None or current in effect.allowed_from

    return ok


def ready_arguments(spec: EnvSpec, behaviour: Behaviour, store: Store, maker: ValueMaker) -> JSON:
    """Like :func:`sample_arguments`, but aimed at rows the call can succeed on."""
    args = sample_arguments(spec, behaviour, store, maker)
    effect = behaviour.effect
    if isinstance(effect, ActionEffect):
        row = pick_row(store, effect.entity, maker.rng, action_ready(effect))
        if row is not None:
            args[effect.key_arg] = row[spec.state_schema[effect.entity].key]
    elif isinstance(effect, TransferEffect):
        key = spec.state_schema[effect.entity].key
        usable = [r for r in store.rows(effect.entity)
                  if not effect.status_field or r.get(effect.status_field) in effect.usable]  # fmt: skip
        usable.sort(key=lambda r: -(r.get(effect.field) or 0))
        if len(usable) >= 2:
            args[effect.from_arg], args[effect.to_arg] = usable[0][key], usable[1][key]
            args[effect.amount_arg] = 1
    return args


def reference_args(effect: Any, schema: StateSchema) -> dict[str, str]:
    """The arguments of a tool that name a row: argument -> the entity whose key it takes.

    The key of a read/update/delete/action, both sides of a transfer, foreign keys a create or
    update writes, and list filters on a foreign key.
    """
    entity: str | None = getattr(effect, "entity", None)
    refs: dict[str, str] = dict(getattr(effect, "needs", {}))  # a fallback's arguments that name rows
    if entity is None:
        return refs
    if getattr(effect, "key_arg", None) and effect.kind != "create":
        by = getattr(effect, "by", None)  # a delete by a reference: the argument takes the referenced key
        refs[effect.key_arg] = schema[entity].refs.get(by, entity) if by and entity in schema else entity
    if effect.kind == "transfer":
        refs[effect.from_arg] = refs[effect.to_arg] = entity
    if entity in schema:
        fks = schema[entity].refs
        refs.update({arg: fks[fld] for arg, fld in getattr(effect, "args", {}).items() if fld in fks})
        if effect.kind == "list":
            refs.update({f.arg: fks[f.field] for f in effect.filters if f.field in fks and f.op == "eq"})
    return refs


def tool_references(spec: EnvSpec) -> dict[str, dict[str, str]]:
    """:func:`reference_args` of every tool, computed once."""
    return {b.tool: reference_args(b.effect, spec.state_schema) for b in spec.behaviours}

"""The executor of singleton resources: one record under a fixed hidden key."""

from __future__ import annotations

import hashlib
from typing import Any

from envfactory.ir.effect import Gate, SingletonEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import outcome_flags, primary_type
from envfactory.ir.state import SINGLETON_KEY, SINGLETON_ROW
from envfactory.ir.tool import ToolSpec
from envfactory.runtime.behaviours import COMPILERS, CallContext, Executor, check_refs, ref_checks
from envfactory.runtime.result import ToolError
from envfactory.runtime.store import Store, clone

JSON = dict[str, Any]


@COMPILERS.register("singleton")
def _singleton(effect: SingletonEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    entity = spec.state_schema[effect.entity]
    refs = ref_checks(entity, spec.state_schema)  # a watchlist's stock symbols: what is added must exist
    # an omitted argument the tool declares a default for sets that default ("fanSpeed ... Default is 50")
    props = tool.properties
    defaults = {a: props[a]["default"] for a in effect.args if isinstance(props.get(a), dict) and "default" in props[a]}
    # a switch that takes nothing (``logout()``) and finds itself already thrown did not succeed:
    # "True if logout was successful, False otherwise" answers false
    flags = outcome_flags(tool.output_schema)
    switch = bool(flags) and effect.op == "set" and not (effect.args or effect.adds or effect.takes or effect.issues)

    def run(ctx: CallContext, args: JSON) -> JSON:
        if effect.op == "set" and defaults:
            args = {**clone(defaults), **args}
        row = ctx.store.get(entity.name, SINGLETON_ROW)
        if row is None:
            raise ToolError("not_found", f"there is no {entity.name.replace('_', ' ')}")
        if effect.op == "set" and _wrong_credentials(effect, row, args):
            off = {f: False for f, v in effect.sets.items() if isinstance(v, bool)}
            if not off:
                raise ToolError("precondition_failed", f"wrong {' or '.join(effect.checks)}")
            row = {**row, **off}  # "True if authenticated, False otherwise": a refused sign-in is answered
            ctx.store.put(entity.name, SINGLETON_ROW, row)
        elif effect.op == "set":
            added = {field: args[arg] for arg, field in effect.adds.items() if arg in args}
            check_refs(ctx.store, refs, added, added)
            before = row
            row = {**row, **written(effect, args), **_added(effect, entity.fields, row, args), **clone(effect.sets)}
            row.update({field: fresh_token(ctx.seed, field, row.get(field)) for field in effect.issues})
            ctx.store.put(entity.name, SINGLETON_ROW, row)
            if effect.reports:  # "False if already following": whether the edit changed the list
                return {**_answer(effect.answers, row), effect.reports: row != before}
            if switch and all(before.get(f) == v for f, v in row.items() if f not in flags):
                return {**_answered(effect, row), **dict.fromkeys(flags, False)}
        return _answered(effect, _selected(effect, row, args))

    return run


def _selected(effect: SingletonEffect, row: JSON, args: JSON) -> JSON:
    """The part of the record a selecting argument names (``option="fuel"``: ``fuelLevel``)."""
    for arg, chosen in effect.selects.items():
        fields = chosen.get(str(args.get(arg)))
        if fields is not None:
            return {k: v for k, v in row.items() if k in fields}
    return row


def _answered(effect: SingletonEffect, row: JSON) -> JSON:
    return _answer(effect.answers, row) if effect.answers else {k: v for k, v in row.items() if k != SINGLETON_KEY}


def _wrong_credentials(effect: SingletonEffect, row: JSON, args: JSON) -> bool:
    stored = {arg: row.get(field) for arg, field in effect.checks.items()}
    if not stored or any(v in (None, "") for v in stored.values()):
        return False  # nothing to check against: any credentials sign in
    return any(args.get(arg) != value for arg, value in stored.items())


def written(effect: SingletonEffect, args: JSON) -> JSON:
    """The fields a ``set`` writes from ``args``: mapped, values translated (an unlisted value writes nothing)."""
    out: JSON = {}
    for arg, field in effect.args.items():
        if arg not in args:
            continue
        value = args[arg]
        if arg in effect.values:
            said = str(value).lower() if isinstance(value, bool) else str(value)
            if said not in effect.values[arg]:
                continue
            value = effect.values[arg][said]
        out[field] = clone(value)
    return out


def _added(effect: SingletonEffect, fields: dict[str, JSON], row: JSON, args: JSON) -> JSON:
    """Amounts added to (``adds``) or taken from (``takes``) numeric fields, within their bounds;
    values added to or removed from list fields."""
    out: JSON = {}
    moves = [(arg, field, 1) for arg, field in effect.adds.items()] + [(a, f, -1) for a, f in effect.takes.items()]
    for arg, field, sign in moves:
        current = out.get(field, row.get(field))
        if arg in args and (primary_type(fields.get(field)) == "array" or isinstance(current, list)):
            out[field] = edited_list(current, args[arg], sign, field, lenient=effect.reports is not None)
            continue
        amount = args.get(arg)
        if not isinstance(amount, (int, float)) or isinstance(amount, bool):
            continue
        if amount < 0:
            raise ToolError("invalid_arguments", f"argument {arg!r} must not be negative")
        total = (current if isinstance(current, (int, float)) else 0) + sign * amount
        schema = fields.get(field) or {}
        maximum, minimum = schema.get("maximum"), schema.get("minimum", 0 if sign < 0 else None)
        if isinstance(maximum, (int, float)) and total > maximum:
            raise ToolError("precondition_failed", f"{field} would be {total:g}, above its maximum {maximum:g}")
        if isinstance(minimum, (int, float)) and total < minimum:
            raise ToolError("precondition_failed", f"insufficient {field}: {current!r} is less than {amount!r}")
        out[field] = round(total, 10)
    return out


def edited_list(current: Any, given: Any, sign: int, field: str, *, lenient: bool = False) -> list[Any]:
    """``current`` with ``given`` (a value or a list of them) added (``sign`` 1: those already there
    are skipped) or removed (-1: each must be there, else ``not_found`` and nothing changes; with
    ``lenient``, those not there are skipped)."""
    held = list(current) if isinstance(current, list) else []
    values: list[Any] = []
    for value in given if isinstance(given, list) else [given]:  # values may be unhashable: no set
        if value not in values:
            values.append(clone(value))
    if sign > 0:
        return held + [v for v in values if v not in held]
    missing = [v for v in values if v not in held]
    if missing and not lenient:
        raise ToolError("not_found", f"{missing[0]!r} is not in the {field.replace('_', ' ')}")
    return [v for v in held if v not in values]


def _answer(answers: dict[str, str], row: JSON) -> JSON:
    """The declared output members, each from its field (``status.fuelLevel`` nested)."""
    out: JSON = {}
    for path, field in answers.items():
        if field not in row:
            continue
        *parents, leaf = path.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = clone(row[field])
    return out


def fresh_token(seed: int, field: str, previous: Any) -> str:
    """The token a sign-in issues: 16 hex digits that follow from the seed and the token before."""
    return hashlib.sha256(f"{seed}:{field}:{previous}".encode()).hexdigest()[:16]


def held(gate: Gate, store: Store) -> Any:
    """What the gate's singleton row holds in the gated field (the session's ``login_status``, its token)."""
    return (store.get(gate.entity, SINGLETON_ROW) or {}).get(gate.field)


def gated(gate: Gate, run: Executor) -> Executor:
    """``run``, refused unless the gate's singleton row holds a true field (a logged-in session)
    or, for a token gate, the argument equals the token the row holds."""

    def check(ctx: CallContext, args: JSON) -> Any:
        value = held(gate, ctx.store)
        if not value or (gate.arg is not None and args.get(gate.arg) != value):
            raise ToolError("precondition_failed", gate.message)
        return run(ctx, args)

    return check


__all__ = ["edited_list", "gated", "held", "written"]

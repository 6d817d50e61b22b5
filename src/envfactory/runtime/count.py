"""The executor of statistics tools (:class:`envfactory.ir.effect.CountEffect`): counts of rows or
of a singleton's list, computed from the episode's state at the moment of the call."""

from __future__ import annotations

from collections import Counter
from typing import Any

from envfactory.ir.effect import Count, CountEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import SINGLETON_ROW
from envfactory.ir.tool import ToolSpec
from envfactory.runtime.behaviours import COMPILERS, CallContext, Executor
from envfactory.runtime.store import Store

JSON = dict[str, Any]


def counted(store: Store, count: Count, args: JSON) -> int:
    """How many of what ``count`` counts the state holds: the rows whose fields equal the arguments
    that name them, or the items of a singleton's list; 0 for something held nowhere."""
    if count.entity is None:
        return 0
    if count.list_field is not None:
        if count.owner is not None:
            arg, holder, field = count.owner
            if arg in args and not _same((store.get(holder, SINGLETON_ROW) or {}).get(field), args[arg]):
                return 0  # another user's list: not held here
        held = (store.get(count.entity, SINGLETON_ROW) or {}).get(count.list_field)
        return len(held) if isinstance(held, list) else 0
    given = {field: args[arg] for arg, field in count.filters.items() if args.get(arg) is not None}
    return sum(1 for row in store.rows(count.entity) if all(_same(row.get(f), v) for f, v in given.items()))


def tallied(store: Store, count: Count, args: JSON) -> dict[str, int]:
    """How many of the rows ``count`` counts hold each value of its ``by`` field (a row without one
    is in no group), keyed by the value's text as a JSON object's members are."""
    if count.entity is None or count.by is None:
        return {}
    given = {field: args[arg] for arg, field in count.filters.items() if args.get(arg) is not None}
    rows = (r for r in store.rows(count.entity) if all(_same(r.get(f), v) for f, v in given.items()))
    return dict(Counter(str(v) for r in rows if names_group(v := r.get(count.by))))


def names_group(value: Any) -> bool:
    """Whether a value names a group: a text or a whole number (not a flag, a list, nothing)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _same(held: Any, given: Any) -> bool:
    return bool(held == given) or (held is not None and str(held) == str(given))  # 7 and "7" name one row


@COMPILERS.register("count")
def _count(effect: CountEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    def run(ctx: CallContext, args: JSON) -> JSON | int:
        if effect.bare and effect.counts[0].by is not None:
            return tallied(ctx.store, effect.counts[0], args)
        if effect.bare:
            return counted(ctx.store, effect.counts[0], args)
        out = {c.field: counted(ctx.store, c, args) for c in effect.counts}
        return {effect.envelope: out} if effect.envelope else out

    return run


__all__ = ["counted", "names_group", "tallied"]

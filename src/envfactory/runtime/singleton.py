"""The executor of singleton resources: one record under a fixed hidden key."""

from __future__ import annotations

from typing import Any

from envfactory.ir.effect import Gate, SingletonEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.tool import ToolSpec
from envfactory.runtime.behaviours import COMPILERS, CallContext, Executor
from envfactory.runtime.result import ToolError
from envfactory.runtime.store import clone

JSON = dict[str, Any]
KEY, SELF = "_id", "self"


@COMPILERS.register("singleton")
def _singleton(effect: SingletonEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    entity = spec.state_schema[effect.entity]

    def run(ctx: CallContext, args: JSON) -> JSON:
        row = ctx.store.get(entity.name, SELF)
        if row is None:
            raise ToolError("not_found", f"there is no {entity.name.replace('_', ' ')}")
        if effect.op == "set":
            row = {**row, **{field: clone(args[arg]) for arg, field in effect.args.items() if arg in args},
                   **clone(effect.sets)}  # fmt: skip
            ctx.store.put(entity.name, SELF, row)
        return {k: v for k, v in row.items() if k != KEY}

    return run


def gated(gate: Gate, run: Executor) -> Executor:
    """``run``, refused unless the gate's singleton row holds a true field (a logged-in session)."""

    def check(ctx: CallContext, args: JSON) -> Any:
        row = ctx.store.get(gate.entity, SELF)
        if not (row or {}).get(gate.field):
            raise ToolError("precondition_failed", gate.message)
        return run(ctx, args)

    return check


__all__ = ["gated"]

"""The executor of code behaviours: the sandboxed ``run(state, args)`` and its checked changes."""

from __future__ import annotations

from typing import Any

from envfactory.core import ERROR_CODES
from envfactory.ir.effect import CodeEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.tool import ToolSpec
from envfactory.runtime.behaviours import COMPILERS, CallContext, Executor, key_caster
from envfactory.runtime.canonical import NotCanonical, canonical_value
from envfactory.runtime.result import ToolError
from envfactory.sandbox import require_boundary, run_sandboxed

JSON = dict[str, Any]
REFUSALS = set(ERROR_CODES) - {"internal_error"}


@COMPILERS.register("code")
def _code(effect: CodeEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    require_boundary()  # no OS boundary here: refuse now, saying what to install, rather than on every call
    schema = spec.state_schema
    entities = {name: schema[name] for name in effect.entities if name in schema}

    def run(ctx: CallContext, args: JSON) -> Any:
        state = {name: list(ctx.store.rows(name)) for name in entities}
        answer = run_sandboxed(effect.code, "run", state, args)
        if not answer.ok:
            raise ToolError("internal_error", f"{tool.name}: the written behaviour {answer.outcome}: {answer.detail}")
        value = answer.value
        if not isinstance(value, dict):
            raise ToolError("internal_error", f"{tool.name}: the written behaviour returned no object")
        if isinstance(value.get("error"), dict):
            code = value["error"].get("code")
            message = str(value["error"].get("message") or code)[:500]
            raise ToolError(code if code in REFUSALS else "precondition_failed", message)
        writes = []
        for verb in ("put", "delete"):
            for name, items in (value.get(verb) or {}).items():
                entity = entities.get(name)
                if entity is None or not isinstance(items, list):
                    raise ToolError(
                        "internal_error", f"{tool.name}: the written behaviour changed {name!r}, not its own"
                    )
                cast = key_caster(entity)
                for item in items:
                    if verb == "put" and not (isinstance(item, dict) and item.get(entity.key) is not None):
                        raise ToolError("internal_error", f"{tool.name}: a {name} row without its key {entity.key!r}")
                    try:
                        item = canonical_value(item)
                    except NotCanonical as err:
                        raise ToolError("internal_error", f"{tool.name}: a {name} change is not JSON: {err}") from None
                    writes.append((verb, name, cast(item[entity.key]) if verb == "put" else cast(item), item))
        for verb, name, key, item in writes:  # every change checked: now apply them
            if verb == "put":
                ctx.store.put(name, key, item)
            else:
                ctx.store.delete(name, key)
        return value.get("result")

    return run


__all__: list[str] = []

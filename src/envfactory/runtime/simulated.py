"""The executor of simulated tools: a language model answers, validated and cached."""

from __future__ import annotations

import json
import threading
from typing import Any

from envfactory.ir.effect import SimulatedEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.tool import ToolSpec
from envfactory.runtime.behaviours import COMPILERS, CallContext, Executor
from envfactory.runtime.result import ToolError
from envfactory.runtime.validation import compile_schema

JSON = dict[str, Any]
_CLIENTS: dict[tuple[str, str | None], Any] = {}
_LOCK = threading.Lock()


def _client(model: str) -> Any:
    """The user's client for ``model``: its address is ``ENVFACTORY_BASE_URL`` (the user's
    configuration, read per call), never one an environment folder names."""
    import os

    from envfactory.llm import make_client

    base_url = os.environ.get("ENVFACTORY_BASE_URL") or None
    with _LOCK:
        if (model, base_url) not in _CLIENTS:
            _CLIENTS[(model, base_url)] = make_client(model, base_url=base_url)
        return _CLIENTS[(model, base_url)]


@COMPILERS.register("simulated")
def _simulated(effect: SimulatedEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    from envfactory.llm.client import LLMError
    from envfactory.llm.toolcalls import json_in
    from envfactory.llm.types import ChatRequest

    schema = tool.output_schema or {"type": "object"}
    check = compile_schema(schema)
    entities = [e for e in effect.entities if e in spec.state_schema]

    def valid(value: Any) -> bool:
        try:
            check(value)
        except Exception:  # fastjsonschema's validation error, or a value it cannot walk
            return False
        return True

    def run(ctx: CallContext, args: JSON) -> Any:
        state = {e: list(ctx.store.rows(e))[: effect.max_rows] for e in entities}
        prompt = (
            f"You simulate the tool `{tool.name}` of an API. Description: {tool.description or '(none)'}\n"
            f"Its output schema: {json.dumps(schema)}\nThe current data: {json.dumps(state, default=str)}\n"
            f"The call's arguments: {json.dumps(args)}\nAnswer with the tool's output as JSON only, consistent "
            "with the data."
        )
        client = _client(effect.model)
        for attempt in range(2):
            request = ChatRequest(messages=({"role": "user", "content": prompt},), json_schema=schema,
                                  max_tokens=300, seed=attempt)  # fmt: skip
            try:
                value = json_in(client.chat(request).text)
            except LLMError as err:
                raise ToolError("transient", f"{tool.name}: the simulating model did not answer: {err}") from None
            if value is not None and valid(value):
                return value
        if ctx.fallback is None:
            raise ToolError("unsupported", f"{tool.name}: the simulating model gave no valid answer")
        return ctx.fallback(tool.name, args)  # schema-faithful, deterministic

    return run


__all__: list[str] = []

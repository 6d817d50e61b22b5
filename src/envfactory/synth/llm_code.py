"""Behaviours the templates cannot express, written as code by a language model — and checked.

For a tool left as a fallback (or any tool asked for), the model sees the tool's description and
schemas, the entities' schemas, the related tools and the state API, and writes
``run(state, args)``. The candidate runs in the sandbox (``envfactory.sandbox``) and must pass the
same probes as every behaviour: calls with sampled arguments never give ``internal_error``,
successful outputs validate against the output schema, and the same call on the same state gives
the same bytes and the same state; where a real implementation is given, it must also agree with
it (its measured grade may not be ``low``). A candidate that fails is rejected with the reason
(the model gets one more try with the reason in the prompt); the tool then stays a flagged fallback.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from envfactory.ir.effect import Behaviour, CodeEffect
from envfactory.ir.env import EnvSpec
from envfactory.llm.client import LLMClient, LLMError
from envfactory.llm.types import ChatRequest
from envfactory.seeding import derive_seed
from envfactory.values import ValueMaker

JSON = dict[str, Any]
PROBE_CALLS = 4

CONTRACT = """Write one Python function, and nothing else:

def run(state, args):
    ...

`state` maps entity names to lists of rows (dicts); `args` are the tool's validated arguments.
Return {"result": <the tool's output>} and, when the tool changes something,
"put": {entity: [full new or changed rows]} and/or "delete": {entity: [keys]}.
For a refusal return {"error": {"code": "not_found" | "conflict" | "precondition_failed" |
"invalid_arguments", "message": "..."}}. Only the modules json, math, re, datetime, collections,
itertools, functools, string, copy, decimal, statistics, operator may be imported; no files,
no network, no printing. Be deterministic.

Example, for a tool `close_ticket(ticket_id)` over entity `ticket` (key `id`):

def run(state, args):
    row = next((r for r in state["ticket"] if r["id"] == args["ticket_id"]), None)
    if row is None:
        return {"error": {"code": "not_found", "message": f"ticket {args['ticket_id']} not found"}}
    if row.get("status") == "closed":
        return {"error": {"code": "conflict", "message": "already closed"}}
    new = {**row, "status": "closed"}
    return {"result": new, "put": {"ticket": [new]}}
"""


@dataclass(frozen=True)
class Written:
    tool: str
    accepted: bool
    reason: str
    behaviour: Behaviour | None = None


def prompt(spec: EnvSpec, tool_name: str, entities: tuple[str, ...], rejected: str | None = None) -> str:
    tool = spec.tools[tool_name]
    related = [
        f"- {t.name}: {' '.join(str(t.description or '').split())[:120]}"
        for t in spec.tools.tools
        if t.name != tool_name
    ][:12]
    schemas = {
        e.name: {"key": e.key, "fields": e.fields, "refs": e.refs}
        for e in spec.state_schema.entities
        if e.name in entities
    }
    parts = [
        f"Tool: {tool.name}\nDescription: {tool.description or '(none)'}",
        f"Input schema: {json.dumps(tool.input_schema)}",
        f"Output schema: {json.dumps(tool.output_schema) if tool.output_schema else '(free)'}",
        f"Entities in `state`: {json.dumps(schemas)}",
        "Other tools of this API:\n" + "\n".join(related),
        CONTRACT,
    ]
    if rejected:
        parts.append(f"Your previous attempt was rejected: {rejected}. Fix it.")
    return "\n\n".join(parts)


def extract_code(text: str) -> str | None:
    """The ``def run`` in a model's answer (fenced or not)."""
    fenced = re.findall(r"```(?:python)?\s*\n(.*?)```", text, re.DOTALL)
    for block in [*fenced, text]:
        if "def run(" in block:
            return block[block.index("def run(") :].strip() if not fenced else block.strip()
    return None


def check_code(spec: EnvSpec, tool_name: str, effect: CodeEffect, seed: int = 0) -> str | None:
    """The probes a candidate must pass; the first failure's reason, or None."""
    from envfactory.runtime.environment import Environment
    from envfactory.synth.arguments import sample_arguments
    from envfactory.synth.probe import output_validator

    candidate = Behaviour(tool=tool_name, effect=effect, prior="plausible")
    behaviours = tuple(candidate if b.tool == tool_name else b for b in spec.behaviours)
    env = Environment(spec.model_copy(update={"behaviours": behaviours}), trust_code=True)  # asked for: consent
    validate = output_validator(spec.tools[tool_name].output_schema)
    for n in range(PROBE_CALLS):
        maker = ValueMaker(derive_seed(seed, "code-probe", tool_name, n), spec.config.clock_start)
        first = env.episode(max_steps=10)
        args = sample_arguments(spec, candidate, first.store, maker)
        a = first.call_tool(tool_name, args)
        if a.error == "internal_error":
            return a.content[:300]
        if a.ok and (problem := validate(a.data)) is not None:
            return f"output does not match the output schema: {problem}"
        second = env.episode(max_steps=10)
        b = second.call_tool(tool_name, args)
        if (a.content, first.state_hash()) != (b.content, second.state_hash()):
            return "not deterministic: the same call on the same state answered differently"
    return None


def check_against(
    spec: EnvSpec, tool_name: str, effect: CodeEffect, against: str, env: dict[str, str] | None
) -> str | None:
    """Where a real implementation exists, the candidate must also agree with it: measured on
    seeded sequences, its tool may not grade ``low``."""
    from envfactory.real.instrument import measure

    candidate = Behaviour(tool=tool_name, effect=effect, prior="plausible")
    trial = spec.model_copy(
        update={"behaviours": tuple(candidate if b.tool == tool_name else b for b in spec.behaviours)}
    )
    grades = {t.tool: t for t in measure(trial, against, sequences=8, length=8, env=env, trust_code=True).tools}
    found = grades.get(tool_name)
    if found is not None and found.grade == "low":
        return (f"disagrees with {against}: outcome {found.outcome:.0%} (stub {found.stub_outcome:.0%}), "
                f"output fields {found.output_fields or 0:.0%}")  # fmt: skip
    return None


def write_behaviour(
    spec: EnvSpec,
    tool_name: str,
    client: LLMClient,
    *,
    attempts: int = 2,
    max_tokens: int = 600,
    against: str | None = None,
    against_env: dict[str, str] | None = None,
) -> Written:
    entities = tuple(e.name for e in spec.state_schema.entities)
    reason: str | None = None
    for attempt in range(attempts):
        request = ChatRequest(messages=({"role": "user", "content": prompt(spec, tool_name, entities, reason)},),
                              max_tokens=max_tokens, seed=attempt)  # fmt: skip
        try:
            text = client.chat(request).text
        except LLMError as err:
            return Written(tool_name, False, f"the model did not answer: {err}")
        code = extract_code(text)
        if code is None:
            reason = "no `def run(state, args)` in the answer"
            continue
        effect = CodeEffect(code=code, entities=entities, author=client.model)
        reason = check_code(spec, tool_name, effect)
        if reason is None and against is not None:
            reason = check_against(spec, tool_name, effect, against, against_env)
        if reason is None:
            measured = f" and agreed with {against}" if against else ""
            notes = (f"written by {client.model}; passed {PROBE_CALLS} sandboxed probes{measured}",)
            return Written(tool_name, True, "passed", Behaviour(tool=tool_name, effect=effect, prior="plausible",
                                                                notes=notes))  # fmt: skip
    return Written(tool_name, False, reason or "rejected")


def write_behaviours(
    spec: EnvSpec,
    client: LLMClient,
    tools: list[str] | None = None,
    *,
    against: str | None = None,
    against_env: dict[str, str] | None = None,
) -> tuple[EnvSpec, list[Written]]:
    """Code for ``tools`` (default: every fallback); accepted ones replace their behaviour. With
    ``against`` (a real implementation: ``file.py:Class`` or ``mcp+stdio:CMD``) a candidate must
    also agree with it."""
    names = tools or [b.tool for b in spec.behaviours if b.effect.kind == "fallback"]
    results = [write_behaviour(spec, name, client, against=against, against_env=against_env) for name in names]
    accepted = {r.tool: r.behaviour for r in results if r.behaviour is not None}
    behaviours = tuple(accepted.get(b.tool) or b for b in spec.behaviours)
    return spec.model_copy(update={"behaviours": behaviours}), results


__all__ = ["CONTRACT", "Written", "check_against", "check_code", "extract_code", "write_behaviour", "write_behaviours"]

"""Fidelity measured against a real implementation: the same calls on both sides, compared.

``measure(spec, against)`` takes a synthesized environment and the Python implementation of the
same tools (``file.py:Class``, trusted), and starts the environment from the real object's own
initial state (its records mapped onto the synthesized entities). It then replays seeded random *valid*
call sequences on both: arguments are drawn from the schemas and, for ids, from the keys the
real side holds or returned (so reads hit existing things, and repeats and deletes happen). Per
tool and overall it reports

- outcome agreement: both succeed, or both fail (and the share with the same error code);
- output agreement: normalized exact match, and the share of leaf fields equal, on the calls
  both answered;
- final-state agreement: after each sequence, the synthesized state equals the real object's
  records, entity by entity;

and beside every figure the score of a trivial stub that always succeeds and echoes the output
schema, on the same calls. A figure counts only above the stub's.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from envfactory.errors import SpecError
from envfactory.ingest import load
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import StateSchema
from envfactory.runtime.environment import Environment
from envfactory.runtime.owner import owner_state
from envfactory.runtime.store import canonical_numbers
from envfactory.seeding import derive_seed
from envfactory.synth import synthesize
from envfactory.synth.naming import singular
from envfactory.values import ValueMaker

JSON = dict[str, Any]
ID_SHARE = 0.8  # how often an id argument takes a key the real side holds


class ToolAgreement(BaseModel):
    """One tool's agreement with the real implementation, beside the stub's on the same calls."""

    model_config = ConfigDict(frozen=True)

    tool: str
    calls: int
    outcome: float
    same_error: float
    output_exact: float | None
    output_fields: float | None
    stub_outcome: float
    stub_output_exact: float | None
    stub_output_fields: float | None

    @property
    def grade(self) -> str:
        """``high`` only when measured so: outcomes agree on >= 90 % of calls, >= 70 % of output fields
        agree, and one of the two beats the stub by 20 points (a search that always succeeds can
        only beat it on its outputs); ``medium`` when either beats the stub at all; else ``low``."""
        fields = self.output_fields if self.output_fields is not None else 0.0
        stub_fields = self.stub_output_fields if self.stub_output_fields is not None else 0.0
        margin = max(self.outcome - self.stub_outcome, fields - stub_fields)
        if self.outcome >= 0.9 and fields >= 0.7 and margin >= 0.2:
            return "high"
        if self.outcome >= 0.7 and margin > 0:
            return "medium"
        return "low"


class Measurement(BaseModel):
    model_config = ConfigDict(frozen=True)

    source: str
    sequences: int
    calls: int
    outcome: float
    stub_outcome: float
    output_exact: float | None
    stub_output_exact: float | None
    output_fields: float | None
    stub_output_fields: float | None
    final_state: float | None  # None: the real object's records could not be mapped onto entities
    tools: tuple[ToolAgreement, ...]

    def grades(self) -> dict[str, str]:
        return {t.tool: t.grade for t in self.tools}


def entity_rows(state: Any, schema: StateSchema) -> dict[str, list[JSON]] | None:
    """The real object's records as ``{entity: [rows]}``: an attribute named after an entity
    (``_flights`` for ``flight``) holding a mapping or list of records. None when none maps."""
    if not isinstance(state, dict):
        return None
    out: dict[str, list[JSON]] = {}
    for entity in schema.entities:
        for attr, value in state.items():
            if singular(attr.strip("_").lower()) != entity.name:
                continue
            rows = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else None
            if rows is not None and all(isinstance(r, dict) and entity.key in r for r in rows):
                out[entity.name] = rows
    return out or None


def measure(
    spec: EnvSpec,
    against: str,
    *,
    sequences: int = 40,
    length: int = 10,
    seed: int = 0,
    progress: Callable[[int], None] | None = None,
) -> Measurement:
    """Replay seeded call sequences on the environment ``spec`` and on ``against`` (a trusted
    ``file.py:Class`` implementing the same tools); see the module docstring."""
    loaded = load(against, trust_code=True)
    real_env = Environment(synthesize(loaded, bind=True, state="empty"), trust_code=True)
    missing = sorted(set(spec.tools.names) - {t.name for t in loaded.toolset.tools})
    if missing:
        raise SpecError(f"the implementation lacks tools of {spec.name!r}: {', '.join(missing)}", file=against)
    synth_spec = spec
    fresh = real_env.owner_factory() if real_env.owner_factory else None
    start = entity_rows(owner_state(fresh), synth_spec.state_schema)
    if start is not None:
        full = {name: start.get(name, []) for name in synth_spec.state_schema.names}
        synth_spec = synth_spec.model_copy(update={"initial_state": full})
    synth_env = Environment(synth_spec)
    stub = Environment(_stub_spec(synth_spec))
    tally: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    finals: list[float] = []
    for n in range(sequences):
        rng = random.Random(derive_seed(seed, "fidelity", n))
        maker = ValueMaker(derive_seed(seed, "values", n), synth_spec.config.clock_start)
        real, synth, fake = real_env.episode(max_steps=10**6), synth_env.episode(max_steps=10**6), stub.episode()
        fake.max_steps = 10**6
        keys = _known_keys(start)
        for _ in range(length):
            tool = rng.choice(synth_spec.tools.tools)
            args = _arguments(tool.input_schema, keys, rng, maker)
            r, s, f = real.call_tool(tool.name, args), synth.call_tool(tool.name, args), fake.call_tool(tool.name, args)
            _learn(keys, r)
            t = tally[tool.name]
            _compare(t, r.ok, r.data if r.ok else None, s, f)
            if not r.ok and not s.ok:
                t["same_error"].append(float(r.error == s.error))
        if start is not None:
            real_rows = entity_rows(owner_state(real._ctx.owner), synth_spec.state_schema) or {}
            synth_rows = {e: list(synth.store.rows(e)) for e in real_rows}
            finals.append(float(all(_same_rows(real_rows[e], synth_rows[e]) for e in real_rows)))
        if progress is not None:
            progress(n + 1)
    return _measurement(against, sequences, tally, finals)


class TraceCall(BaseModel):
    """One call a real system answered: a line of a trace file (JSON lines)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    tool: str
    arguments: JSON = {}
    ok: bool
    output: Any = None
    sequence: str | int = 0  # calls of one sequence run in order on one episode


def read_trace(path: Path) -> list[TraceCall]:
    """A recorded trace: one JSON object per line with ``tool``, ``arguments``, ``ok``, ``output``
    and optionally ``sequence``; a clear error names the line that is not one."""
    calls = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            calls.append(TraceCall.model_validate_json(line))
        except ValueError as err:
            raise SpecError(f"line {number} is not a traced call: {str(err).splitlines()[0]}", file=str(path)) from None
    return calls


def measure_trace(spec: EnvSpec, path: Path) -> Measurement:
    """Replay a recorded trace of a real system on ``spec`` (from its initial state) and on the stub;
    final states are not compared (a trace records outputs, not the real system's state)."""
    calls = read_trace(path)
    env, stub = Environment(spec), Environment(_stub_spec(spec))
    tally: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    episodes: dict[Any, tuple[Any, Any]] = {}
    for call in calls:
        if call.sequence not in episodes:
            episodes[call.sequence] = (env.episode(max_steps=10**6), stub.episode(max_steps=10**6))
        synth, fake = episodes[call.sequence]
        s, f = synth.call_tool(call.tool, call.arguments), fake.call_tool(call.tool, call.arguments)
        _compare(tally[call.tool], call.ok, call.output, s, f)
    return _measurement(str(path), len(episodes), tally, [])


def _compare(t: dict[str, list[float]], real_ok: bool, real_output: Any, s: Any, f: Any) -> None:
    t["outcome"].append(float(real_ok == s.ok))
    t["stub_outcome"].append(float(real_ok == f.ok))
    if real_ok and s.ok:
        t["exact"].append(float(canonical_numbers(real_output) == canonical_numbers(s.data)))
        t["fields"].append(_leaf_share(real_output, s.data))
    if real_ok and f.ok:
        t["stub_exact"].append(float(canonical_numbers(real_output) == canonical_numbers(f.data)))
        t["stub_fields"].append(_leaf_share(real_output, f.data))


def _measurement(
    source: str, sequences: int, tally: dict[str, dict[str, list[float]]], finals: list[float]
) -> Measurement:
    every: dict[str, list[float]] = defaultdict(list)
    for t in tally.values():
        for k, v in t.items():
            every[k] += v
    tools = tuple(_tool_agreement(name, t) for name, t in sorted(tally.items()))
    return Measurement.model_validate(
        {"source": source, "sequences": sequences, "calls": len(every["outcome"]), "final_state": _mean(finals),
         "tools": tools, **_scores(every)}
    )  # fmt: skip


def _stub_spec(spec: EnvSpec) -> EnvSpec:
    """Every tool a fallback: always succeeds, echoes its output schema, changes nothing."""
    from envfactory.ir.effect import Behaviour, FallbackEffect

    stubbed = tuple(
        Behaviour(tool=b.tool, effect=FallbackEffect(reason="the always-succeeding stub"), fidelity="low")
        for b in spec.behaviours
    )
    return spec.model_copy(update={"behaviours": stubbed})


def _known_keys(start: dict[str, list[JSON]] | None) -> list[Any]:
    return [r.get("id") for rows in (start or {}).values() for r in rows if r.get("id") is not None]


def _learn(keys: list[Any], result: Any) -> None:
    """Remember the ids a successful real call returned (a booking just made can be cancelled next)."""
    if not result.ok:
        return
    data = result.data
    for item in data if isinstance(data, list) else [data]:
        if isinstance(item, dict):
            for field, value in item.items():
                if (field == "id" or field.endswith("_id")) and isinstance(value, (str, int)) and value not in keys:
                    keys.append(value)


def _arguments(schema: JSON, keys: list[Any], rng: random.Random, maker: ValueMaker) -> JSON:
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    args: JSON = {}
    for name, prop in props.items():
        if name not in required and rng.random() < 0.5:
            continue
        if (name == "id" or name.endswith("_id")) and keys and rng.random() < ID_SHARE:
            typed = [k for k in keys if isinstance(k, int) == (prop.get("type") == "integer")]
            if typed:
                args[name] = rng.choice(typed)
                continue
        args[name] = maker.value(prop, name)
    return args


def _leaves(value: Any, path: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(_leaves(v, f"{path}.{k}"))
        return out
    if isinstance(value, list):
        out = {}
        for i, v in enumerate(value):
            out.update(_leaves(v, f"{path}[{i}]"))
        return out
    return {path: canonical_numbers(value)}


def _leaf_share(real: Any, other: Any) -> float:
    a, b = _leaves(real), _leaves(other)
    union = set(a) | set(b)
    return sum(1 for k in union if k in a and k in b and a[k] == b[k]) / len(union) if union else 1.0


def _same_rows(real: list[JSON], synth: list[JSON]) -> bool:
    key = lambda r: str(r.get("id"))  # noqa: E731
    return sorted(map(canonical_numbers, real), key=key) == sorted(map(canonical_numbers, synth), key=key)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _scores(t: dict[str, list[float]]) -> dict[str, float | None]:
    """The agreement figures of a tally, ours and the stub's (shared by a tool's and the overall)."""
    return {
        "outcome": _mean(t["outcome"]) or 0.0,
        "stub_outcome": _mean(t["stub_outcome"]) or 0.0,
        "output_exact": _mean(t["exact"]),
        "stub_output_exact": _mean(t["stub_exact"]),
        "output_fields": _mean(t["fields"]),
        "stub_output_fields": _mean(t["stub_fields"]),
    }


def _tool_agreement(name: str, t: dict[str, list[float]]) -> ToolAgreement:
    same_error = _mean(t["same_error"]) or 0.0
    return ToolAgreement.model_validate(
        {"tool": name, "calls": len(t["outcome"]), "same_error": same_error, **_scores(t)}
    )


__all__ = ["Measurement", "ToolAgreement", "TraceCall", "entity_rows", "measure", "measure_trace", "read_trace"]

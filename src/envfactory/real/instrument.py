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

import contextlib
import math
import random
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import orjson
from pydantic import BaseModel, ConfigDict

from envfactory.core import BROKEN
from envfactory.errors import SpecError
from envfactory.ingest import load
from envfactory.ir.effect import ShellEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import SINGLETON_KEY
from envfactory.ir.tool import dump_tool
from envfactory.real.keypool import Aliases, KeyPool
from envfactory.real.mcp import PREFIX, TMP, McpSession, McpTarget
from envfactory.real.mirror import entity_rows, mirror_object, served_model
from envfactory.real.owner import owner_state
from envfactory.real.replies import reply_error
from envfactory.real.trace import Final
from envfactory.runtime.behaviours import error_class
from envfactory.runtime.canonical import canonical_number
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.seeding import derive_seed
from envfactory.synth import synthesize
from envfactory.values import ValueMaker

JSON = dict[str, Any]


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

    earned: int | None = None  # calls not agreed on by both refusing or both answering nothing
    earned_outcome: float | None = None  # outcome agreement on those calls
    stub_earned_outcome: float | None = None
    mutual_refusals: int = 0  # calls both sides refused: agreement that earns no grade
    both_empty: int = 0  # calls both answered nothing (null, {}, [], "")

    @property
    def grade(self) -> str:
        """``unmeasured`` when no call was earned (every agreement came from both sides refusing or
        answering nothing); else, on the earned calls, ``high`` only when measured so: outcomes agree
        on >= 90 %, >= 70 % of output fields agree, and one of the two beats the stub by 20 points (a
        search that always succeeds can only beat it on its outputs); ``medium`` when either beats
        the stub at all; else ``low``."""
        if self.earned == 0:
            return "unmeasured"
        outcome = self.earned_outcome if self.earned_outcome is not None else self.outcome
        stub = self.stub_earned_outcome if self.stub_earned_outcome is not None else self.stub_outcome
        fields = self.output_fields if self.output_fields is not None else 0.0
        stub_fields = self.stub_output_fields if self.stub_output_fields is not None else 0.0
        margin = max(outcome - stub, fields - stub_fields)
        if outcome >= 0.9 and fields >= 0.7 and margin >= 0.2:
            return "high"
        if outcome >= 0.7 and margin > 0:
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
    real_crashes: int = 0  # calls on which the real code crashed (``internal_error``): left out of every figure
    tools: tuple[ToolAgreement, ...]
    earned_outcome: float | None = None  # outcome agreement on calls not agreed on by refusing or answering nothing
    stub_earned_outcome: float | None = None
    mutual_refusals: float | None = None  # share of calls both sides refused (reported apart; earns no grade)
    both_empty: float | None = None  # share of calls both sides answered with nothing

    def grades(self) -> dict[str, str]:
        return {t.tool: t.grade for t in self.tools}


SIGN_IN = frozenset({"username", "user_name", "password"})


def _natural(spec: EnvSpec) -> frozenset[str]:
    """Arguments that name things besides ids and names: the entities' own keys (a stock's
    ``symbol``) and the entities' names (``add_to_watchlist(stock)``)."""
    keys = {e.key for e in spec.state_schema.entities if e.key not in ("id", SINGLETON_KEY)}
    return frozenset(keys | {e.name for e in spec.state_schema.entities if e.key != SINGLETON_KEY})


def measure(
    spec: EnvSpec,
    against: str,
    *,
    sequences: int = 40,
    length: int = 10,
    seed: int = 0,
    env: dict[str, str] | None = None,
    log: Path | None = None,
    final_tool: str | None = None,
    progress: Callable[[int], None] | None = None,
    scenario: str | None = None,
    scenario_loader: str | None = None,
    trust_code: bool = False,
) -> Measurement:
    """Replay seeded call sequences on the environment ``spec`` and on ``against``: a trusted
    ``file.py:Class`` implementing the same tools, or a live server ``mcp+stdio:CMD`` (started fresh
    for every sequence, with ``env`` and its stderr appended to ``log``); see the module docstring.
    A Python class is made fresh per sequence and given the JSON ``scenario`` through its loader; a
    server gets ``scenario``'s setup calls (``[{"tool", "arguments"}]``) first, and the environment
    starts where they leave it.

    Final states are compared through the object's records (Python) or through ``final_tool``, a
    read-everything tool called on both sides at the end (by default the read-only tool without
    required arguments whose name says it reads everything, if there is one)."""
    real_side = real_source(spec, against, env=env, log=log, final_tool=final_tool, scenario=scenario,
                            scenario_loader=scenario_loader)  # fmt: skip
    synth_spec = real_side.synth_spec
    synth_env, stub = Environment(synth_spec, trust_code=trust_code), Environment(_stub_spec(synth_spec))
    tally: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    crashes: dict[str, int] = defaultdict(int)
    finals: list[float] = []
    for n in range(sequences):
        rng = random.Random(derive_seed(seed, "fidelity", n))
        maker = ValueMaker(derive_seed(seed, "values", n), synth_spec.config.clock_start)
        synth, fake = synth_env.episode(max_steps=10**6), stub.episode(max_steps=10**6)
        with real_side.sequence() as real:
            keys, aliases = KeyPool(real.known_keys(), names=_natural(synth_spec)), Aliases()
            keys.learn(real.known_fields())  # a user knows their own sign-in
            for _ in range(length):
                tool = rng.choice(synth_spec.tools.tools)
                args = keys.arguments(tool.input_schema, rng, maker)
                ours = aliases.translate(args)  # the environment is called with the ids it made itself
                r, s, f = real.call(tool.name, args), synth.call_tool(tool.name, ours), fake.call_tool(tool.name, ours)
                if r.error_code in BROKEN:  # the real code crashed: no behaviour to agree with, counted apart
                    crashes[tool.name] += 1
                    continue
                if r.ok:
                    keys.learn(args)
                    keys.learn(r.data)
                    if s.ok:
                        aliases.pair(r.data, s.data)
                t = tally[tool.name]
                # ids and tokens either side minted are compared as the pairs they are (real 3426812 is booking_0011)
                _compare(t, r.ok, aliases.translate(r.data) if r.ok else None, s, f)
                if not r.ok and not s.ok and r.error_code is not None:
                    t["same_error"].append(float(r.error_code == s.error))
            final = real.same_final_state(synth)
        if final is not None:
            finals.append(float(final))
        if progress is not None:
            progress(n + 1)
    return _measurement(against, sequences, tally, finals, crashes)


def real_source(spec: EnvSpec, against: str, *, env: dict[str, str] | None = None, log: Path | None = None,
                final_tool: str | None = None, scenario: str | None = None,
                scenario_loader: str | None = None) -> RealSide:  # fmt: skip
    """The real side ``against`` names: a live server ``mcp+stdio:CMD`` or a trusted ``file.py:Class``."""
    if against.startswith(PREFIX):
        return McpSide(spec, McpTarget.parse(against, env), log, final_tool, scenario)
    return PythonSide(spec, against, final_tool, scenario, scenario_loader)


class RealCall(BaseModel):
    """What the real side answered: ok or not, its data, and an error code where it has ours."""

    model_config = ConfigDict(frozen=True)

    ok: bool
    data: Any = None
    error_code: str | None = None


def real_call(ok: bool, data: Any, error: str | None = None, args: JSON | None = None) -> RealCall:
    """A server's answer as a ``RealCall``: a refusal dressed as a reply (``"Error: ..."``,
    ``{"success": false}``: :func:`~envfactory.real.replies.reply_error`) is a refusal."""
    if ok:
        message = reply_error(data, args)
        if message is None:
            return RealCall(ok=True, data=data)
        error = message
    return RealCall(ok=False, error_code=error_class(error) if error else None)


class RealSequence(Protocol):
    def known_keys(self) -> list[Any]: ...
    def known_fields(self) -> JSON: ...
    def call(self, tool: str, args: JSON) -> RealCall: ...
    def same_final_state(self, synth: Episode) -> bool | None: ...
    def final(self) -> Final | None: ...


class RealSide(Protocol):
    synth_spec: EnvSpec

    def sequence(self) -> contextlib.AbstractContextManager[RealSequence]: ...


class PythonSide:
    """A trusted ``file.py:Class``: a fresh bound object per sequence; the synthesized environment
    starts from the object's own initial records (mapped onto its entities)."""

    def __init__(self, spec: EnvSpec, against: str, final_tool: str | None, scenario: str | None = None,
                 scenario_loader: str | None = None) -> None:  # fmt: skip
        loaded = load(against, trust_code=True)
        bound = synthesize(loaded, bind=True, state="empty", scenario=scenario, scenario_loader=scenario_loader)
        self.env = Environment(bound, trust_code=True)
        missing = sorted(set(spec.tools.names) - {t.name for t in loaded.toolset.tools})
        if missing:
            raise SpecError(f"the implementation lacks tools of {spec.name!r}: {', '.join(missing)}", file=against)
        self.synth_spec, self.start = mirror_object(spec, self.env)
        self.final_tool = final_tool

    @contextlib.contextmanager
    def sequence(self) -> Iterator[RealSequence]:
        yield _PythonSequence(self, self.env.episode(max_steps=10**6))


class _PythonSequence:
    def __init__(self, side: PythonSide, episode: Episode) -> None:
        self.side, self.episode = side, episode

    def known_keys(self) -> list[Any]:
        spec = self.side.synth_spec
        shells = {b.effect.entity for b in spec.behaviours if isinstance(b.effect, ShellEffect)}
        keys = [
            (e, r.get(spec.state_schema[e].key))
            for e, rows in (self.side.start or {}).items()
            for r in rows
            if spec.state_schema[e].key != SINGLETON_KEY
        ]  # a singleton's hidden key names nothing real
        # a shell's tools name things relative to the current folder: their names, not their paths
        return [str(k).rstrip("/").rsplit("/", 1)[-1] if e in shells else k for e, k in keys if k is not None]

    def known_fields(self) -> JSON:
        """The sign-in a user of the object knows: its singletons' stored ``username`` and ``password``."""
        spec = self.side.synth_spec
        return {field: value for e, rows in (self.side.start or {}).items()
                if spec.state_schema[e].key == SINGLETON_KEY for row in rows for field, value in row.items()
                if field in SIGN_IN and isinstance(value, str) and value}  # fmt: skip

    def call(self, tool: str, args: JSON) -> RealCall:
        r = self.episode.call_tool(tool, args)
        return RealCall(ok=r.ok, data=r.data if r.ok else None, error_code=r.error)

    def final(self) -> Final | None:
        """What the object holds now: its read-everything tool's answer, else its records."""
        if self.side.final_tool:
            return _dump(self.side.final_tool, self.call, self.side.synth_spec)
        if self.side.start is None:
            return None
        rows = entity_rows(owner_state(self.episode._ctx.owner), self.side.synth_spec.state_schema)
        return None if rows is None else Final(rows=rows)

    def same_final_state(self, synth: Episode) -> bool | None:
        if self.side.final_tool:
            return _same_dump(self.side.final_tool, self.call, synth)
        if self.side.start is None:
            return None
        real_rows = entity_rows(owner_state(self.episode._ctx.owner), self.side.synth_spec.state_schema)
        if real_rows is None:  # the object's records cannot be read (a tree of its own classes): unknown
            return None
        schema = self.side.synth_spec.state_schema
        for entity, rows in real_rows.items():
            mine = list(synth.store.rows(entity))
            if schema[entity].key == SINGLETON_KEY:  # only the fields the object holds
                mine = _seen(mine, rows)
            if not _same_rows(rows, mine, schema[entity].key):
                return False
        return True


class McpSide:
    """A live MCP server, started fresh (with a fresh ``{tmp}`` folder) for every sequence; both
    sides start empty. When the command names ``{tmp}`` (a file server's root), it is a known key,
    so path arguments point inside it."""

    def __init__(
        self, spec: EnvSpec, target: McpTarget, log: Path | None, final_tool: str | None, setup: str | None = None
    ) -> None:
        from envfactory.real.served import read_setup

        self.target, self.log = target, log
        self.setup = read_setup(setup, spec.tools.names, spec.name) if setup else []
        with McpSession(target, log=log) as probe:  # fail early, and check the tools are the server's
            listed = set(probe.tool_names())
        missing = sorted(set(spec.tools.names) - listed)
        if missing:
            raise SpecError(f"the server lacks tools of {spec.name!r}: {', '.join(missing)}", file=target.label)
        self.synth_spec = served_model(spec, target, self.setup)
        self.final_tool = final_tool or dump_tool(spec.tools)

    @contextlib.contextmanager
    def sequence(self) -> Iterator[RealSequence]:
        from envfactory.real.served import set_up

        with McpSession(self.target, log=self.log) as session:
            set_up(session, self.setup, self.target.label)
            yield _McpSequence(self, session)


class _McpSequence:
    """Calls on one fresh server. Its ``{tmp}`` folder is random, so both sides see the literal
    ``{tmp}``: it is put in for the server and taken out of its answers (runs stay reproducible)."""

    def __init__(self, side: McpSide, session: McpSession) -> None:
        self.side, self.session = side, session

    def known_keys(self) -> list[Any]:
        """``{tmp}`` for a file server rooted there, and the keys of the records its setup calls made."""
        keys: list[Any] = [TMP] if any(TMP in a for a in self.side.target.argv) else []
        if self.side.setup:
            spec = self.side.synth_spec
            for name, rows in spec.initial_state.items():
                key = spec.state_schema[name].key
                keys += [row[key] for row in rows if key != SINGLETON_KEY and row.get(key) is not None]
        return keys

    def known_fields(self) -> JSON:
        return {}

    def call(self, tool: str, args: JSON) -> RealCall:
        r = self.session.call(tool, args)  # ``{tmp}`` is put in for the server and taken out of its answers
        return real_call(r.ok, r.data, r.error, args)

    def same_final_state(self, synth: Episode) -> bool | None:
        return _same_dump(self.side.final_tool, self.call, synth) if self.side.final_tool else None

    def final(self) -> Final | None:
        return _dump(self.side.final_tool, self.call, self.side.synth_spec) if self.side.final_tool else None


def _dump(tool: str, real_call: Callable[[str, JSON], RealCall], spec: EnvSpec) -> Final | None:
    """The read-everything tool's answer on the real side, as a recorded final state."""
    args = {"path": TMP} if spec.tools[tool].required == ["path"] else {}
    r = real_call(tool, args)
    return Final(tool=tool, arguments=args, output=r.data) if r.ok else None


def _same_dump(tool: str, real_call: Callable[[str, JSON], RealCall], synth: Episode) -> bool:
    """The read-everything tool on both sides (a required ``path`` is the ``{tmp}`` root)."""
    required = synth.env.spec.tools[tool].required
    args = {"path": TMP} if required == ["path"] else {}
    r, s = real_call(tool, args), synth.call_tool(tool, args)
    return r.ok and s.ok and same_value(_normalized(r.data), _normalized(s.data))


def _normalized(value: Any) -> Any:
    """Lists as multisets (a dump's order is not the state): sorted by their items' rounded text."""
    if isinstance(value, dict):
        return {k: _normalized(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((_normalized(v) for v in value), key=_order)
    return value


def _order(value: Any) -> bytes:
    return orjson.dumps(_rounded(value), option=orjson.OPT_SORT_KEYS)


def _compare(t: dict[str, list[float]], real_ok: bool, real_output: Any, s: Any, f: Any) -> None:
    # the model's replies are read as the real one's: answering {"success": false} refused; the stub
    # always succeeds, whatever placeholder its echo holds
    s_ok, f_ok = _accepted(s), bool(f.ok)
    t["outcome"].append(float(real_ok == s_ok))
    t["stub_outcome"].append(float(real_ok == f_ok))
    mutual = not real_ok and not s_ok
    empty = real_ok and s_ok and real_output in _NOTHING and s.data in _NOTHING
    t["mutual"].append(float(mutual))
    t["empty"].append(float(empty))
    if not mutual and not empty:  # agreement either side earned by answering something
        t["earned"].append(float(real_ok == s_ok))
        t["stub_earned"].append(float(real_ok == f_ok))
    for side, result, ok in (("", s, s_ok), ("stub_", f, f_ok)):
        if real_ok and ok:
            real, other = _opened(real_output, result.data)
            same = _same_output(real, other)
            t[f"{side}exact"].append(float(same))
            t[f"{side}fields"].append(1.0 if same else _leaf_share(real, other))


def _accepted(result: Any) -> bool:
    """Whether a result accepted the call: ok, and its reply no refusal dressed as an answer."""
    return bool(result.ok) and reply_error(result.data) is None


def _opened(real: Any, other: Any) -> tuple[Any, Any]:
    """Both answers with an envelope taken off: a one-key object facing an answer without that key
    stands for its value (a description declares ``{airports: [...]}`` where the code returns the
    list, or ``{status: {...}}`` where it returns the inner object)."""
    if isinstance(other, dict) and len(other) == 1 and not (isinstance(real, dict) and real.keys() & other.keys()):
        return real, next(iter(other.values()))
    if isinstance(real, dict) and len(real) == 1 and not (isinstance(other, dict) and other.keys() & real.keys()):
        return next(iter(real.values())), other
    return real, other


_NOTHING: tuple[Any, ...] = (None, "", {}, [])


def _same_output(real: Any, other: Any) -> bool:
    """Equal answers; an answer of nothing (``null``, ``{}``, ``[]``, ``""``) equals any other."""
    return (real in _NOTHING and other in _NOTHING) or same_value(real, other)


def _measurement(
    source: str,
    sequences: int,
    tally: dict[str, dict[str, list[float]]],
    finals: list[float],
    crashes: dict[str, int] | None = None,
) -> Measurement:
    every: dict[str, list[float]] = defaultdict(list)
    for t in tally.values():
        for k, v in t.items():
            every[k] += v
    tools = tuple(_tool_agreement(name, t) for name, t in sorted(tally.items()))
    return Measurement.model_validate(
        {"source": source, "sequences": sequences, "calls": len(every["outcome"]), "final_state": _mean(finals),
         "tools": tools, "real_crashes": sum((crashes or {}).values()), **_scores(every),
         "earned_outcome": _mean(every["earned"]), "stub_earned_outcome": _mean(every["stub_earned"]),
         "mutual_refusals": _mean(every["mutual"]), "both_empty": _mean(every["empty"])}
    )  # fmt: skip


def _stub_spec(spec: EnvSpec) -> EnvSpec:
    """Every tool a fallback: always succeeds, echoes its output schema, changes nothing."""
    from envfactory.ir.effect import Behaviour, FallbackEffect

    stubbed = tuple(
        Behaviour(tool=b.tool, effect=FallbackEffect(reason="the always-succeeding stub"), fidelity="low")
        for b in spec.behaviours
    )
    return spec.model_copy(update={"behaviours": stubbed})


def _leaves(value: Any, path: str = "") -> dict[str, Any]:
    """Every leaf by its path; an empty object or list is a leaf too (else ``[]`` matches anything)."""
    if isinstance(value, (dict, list)) and not value:
        return {path: value}
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
    return {path: value}


def _leaf_share(real: Any, other: Any) -> float:
    a, b = _leaves(real), _leaves(other)
    union = set(a) | set(b)
    return sum(1 for k in union if k in a and k in b and same_value(a[k], b[k])) / len(union) if union else 1.0


REL_TOL = 1e-6


def same_value(a: Any, b: Any) -> bool:
    """Equal JSON values, numbers within a relative ``REL_TOL``: two implementations of one formula
    (``gallon * 3.78541`` and ``gallon * 3.785411784``, ``3`` and ``3.0``) agree; a boolean equals
    only a boolean."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or math.isclose(a, b, rel_tol=REL_TOL)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(v, b[k]) for k, v in a.items())
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _rounded(value: Any) -> Any:
    """``value`` with floats to 6 significant digits and integral ones as integers (an order for
    values that ``same_value`` may call equal)."""
    if type(value) is float:
        return canonical_number(float(f"{value:.6g}")) if math.isfinite(value) else value
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def _same_rows(real: list[JSON], synth: list[JSON], key_field: str = "id") -> bool:
    key = lambda r: str(r.get(key_field))  # noqa: E731
    return same_value(sorted(real, key=key), sorted(synth, key=key))


def _seen(synth: list[JSON], real: list[JSON]) -> list[JSON]:
    """A singleton's synthesized row cut to the fields the real object holds."""
    held = set(real[0]) if real else set()
    return [{k: v for k, v in row.items() if k in held} for row in synth]


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
        {"tool": name, "calls": len(t["outcome"]), "same_error": same_error, **_scores(t),
         "earned": len(t["earned"]), "earned_outcome": _mean(t["earned"]),
         "stub_earned_outcome": _mean(t["stub_earned"]),
         "mutual_refusals": int(sum(t["mutual"])), "both_empty": int(sum(t["empty"]))}
    )  # fmt: skip


__all__ = ["Measurement", "RealSide", "ToolAgreement", "entity_rows", "measure", "real_call", "real_source"]

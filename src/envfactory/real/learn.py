"""Learning an environment from the real thing: explore, choose among candidates, measure on held-out sequences.

``learn(spec, source)`` takes the environment synthesized from the descriptions and a source — a
trusted ``file.py:Class``, a live server ``mcp+stdio:CMD``, or a trace file (JSON lines) — and

1. gathers evidence: ``budget`` calls explored on the live source
   (:func:`~envfactory.real.explore.explore`), or the trace's recorded calls;
2. splits the sequences into learning and held-out ones — or, with ``test_budget`` on a live
   source, explores that many of the budget's calls apart, with moves of their own
   (:data:`~envfactory.real.explore.YARDSTICK`) and their own seed, and measures on those only, so
   the yardstick stays put when how learning explores changes; on a live source a tenth of the budget
   replays learning sequences on another fresh copy, and the reply places it answers otherwise (a
   clock's stamp) count by their presence only in every comparison that follows
   (:mod:`~envfactory.real.volatile`);
3. lets the chooser (:func:`~envfactory.synth.chooser.choose`) pick each tool's behaviour among the
   proposers' candidates on the learning sequences only;
4. replays the held-out sequences on the description-only model, the learned one, the stub and —
   for a live source — a second fresh copy of the real thing (the ceiling).

Every figure and grade comes from held-out sequences.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from envfactory.core import BROKEN
from envfactory.errors import SpecError
from envfactory.ir.effect import ListEffect
from envfactory.ir.env import EnvSpec
from envfactory.real.agreement import Measurement, measurement, normalized, same_value, stub_spec, tally_call
from envfactory.real.explore import read_back
from envfactory.real.instrument import RealSide, real_source
from envfactory.real.keypool import Aliases
from envfactory.real.mcp import PREFIX
from envfactory.real.replay import replay
from envfactory.real.trace import Final, Sequence, Trace, read_trace, split
from envfactory.real.volatile import masked, volatile_places
from envfactory.seeding import derive_seed

JSON = dict[str, Any]


STEADY_SHARE = 10  # a tenth of the budget replays learning sequences on a fresh copy (``real/volatile.py``)


class Figures(BaseModel):
    """Held-out agreement of one side with the recorded real answers."""

    model_config = ConfigDict(frozen=True)

    outcome: float
    earned_outcome: float | None  # outcome on calls not agreed on by both refusing or answering nothing
    exact: float | None
    fields: float | None
    final_state: float | None
    mutual_refusals: float | None

    @classmethod
    def of(cls, m: Measurement, *, stub: bool = False) -> Figures:
        if stub:
            return cls(outcome=m.stub_outcome, earned_outcome=m.stub_earned_outcome, exact=m.stub_output_exact,
                       fields=m.stub_output_fields, final_state=None, mutual_refusals=None)  # fmt: skip
        return cls(outcome=m.outcome, earned_outcome=m.earned_outcome, exact=m.output_exact, fields=m.output_fields,
                   final_state=m.final_state, mutual_refusals=m.mutual_refusals)  # fmt: skip


class LearnReport(BaseModel):
    """What ``learn`` did and measured."""

    model_config = ConfigDict(frozen=True)

    source: str
    evidence: str  # "real" (explored live) or "traces"
    calls: int
    learning_sequences: int
    held_out_sequences: int
    described: Figures
    learned: Figures
    stub: Figures
    stub_final_state: float | None
    ceiling: Figures | None
    grades: dict[str, str]
    changed: dict[str, str]  # tool -> the candidate that replaced its prior
    seconds: float
    # reply places a fresh copy answered otherwise, counted by presence only (``real/volatile.py``)
    volatile: tuple[str, ...] = ()
    # the reads whose answers at each sequence's end stood for its final state (a live server with no
    # read-everything tool and none given: every list that needs no argument)
    final_reads: tuple[str, ...] = ()


def learn(
    spec: EnvSpec,
    source: str | Path,
    *,
    budget: int = 500,
    seed: int = 0,
    held_out: float = 0.3,
    length: int = 10,
    env: dict[str, str] | None = None,
    final_tool: str | None = None,
    scenario: str | None = None,
    log: Path | None = None,
    final_reads: list[tuple[str, JSON]] | None = None,
    examples: list[tuple[str, JSON]] | None = None,
    progress: Callable[[str], None] | None = None,
    test_budget: int = 0,
) -> tuple[EnvSpec, LearnReport, Trace]:
    """The learned environment, its report and the evidence (see the module docstring). A live
    source runs code: the caller has the user's consent for it. ``test_budget`` (live sources):
    calls of the budget explored apart to measure on, recorded as the trace's ``held_out``."""
    from envfactory.real.explore import YARDSTICK, explore
    from envfactory.synth.chooser import choose

    started = time.perf_counter()
    say = progress or (lambda _m: None)
    text = str(source)
    real: RealSide | None = None
    if not 0 <= test_budget <= budget // 2:
        raise SpecError(f"calls explored apart to measure on ({test_budget}) must be at most half the budget "
                        f"({budget})", file=text)  # fmt: skip
    if _is_trace(text):
        trace, kind = read_trace(Path(text)), "traces"
        model = _started(spec, trace)
    else:
        real = real_source(spec, text, env=env, log=log, final_tool=final_tool, scenario=scenario)
        model, kind = real.synth_spec, "real"
        if final_reads is None and text.startswith(PREFIX) and getattr(real, "final_tool", None) is None:
            final_reads = default_final_reads(model)
        explored = partial(explore, spec, real, length=length, source=text, final_reads=final_reads, examples=examples)
        trace = explored(budget=budget - budget // STEADY_SHARE - test_budget, seed=seed,
                         progress=lambda done, total: say(f"explored {done}/{total} calls"))  # fmt: skip
        if test_budget:
            test = explored(budget=test_budget, seed=derive_seed(seed, "held-out"), moves=YARDSTICK,
                            first_id=len(trace.sequences), aimed=False,
                            progress=lambda done, total: say(f"explored {done}/{total} to measure on"))  # fmt: skip
            trace = trace.model_copy(update={"sequences": trace.sequences + test.sequences,
                                             "held_out": tuple(s.id for s in test.sequences)})  # fmt: skip
    unknown = sorted({c.tool for s in trace.sequences for c in s.calls} - set(spec.tools.names))
    if unknown:
        raise SpecError(f"the evidence calls tools {spec.name!r} does not have: {', '.join(unknown[:10])}", file=text)
    learning, held = split(trace, held_out, seed)
    if not held.sequences:
        raise SpecError("learning needs at least two sequences (one to learn from, one held out to measure on); "
                        f"this evidence holds {len(trace.sequences)}", file=text)  # fmt: skip
    replayed = 0
    if real is not None:  # which reply places a fresh copy answers otherwise, on learning sequences only
        again = _within(learning.sequences, budget // STEADY_SHARE)
        replayed = sum(len(s.calls) for s in again)
        say(f"replaying {len(again)} learning sequences on a fresh copy for the places it does not reproduce")
        volatile = tuple(sorted(volatile_places(again, real.sequence)))
        trace, learning, held = (t.model_copy(update={"volatile": volatile}) for t in (trace, learning, held))
    say(f"choosing on {len(learning.sequences)} sequences, {len(held.sequences)} held out")
    accepted = _setup_calls(scenario) if real is not None and text.startswith(PREFIX) else ()
    learned = choose(model, learning, evidence_kind=kind, accepted=accepted, progress=say)  # type: ignore[arg-type]
    before, after = replay(model, held), replay(learned, held)
    ceiling = _ceiling(real, held, final_reads or []) if real is not None else None
    report = LearnReport(
        source=text, evidence=kind, calls=trace.calls + replayed, learning_sequences=len(learning.sequences),
        held_out_sequences=len(held.sequences), described=Figures.of(before), learned=Figures.of(after),
        stub=Figures.of(after, stub=True), stub_final_state=_stub_final(learned, held),
        ceiling=Figures.of(ceiling) if ceiling is not None else None, grades=after.grades(),
        changed={c.tool: c.chosen.summary for c in learned.choices if c.chosen.proposer != "descriptions"},
        seconds=round(time.perf_counter() - started, 2), volatile=held.volatile,
        final_reads=tuple(dict.fromkeys(tool for tool, _ in final_reads or ())),
    )  # fmt: skip
    return learned, report, trace


FINAL_READS = 4  # lists read at a sequence's end, at most, where nothing reads everything


def default_final_reads(spec: EnvSpec) -> list[tuple[str, JSON]]:
    """What stands for a live server's final state where no tool reads everything and none was
    given: the answers of its lists that need no argument (``list_tasks``, ``list_projects``)."""
    lists = [b.tool for b in spec.behaviours if isinstance(b.effect, ListEffect) and not spec.tools[b.tool].required]
    return [(tool, {}) for tool in lists[:FINAL_READS]]


def _within(sequences: tuple[Sequence, ...], calls: int) -> list[Sequence]:
    """The first of ``sequences`` that fit in ``calls`` calls, the last one cut short to fit."""
    kept: list[Sequence] = []
    for seq in sequences:
        room = calls - sum(len(s.calls) for s in kept)
        if room <= 0:
            break
        cut = seq.model_copy(update={"calls": seq.calls[:room], "final": None})
        kept.append(seq if len(seq.calls) <= room else cut)
    return kept


def _setup_calls(scenario: str | None) -> tuple[tuple[str, JSON], ...]:
    """The setup calls every fresh server accepted before its sequence: evidence of accepted values."""
    if scenario is None:
        return ()
    import json

    try:
        calls = json.loads(Path(scenario).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ()
    return tuple((c["tool"], c.get("arguments") or {}) for c in calls if isinstance(c, dict) and "tool" in c)


def _started(spec: EnvSpec, trace: Trace) -> EnvSpec:
    """``spec`` starting where the trace's sequences started, when the trace says (its entities only)."""
    if trace.start is None:
        return spec
    rows = {name: trace.start.get(name, []) for name in spec.state_schema.names}
    return spec.model_copy(update={"initial_state": rows})


def _is_trace(source: str) -> bool:
    return not source.startswith(PREFIX) and source.endswith((".jsonl", ".json")) and ":" not in Path(source).name


def _stub_final(spec: EnvSpec, held: Trace) -> float | None:
    """The stub's final-state agreement: a model that changes nothing, replayed on the held-out calls."""

    return replay(stub_spec(spec), held).final_state


def _ceiling(real: RealSide, held: Trace, final_reads: list[tuple[str, JSON]]) -> Measurement:
    """A second fresh copy of the real thing given the held-out calls: how far the real thing agrees
    with itself (minted ids paired as for a model)."""
    tally: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    finals: list[float] = []
    volatile = frozenset(held.volatile)
    for seq in held.sequences:
        aliases = Aliases()
        with real.sequence() as side:
            for call in seq.calls:
                r = side.call(call.tool, aliases.translate(call.arguments))
                if r.error_code in BROKEN:
                    continue
                if call.ok and r.ok:
                    aliases.pair(call.output, r.data)
                real_output = aliases.translate(call.output) if call.ok else None
                tally_call(tally[call.tool], call.ok, real_output, r, r, mask=partial(masked, tool=call.tool,
                                                                                      volatile=volatile))  # fmt: skip
            again = side.final() or read_back(side, final_reads)
        if seq.final is not None and again is not None:
            a, b = _held(seq.final, volatile), _held(again, volatile)
            finals.append(float(same_value(normalized(aliases.translate(a)), normalized(b))))
    return measurement("ceiling", len(held.sequences), tally, finals)


def _held(final: Final, volatile: frozenset[str]) -> Any:
    if final.reads:
        return [masked(r.get("output"), str(r.get("tool")), volatile) if r.get("ok", True) else "refused"
                for r in final.reads]  # fmt: skip
    return masked(final.output, final.tool, volatile) if final.tool else final.rows


__all__ = ["Figures", "LearnReport", "default_final_reads", "learn"]

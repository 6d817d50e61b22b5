"""Recorded sequences replayed on a model (and on the always-succeeding stub), compared call by call.

Each sequence runs on a fresh episode of the model, in order. Ids the real system minted are
paired with the ones the model minted in the same calls (:class:`~envfactory.real.keypool.Aliases`),
so later calls reach the model's own records and answers compare through the same pairs. A
sequence's recorded final state is compared with the model's: its read-everything tool's answer on
both sides, or its records entity by entity. The figures are the instrument's
(:class:`~envfactory.real.instrument.Measurement`), so held-out replay, live measurement and the
chooser's scores mean the same thing.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from envfactory.ir.env import EnvSpec
from envfactory.ir.state import SINGLETON_KEY
from envfactory.real.agreement import (
    Measurement,
    measurement,
    normalized,
    same_rows,
    same_value,
    seen_fields,
    stub_spec,
    tally_call,
)
from envfactory.real.keypool import Aliases, StartingRecords, holds_key, made_up
from envfactory.real.trace import Final, Sequence, Trace, read_trace
from envfactory.real.volatile import masked
from envfactory.runtime.answers import opened_text
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode

JSON = dict[str, Any]
# (sequence id, call index, the recorded call in the model's ids, the model's result, its value before
# shaping, the model's episode just after the call, the call as recorded: the real side's own ids)
Observer = Callable[[str, int, Any, Any, Any, Episode, Any], None]
# (sequence id, the reads of the real side's recorded final state — (tool, arguments, accepted, answer),
# in the model's ids; a refused read answers ``None`` —, the model's episode at the sequence's end,
# before its own final reads)
EndObserver = Callable[[str, list[tuple[str, JSON, bool, Any]], Episode], None]


def replay(spec: EnvSpec, trace: Trace, *, observe: Observer | None = None, env: Environment | None = None,
           stub: Environment | None = None, trust_code: bool = False,
           observe_end: EndObserver | None = None) -> Measurement:  # fmt: skip
    """Replay ``trace`` on ``spec`` and on the stub (see the module docstring); ``observe`` sees
    every call's recorded side and the model's result, for proposers that learn from pairs;
    ``observe_end`` each sequence's recorded final answers beside the model's episode. A model
    with code or simulated behaviours runs them only with ``trust_code``."""
    env = env or Environment(spec, trust_code=trust_code)
    stub = stub or Environment(stub_spec(spec))
    tally: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    finals: list[float] = []
    volatile = frozenset(trace.volatile)
    started = StartingRecords(env.base.tables)
    for seq in trace.sequences:
        model, fake = env.episode(max_steps=10**6), stub.episode(max_steps=10**6)
        aliases = Aliases()
        for i, call in enumerate(seq.calls):
            ours = aliases.translate(call.arguments)
            s, f = model.call_tool(call.tool, ours), fake.call_tool(call.tool, ours)
            if call.ok and s.ok and not made_up(spec, call.tool):
                aliases.pair(call.output, s.data, given=call.arguments, holds=partial(holds_key, spec, model))
            if call.ok:  # records made before the sequence, which the model's reply may not hold
                aliases.pair_started(call.output, started)
            real = aliases.translate(call.output) if call.ok else None
            tally_call(tally[call.tool], call.ok, real, s, f, mask=partial(masked, tool=call.tool, volatile=volatile))
            if observe is not None:  # the call as the model was given it, its reply in the model's ids
                observe(str(seq.id), i, call.model_copy(update={"arguments": ours, "output": real}), s, model.last_raw,
                        model, call)  # fmt: skip
        if observe_end is not None and seq.final is not None:
            answered = [(r["tool"], r.get("arguments") or {}, r.get("ok", True) is not False, r.get("output"))
                        for r in seq.final.reads if isinstance(r.get("tool"), str)]  # fmt: skip
            if seq.final.tool is not None:
                answered.append((seq.final.tool, seq.final.arguments or {}, True, seq.final.output))
            observe_end(str(seq.id), [(t, aliases.translate(a), ok, aliases.translate(o) if ok else None)
                                      for t, a, ok, o in answered], model)  # fmt: skip
        same = same_final(seq, model, aliases, volatile)
        if same is not None:
            finals.append(float(same))
    return measurement(trace.source, len(trace.sequences), tally, finals)


def same_final(seq: Sequence, model: Episode, aliases: Aliases, volatile: frozenset[str] = frozenset()) -> bool | None:
    """Whether the model ends holding what the real system held (``None``: nothing was recorded);
    ``volatile`` reply places count by their presence only (:mod:`envfactory.real.volatile`)."""
    final: Final | None = seq.final
    if final is None:
        return None
    if final.reads:
        for read in final.reads:
            if read.get("tool") not in model.env.tools:
                return None
            mine = model.call_tool(read["tool"], aliases.translate(read.get("arguments") or {}))
            if read.get("ok", True) is False:  # refused on the real side: refused here too
                if mine.ok:
                    return False
                continue
            tool = read["tool"]
            theirs = normalized(masked(aliases.translate(read.get("output")), tool, volatile))
            if not mine.ok or not same_value(theirs, normalized(masked(opened_text(mine.data), tool, volatile))):
                return False
        return True
    if final.tool is not None:
        if final.tool not in model.env.tools:
            return None
        mine = model.call_tool(final.tool, aliases.translate(final.arguments))
        theirs = masked(aliases.translate(final.output), final.tool, volatile)
        return mine.ok and same_value(normalized(theirs), normalized(masked(mine.data, final.tool, volatile)))
    schema = model.env.spec.state_schema
    for entity, rows in (final.rows or {}).items():
        if entity not in schema:
            return False
        held = list(model.store.rows(entity))
        if schema[entity].key == SINGLETON_KEY:
            held = seen_fields(held, rows)
        if not same_rows(aliases.translate(rows), held, schema[entity].key):
            return False
    return True


def measure_trace(spec: EnvSpec, path: Path, *, trust_code: bool = False) -> Measurement:
    """Replay a trace file of a real system on ``spec`` (from its initial state) beside the stub."""
    return replay(spec, read_trace(path), trust_code=trust_code)


__all__ = ["EndObserver", "Observer", "measure_trace", "replay", "same_final"]

"""Recorded calls of a real system: the evidence learning and held-out measurement rest on.

A trace file is JSON lines. A call line holds ``tool``, ``arguments``, ``ok``, ``output`` (the
reply), optionally ``error`` (a refusal: its kind, ``not_found``, or its message), ``message`` (a
refusal's words as the real side gave them, beside its kind) and ``sequence`` (calls of one sequence ran in
order on one fresh system). A line ``{"sequence": S, "final": {...}}`` records what the system held
at the end of sequence S: ``{"tool", "arguments", "output"}`` (its read-everything tool's answer),
``{"rows": {entity: [records]}}``, or ``{"reads": [{"tool", "arguments", "output"}, ...]}`` (the
answers of reads that together show the state). A line ``{"start": {entity: [records]}}`` says
where every sequence started, as the model's records (an explored trace records it); a line
``{"volatile": [place, ...]}`` the reply places a fresh copy answered otherwise
(:mod:`envfactory.real.volatile`); a line ``{"held_out": [S, ...]}`` the sequences explored apart,
to measure on and never to learn from (:func:`split` keeps them apart). A call
answered ``ok`` whose reply is a refusal (``"Error: ..."``;
:func:`~envfactory.runtime.replies.reply_error`) is read as the refusal it is.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from envfactory.errors import SpecError
from envfactory.runtime.replies import reply_error

JSON = dict[str, Any]


class TraceCall(BaseModel):
    """One call a real system answered: a line of a trace file."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    tool: str
    arguments: JSON = {}
    ok: bool
    output: Any = None
    error: str | None = None
    message: str | None = None  # a refusal's words as the real side gave them ("deadline must be YYYY-MM-DD")
    sequence: str | int = 0


class Final(BaseModel):
    """What the real system held at the end of a sequence (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool: str | None = None
    arguments: JSON = {}
    output: Any = None
    rows: dict[str, list[JSON]] | None = None
    # reads that together show the state, each with its answer (for a system without a
    # read-everything tool): ``[{"tool", "arguments", "output"}]``
    reads: tuple[JSON, ...] = ()


class Sequence(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str | int
    calls: tuple[TraceCall, ...]
    final: Final | None = None


class Trace(BaseModel):
    """Sequences of calls on fresh copies of one real system."""

    model_config = ConfigDict(frozen=True)

    source: str
    sequences: tuple[Sequence, ...]
    # where every sequence started, as the model's records (``{entity: [rows]}``), when known
    start: dict[str, list[JSON]] | None = None
    # reply places a fresh copy does not reproduce (``envfactory.real.volatile``): compared as one mark
    volatile: tuple[str, ...] = ()
    # sequences explored apart from the learning ones, to measure on only (``learn(test_budget=...)``)
    held_out: tuple[str | int, ...] = ()

    @property
    def calls(self) -> int:
        return sum(len(s.calls) for s in self.sequences)

    def of(self, ids: Iterable[str | int]) -> Trace:
        wanted = set(ids)
        return self.model_copy(update={"sequences": tuple(s for s in self.sequences if s.id in wanted)})


def refusal_read(call: TraceCall) -> TraceCall:
    """``call`` with a refusal dressed as a reply read as a refusal."""
    if not call.ok:
        return call
    message = reply_error(call.output, call.arguments)
    return call if message is None else call.model_copy(update={"ok": False, "output": None, "error": message})


def read_trace(path: Path) -> Trace:
    """A trace file (see the module docstring); a clear error names the line that is not one."""
    calls: dict[Any, list[TraceCall]] = {}
    finals: dict[Any, Final] = {}
    start: dict[str, list[JSON]] | None = None
    volatile: tuple[str, ...] = ()
    held_out: tuple[str | int, ...] = ()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise SpecError(f"cannot read the trace: {err.strerror}", file=str(path)) from None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            if isinstance(raw, dict) and isinstance(raw.get("start"), dict) and "tool" not in raw:
                start = raw["start"]
                continue
            if isinstance(raw, dict) and isinstance(raw.get("volatile"), list) and "tool" not in raw:
                volatile = tuple(str(v) for v in raw["volatile"])
                continue
            if isinstance(raw, dict) and isinstance(raw.get("held_out"), list) and "tool" not in raw:
                held_out = tuple(raw["held_out"])
                continue
            if isinstance(raw, dict) and "final" in raw:
                finals[raw.get("sequence", 0)] = Final.model_validate(raw["final"])
                continue
            call = refusal_read(TraceCall.model_validate(raw))
        except (ValueError, ValidationError) as err:
            first = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise SpecError(f"line {number} is not a traced call: {first}", file=str(path)) from None
        calls.setdefault(call.sequence, []).append(call)
    if not calls:
        raise SpecError("the trace holds no calls", file=str(path))
    sequences = tuple(Sequence(id=s, calls=tuple(c), final=finals.get(s)) for s, c in calls.items())
    return Trace(source=str(path), sequences=sequences, start=start, volatile=volatile, held_out=held_out)


def write_trace(trace: Trace, path: Path) -> Path:
    """Write ``trace`` as a trace file that :func:`read_trace` reads back."""
    lines = [json.dumps({"start": trace.start})] if trace.start is not None else []
    lines += [json.dumps({"volatile": list(trace.volatile)})] if trace.volatile else []
    lines += [json.dumps({"held_out": list(trace.held_out)})] if trace.held_out else []
    for seq in trace.sequences:
        lines += [c.model_dump_json(exclude_none=True) for c in seq.calls]
        if seq.final is not None:
            lines.append(json.dumps({"sequence": seq.id, "final": seq.final.model_dump(exclude_none=True)}))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def split(trace: Trace, held_out: float = 0.3, seed: int = 0) -> tuple[Trace, Trace]:
    """The trace's sequences in two parts, learning and held-out: the sequences the trace says were
    explored apart to measure on, where it says so; else ``held_out`` of them (at least one when
    there are two or more), drawn with ``seed``."""
    if trace.held_out:
        apart = set(trace.held_out)
        learning, held = trace.of(s.id for s in trace.sequences if s.id not in apart), trace.of(apart)
        return learning.model_copy(update={"held_out": ()}), held.model_copy(update={"held_out": ()})
    ids = [s.id for s in trace.sequences]
    random.Random(seed).shuffle(ids)
    n = min(len(ids) - 1, max(1, round(len(ids) * held_out))) if len(ids) > 1 else 0
    return trace.of(ids[n:]), trace.of(ids[:n])


__all__ = ["Final", "Sequence", "Trace", "TraceCall", "read_trace", "refusal_read", "split", "write_trace"]

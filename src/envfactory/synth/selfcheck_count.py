"""Self-checks of statistics tools: every count a whole number, the same twice; a tally by a
field counts every record holding a value there."""

from __future__ import annotations

from typing import Any

from envfactory.ir.effect import CountEffect
from envfactory.runtime.count import names_group
from envfactory.synth.probe import PROBES, Probe


@PROBES.register("count")
def _probe_count(p: Probe) -> None:
    e = p.effect(CountEffect)
    tool = p.behaviour.tool
    args = p.args()
    first, second = p.call(tool, args), p.call(tool, args)
    answer = first.data.get(e.envelope) if e.envelope and isinstance(first.data, dict) else first.data
    by = e.counts[0].by if e.bare and e.counts else None
    if by is not None:  # a tally: each value of the field -> how many records hold it
        _probe_tally(p, answer, e, any(a in args for a in e.counts[0].filters))
        answer = answer if isinstance(answer, dict) and answer else {"": None}
        whole = all(isinstance(v, int) and v >= 0 for v in answer.values())
    else:
        if e.bare:  # the answer is the one count itself
            answer = {e.counts[0].field: answer} if e.counts else None
        whole = isinstance(answer, dict) and all(
            isinstance(answer.get(c.field), int) and answer[c.field] >= 0 for c in e.counts
        )
    p.note("answers whole counts, the same twice", first.ok and whole and first.content == second.content,
           first.content[:200])  # fmt: skip


def _probe_tally(p: Probe, answer: Any, e: CountEffect, narrowed: bool) -> None:
    """Unnarrowed, a tally's counts add up to the records holding a value in its field."""
    count = e.counts[0]
    if narrowed or count.entity is None or count.by is None:
        return
    held = sum(1 for r in p.rows(count.entity) if names_group(r.get(count.by)))
    if not held:
        p.note("the tally counts every record", None, f"no {count.entity} holds a {count.by}")
        return
    values = [v for v in answer.values() if isinstance(v, int)] if isinstance(answer, dict) else []
    total = sum(values) if isinstance(answer, dict) and len(values) == len(answer) else None
    p.note("the tally counts every record", total == held, f"{total} of {held} records")

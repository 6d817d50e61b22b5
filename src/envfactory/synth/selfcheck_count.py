"""Self-checks of statistics tools: every count a whole number, the same twice."""

from __future__ import annotations

from envfactory.ir.effect import CountEffect
from envfactory.synth.probe import PROBES, Probe


@PROBES.register("count")
def _probe_count(p: Probe) -> None:
    e = p.effect(CountEffect)
    tool = p.behaviour.tool
    args = p.args()
    first, second = p.call(tool, args), p.call(tool, args)
    answer = first.data.get(e.envelope) if e.envelope and isinstance(first.data, dict) else first.data
    if e.bare:  # the answer is the one count itself
        answer = {e.counts[0].field: answer} if e.counts else None
    whole = isinstance(answer, dict) and all(
        isinstance(answer.get(c.field), int) and answer[c.field] >= 0 for c in e.counts
    )
    p.note("answers whole counts, the same twice", first.ok and whole and first.content == second.content,
           first.content[:200])  # fmt: skip

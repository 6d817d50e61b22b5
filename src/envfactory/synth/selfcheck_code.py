"""Self-checks of behaviours a language model provides: written code (the same probes that admitted
it, run again) and simulated reads (answers within the output schema, the same on a replay)."""

from __future__ import annotations

from envfactory.ir.effect import CodeEffect, SimulatedEffect
from envfactory.synth.probe import PROBES, Probe


@PROBES.register("code")
def _probe_code(p: Probe) -> None:
    from envfactory.synth.llm_code import check_code

    problem = check_code(p.spec, p.behaviour.tool, p.effect(CodeEffect))
    p.note("written code passes its probes (sandboxed)", problem is None, problem or "")


@PROBES.register("simulated")
def _probe_simulated(p: Probe) -> None:
    p.effect(SimulatedEffect)
    args = p.args()
    first = p.call(p.behaviour.tool, args)
    p.note("the simulated tool answers", first.ok, first.content[:200])
    again = p.env.episode(max_steps=10).call_tool(p.behaviour.tool, args)
    p.note("a replay answers the same (cached)", again.content == first.content, again.content[:200])


__all__: list[str] = []

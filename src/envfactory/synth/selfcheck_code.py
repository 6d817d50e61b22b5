"""Self-check of code behaviours (written by a language model): the same probes that admitted
them, run again on the environment as it is now."""

from __future__ import annotations

from envfactory.ir.effect import CodeEffect
from envfactory.synth.selfcheck import PROBES, _Probe


@PROBES.register("code")
def _probe_code(p: _Probe) -> None:
    from envfactory.synth.llm_code import check_code

    problem = check_code(p.spec, p.behaviour.tool, p.effect(CodeEffect))
    p.note("written code passes its probes (sandboxed)", problem is None, problem or "")


__all__: list[str] = []

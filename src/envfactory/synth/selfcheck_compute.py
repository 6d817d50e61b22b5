"""Self-checks of computations: a number for numbers, the same twice, and the refusal a calculator
gives outside the function's domain (a zero divisor, a negative square root, an empty list, an
unknown unit)."""

from __future__ import annotations

from typing import Any

from envfactory.ir.effect import ComputeEffect
from envfactory.runtime.compute import FUNCTIONS
from envfactory.synth.probe import PROBES, Probe

JSON = dict[str, Any]
_ZERO_SECOND = frozenset({"divide", "modulo", "percentage"})
_NEGATIVE_FIRST = frozenset({"square_root", "logarithm"})
_EMPTY_LIST = frozenset({"mean", "median", "min", "max", "stdev", "variance"})


def _operands(effect: ComputeEffect) -> JSON:
    arity = FUNCTIONS[effect.function].arity
    if arity == "list":
        return {effect.operands[0]: [1.5, 2.0, 4.0]}
    if arity == "expression":
        return {effect.operands[0]: "(6 + 3) * 2"}
    args: JSON = dict(zip(effect.operands, (6.0, 3.0), strict=False))
    if arity == "convert" and effect.units is None:
        args |= {effect.options["unit_in"]: "km", effect.options["unit_out"]: "m"}
    return args


def _outside(effect: ComputeEffect) -> JSON | None:
    if effect.function in _ZERO_SECOND:
        return {effect.operands[1]: 0}
    if effect.function in _NEGATIVE_FIRST:
        return {effect.operands[0]: -1.0}
    if effect.function in _EMPTY_LIST:
        return {effect.operands[0]: []}
    if effect.function == "convert" and effect.units is None:
        return {effect.options["unit_in"]: "no-such-unit"}
    if effect.function == "expression":
        return {effect.operands[0]: "__import__('os').getcwd()"}
    return None


@PROBES.register("compute")
def _probe_compute(p: Probe) -> None:
    e = p.effect(ComputeEffect)
    tool = p.behaviour.tool
    args = {**p.args(), **_operands(e)}
    first, second = p.call(tool, args), p.call(tool, args)
    value = first.data.get(e.output) if e.output and isinstance(first.data, dict) else first.data
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    p.note("answers a number, the same twice", first.ok and number and first.content == second.content,
           first.content[:200])  # fmt: skip
    bad = _outside(e)
    if bad is not None:
        refused = p.call(tool, {**args, **bad})
        p.note("refuses a value outside its domain", refused.error == "invalid_arguments", refused.content[:200])

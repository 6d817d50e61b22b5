"""Which tools are computations: an answer that is a function of the arguments alone.

A tool is one when its name calls for a known function (``add``, ``square_root``, ``mean``,
``standard_deviation``, ``gallon_to_liter``, ``si_unit_conversion``) and nothing else, it takes
only numbers (or one list of numbers, or a value and two units), and it answers one number; or
when it is named for evaluating (``calculate``, ``evaluate``, ``calculator``) and takes one string
named or described as an expression, which it evaluates as arithmetic. The
name's other words must be filler (``calculate``, ``value``, ``number``...), so ``round_trip_cost``
is not ``round``. Operands are put in the function's order by their names (``base`` of a
logarithm comes second, ``exponent`` of a power, ``whole`` of a percentage, a ``denominator``),
else in the order the tool declares them. An integer argument named ``precision`` or ``digits``
sets significant digits; ``decimal_places`` (``places``, ``decimals``) is a rounding's.
"""

from __future__ import annotations

from typing import Any

from envfactory.ir.effect import Behaviour, ComputeEffect
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.tool import ToolSpec
from envfactory.runtime.compute import FUNCTIONS, quantity, unit
from envfactory.synth.naming import tokens

JSON = dict[str, Any]
# function -> the name words that call for it (a tuple: words that must all appear)
_CALLS: dict[str, tuple[tuple[str, ...], ...]] = {
    "add": (("add",), ("plus",), ("addition",), ("sum",)),
    "subtract": (("subtract",), ("minus",), ("subtraction",), ("difference",)),
    "multiply": (("multiply",), ("times",), ("multiplication",), ("product",)),
    "divide": (("divide",), ("division",), ("quotient",)),
    "modulo": (("mod",), ("modulo",), ("remainder",)),
    "power": (("power",), ("pow",), ("exponentiate",)),
    "percentage": (("percentage",), ("percent",)),
    "logarithm": (("logarithm",), ("log",)),
    "square_root": (("square", "root"), ("sqrt",)),
    "absolute": (("absolute",), ("abs",)),
    "round": (("round",),),
    "floor": (("floor",),),
    "ceiling": (("ceiling",), ("ceil",)),
    "sum": (("sum",), ("total",)),
    "product": (("product",), ("multiply",)),
    "mean": (("mean",), ("average",), ("avg",)),
    "median": (("median",),),
    "min": (("min",), ("minimum",), ("smallest",)),
    "max": (("max",), ("maximum",), ("largest",)),
    "stdev": (("standard", "deviation"), ("stdev",), ("std",)),
    "variance": (("variance",),),
    "convert": (("convert",), ("conversion",), ("converter",)),
}
_FILLER = frozenset({"calculate", "calc", "compute", "get", "find", "value", "values", "number", "numbers", "of",
                     "the", "a", "two", "list", "result", "do", "perform", "unit", "units", "si", "imperial",
                     "metric", "to", "between", "numeric", "float", "floats", "integers", "math", "raise"})  # fmt: skip
_PRECISION = ("precision", "digits", "significant", "sig")
_PLACES = ("places", "decimals", "decimal", "ndigits")
# how late an operand comes, by its name: a power's ``base`` before its ``exponent``, a logarithm's number
# before its ``base``
_LATE = {"base": 1, **dict.fromkeys(("exponent", "exp", "whole", "total", "denominator", "divisor", "b", "y",
                                      "subtrahend"), 2)}  # fmt: skip
_UNIT_IN = ("unit_in", "from_unit", "from", "source_unit", "in_unit", "unit_from", "input_unit")
_UNIT_OUT = ("unit_out", "to_unit", "to", "target_unit", "out_unit", "unit_to", "output_unit")


def plan_computations(tools: tuple[ToolSpec, ...] | list[ToolSpec]) -> dict[str, Behaviour]:
    """The tools that are computations, as behaviours."""
    out: dict[str, Behaviour] = {}
    for tool in tools:
        effect = computation(tool)
        if effect is not None:
            out[tool.name] = Behaviour(
                tool=tool.name,
                effect=effect,
                prior="confident",
                notes=(_said(effect),),
            )
    return out


def _said(effect: ComputeEffect) -> str:
    if effect.function == "expression":
        return f"evaluates the arithmetic expression in {effect.operands[0]} (numbers, + - * / // % **, parentheses)"
    return f"computes {effect.function} of {', '.join(effect.operands)}"


def computation(tool: ToolSpec) -> ComputeEffect | None:
    said = _expression(tool)
    if said is not None:
        return said
    answers, output = _number_output(tool.output_schema)
    if not answers:
        return None
    props = {k: v for k, v in tool.properties.items() if isinstance(v, dict)}
    numbers = [k for k, v in props.items() if primary_type(v) in ("number", "integer") and "enum" not in v]
    lists = [k for k, v in props.items() if primary_type(v) == "array" and _numbers_in(v)]
    units = [k for k, v in props.items() if primary_type(v) == "string" and _unit_arg(k)]
    if set(props) - set(numbers) - set(lists) - set(units):
        return None  # something that is not a number: not a computation
    options = {role: arg for arg in numbers if (role := _option(arg, props[arg])) is not None}
    operands = [a for a in numbers if a not in options.values()]
    required = set(tool.required)
    name = tokens(tool.name)
    fixed = _fixed_units(name)
    if fixed is not None and len(operands) == 1 and not lists and not units:
        return ComputeEffect(function="convert", operands=(operands[0],), output=output, units=fixed)
    for function in _called(name):
        arity = FUNCTIONS[function].arity
        if arity == "convert" and len(units) == 2 and len(operands) == 1 and not lists:
            ins = [u for u in units if _unit_role(u) == "unit_in"] or units[:1]
            outs = [u for u in units if u not in ins]
            return ComputeEffect(function=function, operands=(operands[0],), output=output,
                                 options={**options, "unit_in": ins[0], "unit_out": outs[0]})  # fmt: skip
        if units:
            continue
        if arity == "list" and len(lists) == 1 and not operands:
            return ComputeEffect(function=function, operands=(lists[0],), output=output, options=options)
        if lists or not set(operands) <= required:
            continue
        if arity == "unary" and len(operands) == 1:
            return ComputeEffect(function=function, operands=tuple(operands), output=output, options=options)
        if arity == "binary" and len(operands) == 2:
            return ComputeEffect(function=function, operands=_ordered(operands), output=output, options=options)
    return None


_EVALUATES = frozenset({"calculate", "calculator", "calc", "evaluate", "eval", "compute", "math", "arithmetic",
                        "expression", "solve"})  # fmt: skip
_EXPRESSION_ARGS = frozenset({"expression", "expr", "formula", "equation", "calculation", "input", "query"})


def _expression(tool: ToolSpec) -> ComputeEffect | None:
    """``calculate(expression)``: a tool named for evaluating, whose one argument is a string named or
    described as an expression (``"(3 + 4) * 2"``), and whose answer, if declared, is one number or
    one string (the number written out)."""
    if len(tool.properties) != 1 or not _EVALUATES & set(tokens(tool.name)):
        return None
    ((arg, schema),) = tool.properties.items()
    if not isinstance(schema, dict) or primary_type(schema) != "string":
        return None
    said = f"{tool.description or ''} {schema.get('description') or ''}".lower()
    if not (set(tokens(arg)) & _EXPRESSION_ARGS or "expression" in said):
        return None
    answers, output = _number_output(tool.output_schema)
    if tool.output_schema and not answers and primary_type(tool.output_schema) != "string":
        return None
    return ComputeEffect(function="expression", operands=(arg,), output=output if answers else None)


def _number_output(schema: JSON | None) -> tuple[bool, str | None]:
    """Whether an output is one number, and the member that holds it (``result``; ``None``: bare)."""
    if not schema:
        return False, None
    if primary_type(schema) in ("number", "integer"):
        return True, None
    props = schema.get("properties") or {}
    if len(props) != 1:
        return False, None
    (member, sub), *_ = props.items()
    return isinstance(sub, dict) and primary_type(sub) in ("number", "integer"), member


def _numbers_in(schema: JSON) -> bool:
    items = schema.get("items")
    return isinstance(items, dict) and primary_type(items) in ("number", "integer")


def _called(name: tuple[str, ...]) -> list[str]:
    """The functions the name calls for, when its other words are filler."""
    found = []
    for function, calls in _CALLS.items():
        for words in calls:
            if set(words) <= set(name) and set(name) - set(words) <= _FILLER:
                found.append(function)
                break
    return found


def _fixed_units(name: tuple[str, ...]) -> tuple[str, str] | None:
    """``gallon_to_liter`` / ``convert_celsius_to_fahrenheit`` -> the two units, when both are known
    and measure the same thing."""
    if "to" not in name:
        return None
    at = name.index("to")
    left, right = [w for w in name[:at] if w not in _FILLER | {"convert"}], name[at + 1 :]
    if not left or not right:
        return None
    source, target = unit("_".join(left)), unit("_".join(right))
    if source is None or target is None or quantity(source) != quantity(target):
        return None
    return source, target


def _unit_role(arg: str) -> str | None:
    flat = "_".join(tokens(arg))
    return "unit_in" if flat in _UNIT_IN else "unit_out" if flat in _UNIT_OUT else None


def _unit_arg(arg: str) -> bool:
    return "unit" in tokens(arg) or _unit_role(arg) is not None


def _option(arg: str, schema: JSON) -> str | None:
    words = set(tokens(arg))
    if words & set(_PLACES):
        return "places"
    if words & set(_PRECISION) and primary_type(schema) == "integer":
        return "precision"
    return None


def _ordered(operands: list[str]) -> tuple[str, ...]:
    """Two operands in the function's order: by their names, else as declared."""
    return tuple(sorted(operands, key=lambda arg: _LATE.get("_".join(tokens(arg)), 0)))


__all__ = ["computation", "plan_computations"]

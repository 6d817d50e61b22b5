"""Computations: tools whose answer is a function of their arguments alone.

A calculator's ``add(a, b)``, ``mean(numbers)``, ``logarithm(value, base)``, a converter's
``gallon_to_liter(gallon)`` or ``convert(value, unit_in, unit_out)``. Answering such a tool with
a made-up number teaches an agent that tools lie; each function here is exact. A value outside a
function's domain (a division by zero, the square root of a negative number, an empty list, an
unknown unit, a conversion between different kinds of quantity) is refused ``invalid_arguments``,
as a real calculator refuses it.
"""

from __future__ import annotations

import ast
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from envfactory.ir.effect import ComputeEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.tool import ToolSpec
from envfactory.registry import Registry
from envfactory.runtime.behaviours import COMPILERS, CallContext, Executor
from envfactory.runtime.result import ToolError

JSON = dict[str, Any]
Arity = Literal["unary", "binary", "list", "convert", "expression"]


class DomainError(ValueError):
    """The operands lie outside the function's domain."""


@dataclass(frozen=True, slots=True)
class Function:
    arity: Arity
    run: Callable[..., float]


FUNCTIONS: Registry[Function] = Registry("computation")


def _divide(a: float, b: float) -> float:
    if b == 0:
        raise DomainError("division by zero")
    return a / b


def _modulo(a: float, b: float) -> float:
    if b == 0:
        raise DomainError("modulo by zero")
    return a % b


def _power(a: float, b: float) -> float:
    try:
        value = float(a) ** float(b)
    except (OverflowError, ZeroDivisionError) as err:
        raise DomainError(f"{a} to the power {b} is not a finite number") from err
    if isinstance(value, complex) or not math.isfinite(value):
        raise DomainError(f"{a} to the power {b} is not a real number")
    return value


def _logarithm(value: float, base: float = math.e) -> float:
    if value <= 0:
        raise DomainError("the logarithm is defined for positive numbers only")
    if base <= 0 or base == 1:
        raise DomainError("a logarithm's base must be positive and not 1")
    return math.log(value) / math.log(base)


def _sqrt(value: float) -> float:
    if value < 0:
        raise DomainError("the square root of a negative number is not a real number")
    return math.sqrt(value)


def _percentage(part: float, whole: float) -> float:
    if whole == 0:
        raise DomainError("a percentage of zero is undefined")
    return part / whole * 100


def _nonempty(run: Callable[[list[float]], float]) -> Callable[[list[float]], float]:
    def checked(values: list[float]) -> float:
        if not values:
            raise DomainError("the list of numbers is empty")
        return run(values)

    return checked


for _name, _function in {
    "add": Function("binary", lambda a, b: a + b),
    "subtract": Function("binary", lambda a, b: a - b),
    "multiply": Function("binary", lambda a, b: a * b),
    "divide": Function("binary", _divide),
    "modulo": Function("binary", _modulo),
    "power": Function("binary", _power),
    "percentage": Function("binary", _percentage),
    "logarithm": Function("binary", _logarithm),
    "square_root": Function("unary", _sqrt),
    "absolute": Function("unary", abs),
    "round": Function("unary", round),
    "floor": Function("unary", math.floor),
    "ceiling": Function("unary", math.ceil),
    "sum": Function("list", lambda xs: math.fsum(xs)),
    "product": Function("list", lambda xs: math.prod(xs)),
    "mean": Function("list", _nonempty(statistics.fmean)),
    "median": Function("list", _nonempty(statistics.median)),
    "min": Function("list", _nonempty(min)),
    "max": Function("list", _nonempty(max)),
    "stdev": Function("list", _nonempty(statistics.pstdev)),  # of the numbers given, not a sample's estimate
    "variance": Function("list", _nonempty(statistics.pvariance)),
}.items():
    FUNCTIONS.add(_name, _function)

# Units: name -> (quantity, factor to the quantity's base unit). Temperatures are affine (below).
_UNITS: dict[str, tuple[str, float]] = {}
for _quantity, _table in {
    "length": {"m": 1, "meter": 1, "metre": 1, "km": 1000, "kilometer": 1000, "kilometre": 1000, "cm": 0.01,
               "centimeter": 0.01, "centimetre": 0.01, "mm": 0.001, "millimeter": 0.001, "millimetre": 0.001,
               "um": 1e-6, "micrometer": 1e-6, "nm": 1e-9, "nanometer": 1e-9, "in": 0.0254, "inch": 0.0254,
               "ft": 0.3048, "foot": 0.3048, "feet": 0.3048, "yd": 0.9144, "yard": 0.9144, "mi": 1609.344,
               "mile": 1609.344, "nmi": 1852, "nautical_mile": 1852},
    "mass": {"kg": 1, "kilogram": 1, "g": 0.001, "gram": 0.001, "mg": 1e-6, "milligram": 1e-6, "lb": 0.45359237,
             "lbs": 0.45359237, "pound": 0.45359237, "oz": 0.028349523125, "ounce": 0.028349523125, "t": 1000,
             "tonne": 1000, "ton": 1000},
    "volume": {"l": 1, "liter": 1, "litre": 1, "ml": 0.001, "milliliter": 0.001, "millilitre": 0.001,
               "gal": 3.785411784, "gallon": 3.785411784, "qt": 0.946352946, "quart": 0.946352946,
               "pt": 0.473176473, "pint": 0.473176473, "cup": 0.2365882365, "m3": 1000, "cubic_meter": 1000},
    "time": {"s": 1, "sec": 1, "second": 1, "ms": 0.001, "millisecond": 0.001, "min": 60, "minute": 60, "h": 3600,
             "hr": 3600, "hour": 3600, "day": 86400, "week": 604800},
    "speed": {"mps": 1, "m/s": 1, "kmh": 1 / 3.6, "km/h": 1 / 3.6, "kph": 1 / 3.6, "mph": 0.44704,
              "knot": 0.514444},
}.items():  # fmt: skip
    for _unit, _factor in _table.items():
        _UNITS[_unit] = (_quantity, float(_factor))
_TEMPERATURES: dict[str, tuple[float, float]] = {  # name -> (scale, offset): kelvin = (value + offset) * scale
    "c": (1.0, 273.15), "celsius": (1.0, 273.15), "k": (1.0, 0.0), "kelvin": (1.0, 0.0),
    "f": (5 / 9, 459.67), "fahrenheit": (5 / 9, 459.67),
}  # fmt: skip


def unit(name: str) -> str | None:
    """The canonical spelling of a unit (``Miles`` -> ``mile``, ``°C`` -> ``c``), or ``None``."""
    text = name.strip().lower().replace(" ", "_").replace("-", "_").lstrip("°")
    for candidate in (text, text[:-1] if text.endswith("s") else text, text[:-2] if text.endswith("es") else text):
        if candidate in _UNITS or candidate in _TEMPERATURES:
            return candidate
    return None


def quantity(name: str) -> str | None:
    """What a unit measures (``length``, ``temperature``...), or ``None`` for an unknown one."""
    canonical = unit(name)
    if canonical is None:
        return None
    return "temperature" if canonical in _TEMPERATURES else _UNITS[canonical][0]


def convert(value: float, source: str, target: str) -> float:
    """``value`` in ``source`` units expressed in ``target`` units."""
    a, b = unit(source), unit(target)
    for given, known in ((source, a), (target, b)):
        if known is None:
            raise DomainError(f"unknown unit {given!r}")
    assert a is not None and b is not None
    if quantity(a) != quantity(b):
        raise DomainError(f"cannot convert {quantity(a)} ({source}) to {quantity(b)} ({target})")
    if a in _TEMPERATURES:
        (sa, oa), (sb, ob) = _TEMPERATURES[a], _TEMPERATURES[b]
        return (value + oa) * sa / sb - ob
    return value * _UNITS[a][1] / _UNITS[b][1]


def significant(value: float, digits: int) -> float:
    """``value`` to ``digits`` significant digits (a tool's "precision")."""
    if digits <= 0 or digits >= 17 or value == 0 or not math.isfinite(value):
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


FUNCTIONS.add("convert", Function("convert", convert))

MAX_EXPRESSION = 1_000  # characters
MAX_EXPONENT = 1_000
MAX_MAGNITUDE = 1e300
_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: _divide,
    ast.FloorDiv: lambda a, b: math.floor(_divide(a, b)),
    ast.Mod: _modulo,
    ast.Pow: lambda a, b: _bounded_power(a, b),
}


def expression(text: str) -> float:
    """The value of an arithmetic expression (``"(3 + 4) * 2 / 5"``, ``"2 ** 10"``, ``"-1.5e3 % 7"``):
    numbers, ``+ - * / // % **``, signs and parentheses, nothing else — no names, calls or
    attributes, so nothing is ever run. Too long, too deep, an exponent past 1,000 or a value past
    1e300 is a :class:`DomainError`, as are division by zero and anything else."""
    if not isinstance(text, str) or not text.strip():
        raise DomainError("the expression is empty")
    if len(text) > MAX_EXPRESSION:
        raise DomainError(f"the expression is longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(text.strip().replace("^", "**").replace("×", "*").replace("÷", "/"), mode="eval")
        value = _value(tree.body)
    except DomainError:
        raise
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise DomainError(f"not an arithmetic expression: {_quoted(text)}") from None
    if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
        raise DomainError("the result is too large to represent")
    return value


def _value(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        inner = _value(node.operand)
        return -inner if isinstance(node.op, ast.USub) else inner
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        result = _BINARY[type(node.op)](_value(node.left), _value(node.right))
        if abs(result) > MAX_MAGNITUDE:
            raise DomainError("the result is too large to represent")
        return result
    raise DomainError(f"not an arithmetic expression: {_quoted(ast.unparse(node))}")


def _quoted(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _bounded_power(base: float, exponent: float) -> float:
    if abs(exponent) > MAX_EXPONENT:
        raise DomainError(f"an exponent past {MAX_EXPONENT}")
    return _power(base, exponent)


FUNCTIONS.add("expression", Function("expression", expression))


def _number(value: Any, arg: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ToolError("invalid_arguments", f"{arg} must be a number")
    return value


@COMPILERS.register("compute")
def _compute(effect: ComputeEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    function = FUNCTIONS[effect.function]

    def run(ctx: CallContext, args: JSON) -> Any:
        try:
            value = _evaluate(effect, function, args)
        except DomainError as err:
            raise ToolError("invalid_arguments", f"{tool.name}: {err}") from None
        except OverflowError:
            raise ToolError("invalid_arguments", f"{tool.name}: the result is too large to represent") from None
        if isinstance(value, float) and not math.isfinite(value):  # 1e308 km in nanometres
            raise ToolError("invalid_arguments", f"{tool.name}: the result is too large to represent")
        return {effect.output: value} if effect.output else value

    return run


def evaluate(effect: ComputeEffect, args: JSON) -> float:
    """The answer of the computation ``effect`` to ``args`` (raises :class:`DomainError`)."""
    return _evaluate(effect, FUNCTIONS[effect.function], args)


def _evaluate(effect: ComputeEffect, function: Function, args: JSON) -> float:
    options = {role: args[arg] for role, arg in effect.options.items() if args.get(arg) is not None}
    first = effect.operands[0]
    if function.arity == "convert":
        source, target = effect.units or (str(options.get("unit_in", "")), str(options.get("unit_out", "")))
        result = function.run(_number(args.get(first), first), source, target)
    elif function.arity == "list":
        values = args.get(first)
        if not isinstance(values, list):
            raise ToolError("invalid_arguments", f"{first} must be a list of numbers")
        result = function.run([_number(v, first) for v in values])
    elif function.arity == "expression":
        text = args.get(first)
        if not isinstance(text, str):
            raise ToolError("invalid_arguments", f"{first} must be a string")
        result = function.run(text)
    elif effect.function == "round":
        places = options.get("places", 0)
        return round(_number(args.get(first), first), int(places) if isinstance(places, (int, float)) else 0)
    else:
        result = function.run(*(_number(args[a], a) for a in effect.operands if a in args))
    digits = options.get("precision")
    if isinstance(digits, (int, float)) and not isinstance(digits, bool):
        return significant(result, int(digits))
    return result


__all__ = [
    "FUNCTIONS",
    "DomainError",
    "Function",
    "convert",
    "evaluate",
    "expression",
    "quantity",
    "significant",
    "unit",
]

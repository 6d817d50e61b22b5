"""Questions answered by a computation tool: "What is the standard deviation of 3, 7.5 and 12?",
"How many liters are 12.5 gallons?".

A stateless tool set (a calculator, a unit converter) has nothing to change and nothing to look
up; what a person asks of it is a computation. Operands are drawn so that a person would write
them (whole numbers and tenths, logarithms of powers of their base); the fact asked for is the
tool's own answer, which the reply must state (numbers within 0.005, so "16.09" states 16.09344).
A required ``precision`` is asked for in words ("to 8 significant digits").
"""

from __future__ import annotations

import random
from typing import Any

from envfactory.ir.effect import ComputeEffect
from envfactory.ir.task import Call
from envfactory.runtime.compute import FUNCTIONS, DomainError, evaluate, quantity, unit
from envfactory.tasks.direct import LOOKUPS, Context, Question
from envfactory.values import UNITS

JSON = dict[str, Any]
_BINARY = {
    "add": "What is {a} plus {b}?",
    "subtract": "What is {a} minus {b}?",
    "multiply": "What is {a} times {b}?",
    "divide": "What is {a} divided by {b}?",
    "modulo": "What is the remainder when {a} is divided by {b}?",
    "power": "What is {a} to the power of {b}?",
    "percentage": "What percentage of {b} is {a}?",
    "logarithm": "What is the logarithm of {a} to base {b}?",
}
_UNARY = {
    "square_root": "What is the square root of {a}?",
    "absolute": "What is the absolute value of {a}?",
    "round": "What is {a} rounded to {places}?",
    "floor": "What is {a} rounded down to a whole number?",
    "ceiling": "What is {a} rounded up to a whole number?",
}
_LIST = {
    "sum": "What is the sum of {xs}?",
    "product": "What is the product of {xs}?",
    "mean": "What is the mean of {xs}?",
    "median": "What is the median of {xs}?",
    "min": "Which is the smallest of {xs}?",
    "max": "Which is the largest of {xs}?",
    "stdev": "What is the standard deviation of {xs}?",
    "variance": "What is the variance of {xs}?",
}
_SPOKEN = {"c": "degrees Celsius", "celsius": "degrees Celsius", "f": "degrees Fahrenheit",
           "fahrenheit": "degrees Fahrenheit", "k": "kelvins", "m": "meters", "km": "kilometers", "cm": "centimeters",
           "mm": "millimeters", "in": "inches", "inch": "inches", "ft": "feet", "foot": "feet", "mi": "miles",
           "kg": "kilograms", "g": "grams", "lb": "pounds", "oz": "ounces", "l": "liters", "ml": "milliliters",
           "gal": "gallons"}  # fmt: skip


def _number(rng: random.Random, low: int = 2, high: int = 500) -> float | int:
    """A whole number, or one with tenths, as people write them."""
    tenths = rng.randint(low * 10, high * 10)
    return tenths // 10 if rng.random() < 0.6 or tenths % 10 == 0 else tenths / 10


def _listed(values: list[Any]) -> str:
    text = [str(v) for v in values]
    return ", ".join(text[:-1]) + f" and {text[-1]}"


def _operands(rng: random.Random, function: str) -> tuple[float | int, float | int]:
    if function == "power":
        return rng.randint(2, 20), rng.randint(2, 4)
    if function == "logarithm":
        base = rng.choice((2, 3, 5, 10))
        return base ** rng.randint(2, 6), base
    if function == "percentage":
        whole = rng.randint(20, 500)
        return rng.randint(1, whole), whole
    if function in ("divide", "modulo"):
        return rng.randint(10, 1000), rng.randint(2, 50)
    return _number(rng), _number(rng)


def _spoken(name: str) -> str:
    """A unit as a person says it: ``ft`` -> ``feet``, ``gallon`` -> ``gallons``."""
    return _SPOKEN.get(name, f"{name}s")


@LOOKUPS.register("compute")
def _computation(ctx: Context, tool: str, e: ComputeEffect) -> Question | None:
    rng = ctx.rng
    args: JSON = {}
    arity = FUNCTIONS[e.function].arity
    if arity == "binary" and e.function in _BINARY:
        a, b = _operands(rng, e.function)
        args = dict(zip(e.operands, (a, b), strict=True))
        said = _BINARY[e.function].format(a=a, b=b)
    elif arity == "unary" and e.function in _UNARY:
        a = rng.randint(1000, 99999) / 1000 if e.function in ("round", "floor", "ceiling") else _number(rng)
        a = -a if e.function == "absolute" else a
        places = rng.randint(1, 2)
        args = {e.operands[0]: a} | ({e.options["places"]: places} if "places" in e.options else {})
        spoken = {0: "a whole number", 1: "one decimal place"}.get(
            places if "places" in e.options else 0, "two decimal places"
        )
        said = _UNARY[e.function].format(a=a, places=spoken)
    elif arity == "list" and e.function in _LIST:
        xs = [_number(rng, 1, 99) for _ in range(rng.randint(3, 5))]
        args = {e.operands[0]: xs}
        said = _LIST[e.function].format(xs=_listed(xs))
    elif arity == "expression":
        a, b, c = rng.randint(2, 99), rng.randint(2, 99), rng.randint(2, 9)
        text = rng.choice(("({a} + {b}) * {c}", "{a} * {c} - {b}", "({a} - {b}) / {c}")).format(a=a, b=b, c=c)
        args = {e.operands[0]: text}
        said = f"What is {text.replace('*', 'times').replace('/', 'divided by')}?"
    elif arity == "convert":
        value = _number(rng, 1, 200)
        if e.units is not None:
            source, target = e.units
        else:
            source = rng.choice(UNITS)
            target = rng.choice([u for u in UNITS if u != source and quantity(u) == quantity(source)])
            args = {e.options["unit_in"]: source, e.options["unit_out"]: target}
        args[e.operands[0]] = value
        said = f"How many {_spoken(unit(target) or target)} are {value} {_spoken(unit(source) or source)}?"
    else:
        return None
    if "precision" in e.options and e.options["precision"] in ctx.spec.tools[tool].required:
        digits = rng.randint(6, 10)
        args[e.options["precision"]] = digits
        said += f" Give it to {digits} significant digits."
    try:
        value = evaluate(e, args)
    except (DomainError, OverflowError):
        return None
    fact = str(int(value)) if float(value).is_integer() else f"{value:.4f}".rstrip("0").rstrip(".")
    return [Call(tool=tool, args=args)], f"{said} Tell me.", fact


__all__: list[str] = []

"""Computations: tools whose answer is a function of the arguments alone are exact, not invented."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from tests.synth.function_lists import STR, function, synthesize_functions

from envfactory.ir.effect import ComputeEffect
from envfactory.runtime.compute import DomainError, convert, expression, significant, unit
from envfactory.runtime.environment import Environment
from envfactory.runtime.facts import states_fact
from envfactory.synth.selfcheck import self_check

NUM = {"type": "float"}
INT = {"type": "integer"}
NUMS = {"type": "array", "items": {"type": "float"}}
RESULT = {"result": NUM}
TOOLS = [
    function("add", "Add two numbers.", {"a": NUM, "b": NUM}, ["a", "b"], RESULT),
    function("divide_numbers", "Divide.", {"numerator": NUM, "denominator": NUM}, ["numerator", "denominator"],
             RESULT),
    function("raise_power", "Power.", {"exponent": NUM, "base": NUM}, ["exponent", "base"], RESULT),
    function("log", "Logarithm.", {"base": NUM, "x": NUM}, ["base", "x"], RESULT),
    function("square_root", "Square root.", {"number": NUM, "precision": INT}, ["number", "precision"], RESULT),
    function("round_value", "Round.", {"number": NUM, "decimal_places": INT}, ["number"], RESULT),
    function("calculate_average", "Mean.", {"values": NUMS}, ["values"], {"average": NUM}),
    function("standard_deviation", "Std.", {"numbers": NUMS}, ["numbers"], RESULT),
    function("percentage", "Part of a whole.", {"part": NUM, "whole": NUM}, ["part", "whole"], RESULT),
    function("convert_units", "Convert.", {"value": NUM, "from_unit": STR, "to_unit": STR},
             ["value", "from_unit", "to_unit"], RESULT),
    function("fahrenheit_to_celsius", "Convert.", {"fahrenheit": NUM}, ["fahrenheit"], {"celsius": NUM}),
    # not computations: a word beside the function's that is not filler, an argument that is not a number
    function("round_trip_cost", "Cost of a round trip.", {"distance": NUM}, ["distance"], {"cost": NUM}),
    function("add_contact", "Add a contact.", {"name": STR}, ["name"], {"id": INT}),
]  # fmt: skip


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Environment:
    return Environment(synthesize_functions(tmp_path_factory.mktemp("calc"), "calc", TOOLS))


def test_tools_that_compute_are_recognised_and_others_are_not(env: Environment) -> None:
    effects = {b.tool: b.effect for b in env.spec.behaviours}
    computed = {tool: e.function for tool, e in effects.items() if isinstance(e, ComputeEffect)}
    assert computed == {
        "add": "add", "divide_numbers": "divide", "raise_power": "power", "log": "logarithm",
        "square_root": "square_root", "round_value": "round", "calculate_average": "mean",
        "standard_deviation": "stdev", "percentage": "percentage", "convert_units": "convert",
        "fahrenheit_to_celsius": "convert",
    }  # fmt: skip
    power, log = effects["raise_power"], effects["log"]
    assert isinstance(power, ComputeEffect) and power.operands == ("base", "exponent")  # by name, not by order
    assert isinstance(log, ComputeEffect) and log.operands == ("x", "base")


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("add", {"a": 2, "b": 3.5}, {"result": 5.5}),
        ("divide_numbers", {"numerator": 7, "denominator": 2}, {"result": 3.5}),
        ("raise_power", {"exponent": 10, "base": 2}, {"result": 1024}),
        ("log", {"base": 2, "x": 8}, {"result": 3}),
        ("square_root", {"number": 2, "precision": 3}, {"result": 1.41}),
        ("round_value", {"number": 2.567, "decimal_places": 2}, {"result": 2.57}),
        ("calculate_average", {"values": [1, 2, 3, 6]}, {"average": 3}),
        ("standard_deviation", {"numbers": [2, 4, 4, 4, 5, 5, 7, 9]}, {"result": 2}),
        ("percentage", {"part": 1, "whole": 4}, {"result": 25}),
        ("convert_units", {"value": 10, "from_unit": "miles", "to_unit": "km"}, {"result": 16.09344}),
        ("convert_units", {"value": 212, "from_unit": "Fahrenheit", "to_unit": "celsius"}, {"result": 100}),
        ("fahrenheit_to_celsius", {"fahrenheit": 32}, {"celsius": 0}),
    ],
)
def test_answers_are_exact(env: Environment, tool: str, args: dict[str, object], expected: dict[str, float]) -> None:
    result = env.episode().call_tool(tool, args)
    assert result.ok, result.content
    ((member, want),) = expected.items()
    assert math.isclose(result.data[member], want, rel_tol=1e-9, abs_tol=1e-9)


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("divide_numbers", {"numerator": 1, "denominator": 0}),
        ("square_root", {"number": -4, "precision": 5}),
        ("log", {"base": 1, "x": 8}),
        ("calculate_average", {"values": []}),
        ("convert_units", {"value": 1, "from_unit": "kg", "to_unit": "km"}),
        ("convert_units", {"value": 1, "from_unit": "furlongs", "to_unit": "km"}),
        ("convert_units", {"value": 1e308, "from_unit": "km", "to_unit": "mm"}),  # no finite answer
        ("percentage", {"part": 1e308, "whole": 1e-308}),
    ],
)
def test_values_outside_the_domain_are_refused(env: Environment, tool: str, args: dict[str, object]) -> None:
    episode = env.episode()
    result = episode.call_tool(tool, args)
    assert result.error == "invalid_arguments", result.content
    assert episode.state_hash() == env.episode().state_hash()


def test_computations_pass_their_self_check(env: Environment) -> None:
    report = self_check(env.spec, env=env)
    checks = {t.tool: {c.name for c in t.checks if c.status == "pass"} for t in report.tools}
    assert report.passed, report.failures
    assert "refuses a value outside its domain" in checks["divide_numbers"]
    assert "answers a number, the same twice" in checks["fahrenheit_to_celsius"]


def test_units_and_significant_digits() -> None:
    assert convert(1, "gallon", "liter") == pytest.approx(3.785411784)
    assert convert(100, "celsius", "kelvin") == pytest.approx(373.15)
    assert convert(-40, "F", "C") == pytest.approx(-40)
    assert significant(123456.789, 3) == 123000
    assert significant(0.000123456, 2) == 0.00012


def test_a_converter_of_fixed_units_needs_both_units_known(tmp_path: Path) -> None:
    tools = [function("city_to_zip", "Look up.", {"city": NUM}, ["city"], {"zip": NUM}),
             function("liters_to_gallons", "Convert.", {"liters": NUM}, ["liters"], {"gallons": NUM})]  # fmt: skip
    effects = {b.tool: b.effect for b in synthesize_functions(tmp_path, "u", tools).behaviours}
    assert not isinstance(effects["city_to_zip"], ComputeEffect)
    fixed = effects["liters_to_gallons"]
    assert isinstance(fixed, ComputeEffect) and fixed.units == ("liter", "gallon")


def test_unit_arguments_are_drawn_as_units() -> None:
    from envfactory.values import UNITS, ValueMaker

    maker = ValueMaker(0, "2025-01-01T00:00:00Z")
    drawn = {maker.value({"type": "string"}, name) for name in ("unit_in", "unit_out", "from_unit") for _ in range(5)}
    assert drawn <= set(UNITS) and all(unit(u) is not None for u in drawn)


def test_a_calculator_gets_questions_that_only_its_answers_solve(tmp_path: Path) -> None:
    from envfactory.tasks.generate import baselines, generate_tasks
    from envfactory.tasks.selftest import SelfTest

    pure = [t for t in TOOLS if t["name"] not in ("round_trip_cost", "add_contact")]
    env = Environment(synthesize_functions(tmp_path, "calculator", pure))
    tasks, report = generate_tasks(env, 20, seed=0)
    assert len(tasks) == 20, report.as_json()
    asked = {t.gold[0].tool for t in tasks}
    assert len(asked) >= 6  # questions for many functions, not one
    for task in tasks:
        assert task.instruction.endswith("Tell me.") and len(task.gold) == 1 and task.goal.answer
        result = env.episode().call_tool(task.gold[0].tool, task.gold[0].args)
        assert result.ok and states_fact(result.content, task.goal.answer[0])
        assert SelfTest(env).check(task) is None
    converted = next(t for t in tasks if t.gold[0].tool == "fahrenheit_to_celsius")
    assert "degrees Fahrenheit" in converted.instruction and "degrees Celsius" in converted.instruction
    assert set(baselines(env, tasks).values()) == {0.0}


@pytest.mark.parametrize(
    ("text", "value"),
    [("(3 + 4) * 2 / 5", 2.8), ("2 ** 10", 1024), ("2^3", 8), ("-1.5e3 % 7", 5.0), ("7 // 2", 3), ("((1))", 1)],
)
def test_an_expression_is_evaluated_as_arithmetic(text: str, value: float) -> None:
    assert expression(text) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("__import__('os').getcwd()", "not an arithmetic expression"),
        ("a + 1", "not an arithmetic expression: 'a'"),
        ("9 ** 9 ** 9", "an exponent past 1000"),
        ("10 ** 300 * 10 ** 10", "too large"),
        ("1 / 0", "division by zero"),
        ("1" * 2000, "longer than 1000"),
        ("(" * 300 + "1" + ")" * 300, "not an arithmetic expression: '((("),
        ("", "empty"),
        ("(1).real", "not an arithmetic expression"),
    ],
)
def test_anything_but_arithmetic_is_refused_and_nothing_runs(text: str, why: str) -> None:
    with pytest.raises(DomainError, match=re.escape(why)):
        expression(text)


def test_a_calculator_of_expressions_is_synthesized_without_an_output_schema(tmp_path: Path) -> None:
    tools = [
        {"type": "function", "function": {
            "name": "calculate", "description": "Calculate the result of a mathematical expression.",
            "parameters": {"type": "object", "required": ["expression"], "properties": {
                "expression": {"type": "string", "description": "The expression, such as '2 + 2'."}}}}},
        {"type": "function", "function": {
            "name": "calculate_shipping", "description": "Shipping cost of an order.",
            "parameters": {"type": "object", "required": ["order_id"], "properties": {"order_id": STR}}}},
    ]  # fmt: skip
    spec = synthesize_functions(tmp_path, "calc", tools)
    effect = spec.behaviour("calculate").effect
    assert isinstance(effect, ComputeEffect) and effect.function == "expression"
    assert spec.behaviour("calculate_shipping").effect.kind != "compute"  # an id is no expression
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    assert episode.call_tool("calculate", {"expression": "(3 + 4) * 2"}).data == 14
    refused = episode.call_tool("calculate", {"expression": "open('/etc/passwd').read()"})
    assert not refused.ok and refused.error == "invalid_arguments"
    assert episode.call_tool("calculate", {"expression": 7}).error == "invalid_arguments"
    (checked,) = [t for t in self_check(spec).tools if t.tool == "calculate"]
    assert checked.passed and {c.name for c in checked.checks} >= {
        "answers a number, the same twice",
        "refuses a value outside its domain",
    }

"""A list tool's filters keep, for every operator, the rows the per-row predicates they replaced
kept (``behaviours._row_filter``: what depends on the value alone is worked out once per call)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from envfactory.ir.effect import Filter
from envfactory.runtime.behaviours import _row_filter

VALUES: list[Any] = [None, True, False, 0, 1, 2.5, "", "Ab", "ab", "b", "AB c", ["ab", 1], ["x"], [], {"a": 1}]
TEXT_FIELDS = ["f", "g"]


def _norm(value: Any) -> Any:
    if isinstance(value, str):
        return value.casefold()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # a whole number and its digits are one value (a key passed as text); a flag is no number
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, default=str)
    return value


def _comparable(a: Any, b: Any) -> bool:
    return isinstance(a, (int, float)) == isinstance(b, (int, float))


def _was(op: str, row: dict[str, Any], v: Any) -> bool:  # the predicates as they were, one row at a time
    field = "f"
    if op == "search":
        return any(isinstance(row.get(f), str) and str(v).casefold() in row[f].casefold() for f in TEXT_FIELDS)
    if op == "contains":
        return isinstance(row.get(field), str) and str(v).casefold() in row[field].casefold()
    if op == "in":
        return _norm(row.get(field)) in {_norm(x) for x in (v if isinstance(v, list) else [v])}
    if op == "any":
        return bool({_norm(x) for x in row.get(field) or ()} & {_norm(x) for x in (v if isinstance(v, list) else [v])})
    if op == "unless":
        return v is True or not row.get(field)
    if op == "gte":
        return row.get(field) is not None and _comparable(row[field], v) and row[field] >= v
    if op == "lte":
        return row.get(field) is not None and _comparable(row[field], v) and row[field] <= v
    if isinstance(v, list) and not isinstance(row.get(field), list):  # a list for one value: any of it
        return _norm(row.get(field)) in {_norm(x) for x in v}
    if isinstance(row.get(field), bool):  # a yes-or-no field: a flag, or the words and digits that say one
        said = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}.get(_norm(v))
        return row[field] is (v if isinstance(v, bool) else said)
    return bool(_norm(row.get(field)) == _norm(v))


def test_each_filter_keeps_the_rows_its_predicate_kept() -> None:
    rng = random.Random(0)
    for op in ("eq", "search", "contains", "in", "any", "unless", "gte", "lte"):
        keep = _row_filter(Filter(arg="a", field="f", op=op), TEXT_FIELDS)
        checked = 0
        for _ in range(400):
            rows = [{k: rng.choice(VALUES) for k in rng.sample(["f", "g", "h"], rng.randint(0, 3))} for _ in range(6)]
            v = rng.choice(VALUES)
            try:
                want = [r for r in rows if _was(op, r, v)]
            except TypeError:  # rows the operator cannot compare: refused alike
                with pytest.raises(TypeError):
                    keep(rows, v)
                continue
            assert keep(rows, v) == want
            checked += 1
        assert checked > 50


def test_a_yes_or_no_field_is_found_by_the_words_and_digits_a_query_string_gives() -> None:
    """``?error=false`` or ``up: 1`` (a text or a number parameter) finds the rows whose flag says so."""
    keep = _row_filter(Filter(arg="error", field="error", op="eq"), TEXT_FIELDS)
    rows = [{"error": True, "n": 1}, {"error": False, "n": 2}, {"error": None, "n": 3}, {"error": "false", "n": 4}]
    for given, found in (("False", [2, 4]), ("true", [1]), (1, [1]), ("0", [2]), (False, [2]), ("maybe", [])):
        assert [r["n"] for r in keep(rows, given)] == found, given

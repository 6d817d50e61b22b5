"""The generated record shaper (``shape._fused``) answers what projecting then conforming gives
(``_row_projector`` then ``compile_conformer``): the same members, in the same order, of the same
values and types, for rows that fit and rows that do not, on every bundled record and on records
with aliases, patterns, nullable and non-text enums."""

from __future__ import annotations

import random
from typing import Any

from envfactory.core import ToolResult
from envfactory.ir.jsonschema import data_path
from envfactory.runtime.conform import compile_conformer
from envfactory.runtime.environment import Environment
from envfactory.runtime.result import tool_result
from envfactory.runtime.shape import _aliased, _fitted, _fused, _row_projector


class Text(str):
    pass


VALUES: list[Any] = [None, True, False, 0, 1, -5, 2**70, 1.0, 2.5, "", "x", "None", "2024-01-02", "1",
                     "2024-01-02T10:00:00Z", "a@b.co", "available", "fiction", "premium", [], [1, "a"], {},
                     {"a": 1}, Text("available")]  # fmt: skip
ODD = {
    "type": "object",
    "properties": {
        "a": {"type": "string", "enum": ["x", 1, None]},
        "b": {"type": ["string", "null"]},
        "c": {"type": "string", "pattern": "^[a-z]+$"},
        "d": {},
        "e": {"type": "array", "items": {"type": "integer"}},
        "f": {"type": "integer", "enum": [1, 2]},
        "order_id": {"type": "string"},
    },
    "required": ["a", "d"],
}
CLOSED = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "boolean"}},
          "additionalProperties": False}  # fmt: skip


def _records(envs: dict[str, Environment]) -> list[tuple[dict[str, Any], dict[str, str]]]:
    out = [(ODD, {"order_id": "id"}), (CLOSED, {})]
    for env in envs.values():
        for tool in env.spec.tools.tools:
            record = data_path(tool.output_schema)[1] if tool.output_schema else None
            if record:
                out.append((record, {}))
    return out


def test_the_fused_shaper_is_projecting_then_conforming(bundled_envs: dict[str, Environment]) -> None:
    rng, fused = random.Random(0), 0
    for record, aliases in _records(bundled_envs):
        slow = _fitted(_aliased(_row_projector(record), aliases), compile_conformer(record))
        fast = _fused(record, aliases, slow)
        if fast is None:
            continue
        fused += 1
        keys = [*record["properties"], "id", "extra"]
        for _ in range(300):
            row = {k: rng.choice(VALUES) for k in rng.sample(keys, rng.randint(0, len(keys)))}
            if rng.random() < 0.5:
                for k in record.get("required", ()):
                    row.setdefault(k, rng.choice(VALUES))
            want, got = slow(dict(row)), fast(dict(row))
            assert repr(got) == repr(want)
            assert [type(v) for v in got.values()] == [type(v) for v in want.values()]
        assert fast("not a row") == slow("not a row")
    assert fused > 10


def test_an_open_record_is_not_fused() -> None:
    open_record = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert _fused(open_record, {}, lambda row: row) is None


def test_the_fast_result_is_a_tool_result() -> None:
    made = tool_result(True, '{"a":1}')
    assert made == ToolResult(True, '{"a":1}') and type(made) is ToolResult and made.error is None
    assert tool_result(False, "x", "not_found") == ToolResult(False, "x", "not_found")
    assert hash(made) == hash(ToolResult(True, '{"a":1}'))

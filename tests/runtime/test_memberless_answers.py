"""Answers declared as an object with no ``properties``: a map of one value type
(``additionalProperties: {type: integer}``) answers only members of that type, and a closed object
declaring no members (``additionalProperties: false``) answers ``{}``, whatever the row holds."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file, path_id

from envfactory.runtime.conform import compile_conformer
from envfactory.runtime.environment import Environment
from envfactory.runtime.shape import compile_shaper
from envfactory.synth import synthesize
from envfactory.synth.arguments import fits
from envfactory.synth.selfcheck import self_check

ROW = {"id": "stock_0001", "available": 4, "sold": 2, "label": "x"}


def test_a_top_level_map_answers_members_of_its_value_type() -> None:
    shape = compile_shaper({"type": "object", "additionalProperties": {"type": "integer"}})
    assert shape(ROW) == {"available": 4, "sold": 2}


def test_a_closed_object_of_no_members_answers_nothing_else() -> None:
    closed = {"type": "object", "additionalProperties": False}
    assert compile_shaper(closed)(ROW) == {}
    fit = compile_conformer({"type": "object", "properties": {"view": closed}})
    assert fit is not None and fit({"view": {"a": 1}}) == {"view": {}}


def test_a_list_declared_as_a_closed_empty_object_is_not_asked_for_rows(tmp_path: Path) -> None:
    thing = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}
    view = {"type": "object", "additionalProperties": False, "title": "ThingListView"}
    ok = lambda s: {"200": {"description": "ok", "content": {"application/json": {"schema": s}}}}  # noqa: E731
    paths = {
        "/things": {"get": {"operationId": "listThings", "responses": ok(view)},
                    "post": {"operationId": "createThing", "responses": ok(thing), "requestBody": {
                        "content": {"application/json": {"schema": {"type": "object", "properties": {
                            "name": {"type": "string"}}}}}}}},
        "/things/{id}": {"get": {"operationId": "getThing", "responses": ok(thing), "parameters": [path_id("string")]}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "t"))
    assert Environment(spec).episode().call_tool("listThings", {}).data == {}
    report = self_check(spec, env=Environment(spec))
    assert report.passed, report.failures
    checks = {(t.tool, c.name): c.status for t in report.tools for c in t.checks}
    assert checks[("listThings", "list returns rows")] == "skip"


def test_a_value_fits_a_parameter_only_in_its_format() -> None:
    stamp = {"type": "string", "format": "date-time"}
    assert fits("2025-04-01T10:00:00Z", stamp) and not fits("2025-04-01", stamp)
    assert fits("anything", {"type": "string", "format": "hostname"})  # a format nobody checks here


def test_a_map_of_several_value_types_keeps_members_of_each() -> None:
    mixed = {"type": "object", "additionalProperties": {"anyOf": [{"type": "integer"}, {"type": "string"}]}}
    assert compile_shaper(mixed)({**ROW, "tags": ["a"]}) == ROW


CLASS = '''
from typing import Dict


class Counter:
    """Counts what it is told."""

    def __init__(self) -> None:
        self.seen = 0

    def tell(self, word: str) -> Dict[str, str]:
        """Tell it a word.

        Args:
            word: The word.
        """
        self.seen += 1
        return {"word": word, "seen": self.seen}
'''


def test_a_bound_class_answers_what_it_returned_whatever_its_hints_say(tmp_path: Path) -> None:
    source = tmp_path / "counter.py"
    source.write_text(CLASS)
    env = Environment(synthesize(f"{source}:Counter", bind=True, trust_code=True), trust_code=True)
    assert env.spec.tools["tell"].output_schema == {"type": "object", "additionalProperties": {"type": "string"}}
    assert env.episode().call_tool("tell", {"word": "hi"}).data == {"word": "hi", "seen": 1}

"""Seeded keys and values in the shape the spec demands: uuid ids, pattern ids, patterns, ranges."""

from __future__ import annotations

import json
import random

import pytest
from tests.conftest import FIXTURES

from envfactory.patterns import matching_string
from envfactory.runtime.environment import Environment
from envfactory.runtime.validation import compile_schema
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check


@pytest.mark.parametrize(
    "pattern",
    [r"^[A-Z]{3}-[0-9]{4}$", "^[0-9A-HJKMNP-TV-Z]{26}$", "^[a-z0-9]+(?:-[a-z0-9]+)*$", r"^\d{3}-\d{2}-\d{4}$",
     "^(foo|bar)_[a-f0-9]{8}$", r"^v[0-9]+\.[0-9]+$", r"^([a-z])\1$"],
)  # fmt: skip
def test_matching_strings_match_their_pattern(pattern: str) -> None:
    import re

    rng = random.Random(0)
    made = {matching_string(pattern, rng) for _ in range(20)}
    assert all(m is not None and re.search(pattern, m) for m in made)
    assert len(made) > 1 or pattern == r"^([a-z])\1$"


def test_every_seeded_value_satisfies_its_own_schema() -> None:
    spec = synthesize(FIXTURES / "vault.yaml")
    for entity in spec.state_schema.entities:
        for row in spec.initial_state[entity.name]:
            for field, value in row.items():
                schema = entity.fields.get(field)
                if schema:
                    compile_schema(schema)(value)  # raises on a value its schema refuses


def test_uuid_and_pattern_ids_round_trip_through_the_tools() -> None:
    spec = synthesize(FIXTURES / "vault.yaml")
    vault = spec.state_schema["vault"]
    assert vault.key_schema == {"format": "uuid"} and len(str(vault.format_key(3))) == 36
    episode = Environment(spec).episode()
    key = spec.initial_state["vault"][0]["id"]
    assert episode.call_tool("getVault", {"vault_id": key}).ok
    created = episode.call_tool("createVault", {"name": "Cellar"})
    assert created.ok and episode.call_tool("getVault", {"vault_id": created.data["id"]}).ok
    assert created.data["id"] not in {r["id"] for r in spec.initial_state["vault"]}
    report = self_check(spec)
    assert report.passed, [(t.tool, c.name, c.detail) for t in report.tools for c in t.checks if c.status == "fail"]


def test_outputs_follow_declared_envelopes_and_hal() -> None:
    spec = synthesize(FIXTURES / "budget.yaml")
    assert set(spec.state_schema["order"].fields) == {"order_number", "status", "total"}  # not _embedded/_links
    episode = Environment(spec).episode()
    accounts = episode.call_tool("getAccounts", {"budget_id": "b1"}).data
    assert set(accounts) == {"data"} and set(accounts["data"]) == {"accounts", "server_knowledge"}
    key = accounts["data"]["accounts"][0]["id"]
    one = episode.call_tool("getAccountById", {"budget_id": "b1", "account_id": key}).data
    assert one["data"]["account"]["id"] == key
    orders = episode.call_tool("listOrders", {}).data
    assert len(orders["_embedded"]["orders"]) == 12
    assert self_check(spec).passed


def test_the_specs_own_examples_feed_seeded_values(tmp_path) -> None:
    import json

    doc = {
        "openapi": "3.0.0",
        "info": {"title": "cities"},
        "paths": {"/cities": {"get": {"operationId": "listCities", "responses": {"200": {"description": "ok",
            "content": {"application/json": {"schema": {"type": "array", "items": {"type": "object", "properties": {
                "id": {"type": "string"},
                "name": {"type": "string", "example": "Lisbon", "examples": ["Oslo", "Quito", 7]},
                "population": {"type": "integer", "example": 545000},
            }}}}}}}}}},
    }  # fmt: skip
    path = tmp_path / "cities.json"
    path.write_text(json.dumps(doc))
    spec = synthesize(path)
    rows = spec.initial_state["city"]
    names = {r["name"] for r in rows}
    assert names & {"Lisbon", "Oslo", "Quito"} and 7 not in names  # an example of the wrong type is never used
    assert len(names) > 3  # examples are a share of the values, not all of them
    assert 545000 in {r["population"] for r in rows}


def test_deeply_nested_values_stay_small_and_valid() -> None:
    """Issue #25: seeded records of a big spec nested records in lists in records (48 MB of state)."""
    from envfactory.values import MAX_NESTING, ValueMaker

    schema: dict = {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}
    for _ in range(8):
        schema = {"type": "object", "required": ["id"],
                  "properties": {"id": {"type": "string"}, "children": {"type": "array", "items": schema},
                                 "parent": schema}}  # fmt: skip
    value = ValueMaker(0).value(schema)
    compile_schema(schema)(value)
    depth, node = 0, value
    while isinstance(node, dict) and "parent" in node:
        depth, node = depth + 1, node["parent"]
    assert depth == MAX_NESTING and len(json.dumps(value)) < 20_000


def test_a_record_of_many_nested_optional_members_stays_within_its_budget() -> None:
    """Issue #25: a public spec's records held hundreds of optional nested members each (78 KB a
    row, a folder 5.8x the spec). Past a record's budget, nested parts hold only what they must,
    and every value still satisfies its schema; a record under the budget is untouched."""
    from envfactory.values import RECORD_LEAVES, ValueMaker

    leaf = {"type": "object", "required": ["id"],
            "properties": {"id": {"type": "string"}, **{f"f{i}": {"type": "string"} for i in range(6)}}}  # fmt: skip
    wide = {"type": "object", "properties": {f"part{i}": {"type": "array", "items": leaf} for i in range(40)}}
    maker = ValueMaker(0)
    maker.record()
    value = maker.value(wide)
    compile_schema(wide)(value)
    unbounded = ValueMaker(0).value(wide)  # no record begun: no budget
    assert len(json.dumps(value)) * 3 < len(json.dumps(unbounded))
    assert RECORD_LEAVES <= maker.leaves < 2 * RECORD_LEAVES + 40 * 2

    small = {"type": "object", "properties": {"tags": {"type": "array", "items": leaf}}}
    budgeted = ValueMaker(1)
    budgeted.record()
    assert budgeted.value(small) == ValueMaker(1).value(small)


@pytest.mark.parametrize(
    ("schema", "allowed"),
    [
        ({"type": "string", "enum": ["red", "blue", None]}, {"red", "blue"}),  # null listed, type refuses it
        ({"type": ["string", "null"], "enum": ["red", None]}, {"red", None}),  # nullable: null is a member
        ({"enum": ["red", None]}, {"red", None}),  # untyped: every member
        ({"type": "integer", "enum": ["1", "2"]}, {"1", "2"}),  # none fits: the enum is all there is
    ],
)
def test_made_enum_values_are_of_the_declared_type(schema: dict, allowed: set) -> None:
    from envfactory.values import ValueMaker

    maker = ValueMaker(0)
    made = {maker.value(schema, "flag_color") for _ in range(60)}
    assert made == allowed


def test_a_pattern_shaped_like_a_clock_gets_a_time_or_a_date() -> None:
    """``^\\d{2}:\\d{2}$`` admits ``77:87``; a value a person would write is a time of day."""
    import re

    from envfactory.values import ValueMaker

    vm = ValueMaker(0)
    for pattern, shape in ((r"^\d{2}:\d{2}$", r"(0\d|1\d|2[0-3]):[0-5]\d"),
                           (r"^\d{4}-\d{2}-\d{2}$", r"20\d\d-(0\d|1[0-2])-[0-3]\d"),
                           (r"^[0-9]{4}-[0-9]{2}$", r"20\d\d-(0\d|1[0-2])")):  # fmt: skip
        drawn = [vm.value({"type": "string", "pattern": pattern}, "timestamp", "entry") for _ in range(20)]
        assert all(re.fullmatch(shape, v) for v in drawn), (pattern, drawn)
    assert re.fullmatch(r"[A-Z]{3}", vm.value({"type": "string", "pattern": r"^[A-Z]{3}$"}, "code", "x"))


def test_a_value_is_made_in_the_form_its_description_writes() -> None:
    """ "Target date YYYY-MM-DD" with no declared format: a caller sends a date, not a word (what the
    model accepts is not changed by it: prose like this often describes, not checks)."""
    import re

    from envfactory.values import ValueMaker

    vm = ValueMaker(0)
    for described, shape in (("Target date YYYY-MM-DD", r"20\d\d-(0\d|1[0-2])-[0-3]\d"),
                             ("Month in YYYY-MM format", r"20\d\d-(0\d|1[0-2])"),
                             ("When, as YYYY-MM-DD HH:MM", r"20\d\d-\d\d-\d\dT\d\d:\d\d"),
                             ("Start time (HH:MM)", r"(0\d|1\d|2[0-3]):[0-5]\d")):  # fmt: skip
        drawn = [vm.value({"type": "string", "description": described}, "period", "entry") for _ in range(10)]
        assert all(re.fullmatch(shape, v) for v in drawn), (described, drawn)
    # named as a date is one: a goal's deadline, a task's due
    assert re.fullmatch(r"20\d\d-\d\d-\d\d", vm.value({"type": "string"}, "deadline", "goal"))
    assert re.fullmatch(r"20\d\d-\d\d-\d\d", vm.value({"type": "string"}, "due", "task"))
    assert not re.fullmatch(r"20\d\d-\d\d-\d\d", vm.value({"type": "string"}, "amount_due", "invoice"))

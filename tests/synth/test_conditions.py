"""Records whose fields are an object argument's members, and writes that pick their rows by conditions
(``synth/conditions.py``): read from input schemas alone, with no output schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envfactory.ir.effect import CreateEffect, ListEffect, WhereEffect
from envfactory.ir.tool import HttpBinding, ToolSet, ToolSource, ToolSpec
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.conditions import open_object
from envfactory.synth.selfcheck import self_check

JSON = dict[str, Any]
STR = {"type": "string"}
FREE = {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]}}


def _function(name: str, description: str, props: JSON, required: list[str]) -> JSON:
    return {"type": "function", "function": {"name": name, "description": description,
            "parameters": {"type": "object", "properties": props, "required": required}}}  # fmt: skip


def _spec(tmp_path: Path, tools: list[JSON]) -> Any:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    return synthesize(path, state="empty")


SHEET = [
    _function("add_row", "Add a row to a sheet.", {"sheet": STR, "values": FREE}, ["sheet", "values"]),
    _function("get_rows", "Get rows of a sheet.", {"sheet": STR, "where": FREE, "limit": {"type": "integer"}},
              ["sheet"]),
    _function("set_rows", "Update rows of a sheet.", {"sheet": STR, "values": FREE, "where": FREE},
              ["sheet", "values", "where"]),
    _function("drop_rows", "Delete rows of a sheet.", {"sheet": STR, "where": FREE}, ["sheet", "where"]),
]  # fmt: skip


def test_an_object_of_undeclared_members_is_read_as_such() -> None:
    assert open_object(FREE)
    assert open_object({"anyOf": [{"type": "object", "additionalProperties": True}, STR, {"type": "null"}]})
    assert not open_object({"type": "object", "properties": {"name": STR}})
    assert not open_object({"type": "object", "additionalProperties": False})
    assert not open_object(STR)


def test_rows_are_the_records_members_and_writes_reach_what_the_conditions_match(tmp_path: Path) -> None:
    spec = _spec(tmp_path, SHEET)
    effects = {b.tool: b.effect for b in spec.behaviours}
    create, listing, update, delete = (effects[t] for t in ("add_row", "get_rows", "set_rows", "drop_rows"))
    assert isinstance(create, CreateEffect) and create.spread == "values"
    assert isinstance(listing, ListEffect) and ("where", None, "members") in [(f.arg, f.field, f.op)
                                                                             for f in listing.filters]  # fmt: skip
    assert isinstance(update, WhereEffect) and update.set_arg == "values" and not update.delete
    assert isinstance(delete, WhereEffect) and delete.delete and delete.set_arg is None
    entity = spec.state_schema[create.entity]
    assert "values" not in entity.fields and "where" not in entity.fields  # arguments, not fields

    episode = Environment(spec).episode()
    for sheet, name, city in (("people", "Ada", "London"), ("people", "Bob", "Paris"), ("places", "Ada", "Paris")):
        assert episode.call_tool("add_row", {"sheet": sheet, "values": {"name": name, "city": city}}).ok
    found = episode.call_tool("get_rows", {"sheet": "people", "where": {"city": "london"}}).data
    assert [(r["name"], r["city"]) for r in found] == [("Ada", "London")]

    moved = episode.call_tool("set_rows", {"sheet": "people", "values": {"city": "Rome"}, "where": {"name": "Ada"}})
    assert moved.data == {"updated": 1}  # the other sheet's Ada is another table's row
    rows = {(r["sheet"], r["name"]): r["city"] for r in episode.store.rows(entity.name)}
    assert rows == {("people", "Ada"): "Rome", ("people", "Bob"): "Paris", ("places", "Ada"): "Paris"}

    everything = episode.call_tool("drop_rows", {"sheet": "people", "where": {}})
    assert everything.error == "invalid_arguments" and len(list(episode.store.rows(entity.name))) == 3
    dropped = episode.call_tool("drop_rows", {"sheet": "people", "where": {"city": "Paris"}})
    assert dropped.data == {"deleted": 1}
    assert sorted((r["sheet"], r["name"]) for r in episode.store.rows(entity.name)) == [("people", "Ada"),
                                                                                       ("places", "Ada")]  # fmt: skip


def test_the_self_check_probes_writes_by_conditions(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(SHEET))
    report = self_check(synthesize(path))  # seeded rows to reach
    for tool in ("set_rows", "drop_rows"):
        checks = {c.name: c.status for t in report.tools if t.tool == tool for c in t.checks}
        assert checks["a write by conditions reaches the rows they match, and only those"] == "pass"
        assert checks["empty conditions are refused"] == "pass"


def test_a_document_stores_update_writes_the_object_no_list_filters_by(tmp_path: Path) -> None:
    spec = _spec(tmp_path, [
        _function("insert_document", "Insert a document.", {"collection": STR, "document": FREE},
                  ["collection", "document"]),
        _function("find_documents", "Find documents.", {"collection": STR, "filter": FREE}, ["collection"]),
        _function("update_documents", "Update the documents a filter matches.",
                  {"collection": STR, "filter": FREE, "update": FREE}, ["collection", "filter", "update"]),
    ])  # fmt: skip
    update = spec.behaviour("update_documents").effect
    assert isinstance(update, WhereEffect) and update.set_arg == "update"
    assert [f.arg for f in update.filters if f.op == "members"] == ["filter"]


def test_a_free_form_field_of_a_keyed_record_stays_a_field(tmp_path: Path) -> None:
    spec = _spec(tmp_path, [
        _function("create_note", "Create a note.", {"title": STR, "metadata": FREE}, ["title"]),
        _function("get_note", "Get a note.", {"note_id": STR}, ["note_id"]),
        _function("update_note", "Update a note.", {"note_id": STR, "metadata": FREE}, ["note_id", "metadata"]),
    ])  # fmt: skip
    create = spec.behaviour("create_note").effect
    assert isinstance(create, CreateEffect) and create.spread is None and create.args.get("metadata") == "metadata"
    assert spec.behaviour("update_note").effect.kind == "update"


def test_a_free_object_beside_a_bodys_declared_members_is_a_field_of_the_record() -> None:
    """A route's request body declaring ``address`` and ``expiration`` beside a free ``params`` makes
    a record with those fields and a ``params`` field, whatever a list of it takes (Google's
    watch channels); the same arguments as a function's make a record of ``params``' members."""
    props = {"address": STR, "expiration": {"type": "integer"}, "params": FREE}
    listing = {"params": FREE}
    routes = ToolSet(name="channels", tools=(
        ToolSpec(name="create_channel", input_schema={"type": "object", "properties": props},
                 source=ToolSource(format="openapi", http=HttpBinding(method="POST", path="/channels",
                                                                      params=dict.fromkeys(props, "body")))),
        ToolSpec(name="list_channels", input_schema={"type": "object", "properties": listing},
                 source=ToolSource(format="openapi", http=HttpBinding(method="GET", path="/channels",
                                                                      params={"params": "query"}))),
    ))  # fmt: skip
    create = synthesize(routes, state="empty").behaviour("create_channel").effect
    assert isinstance(create, CreateEffect) and create.spread is None and create.args["params"] == "params"
    functions = ToolSet(
        name="channels", tools=tuple(t.model_copy(update={"source": ToolSource(format="openai")}) for t in routes.tools)
    )
    create = synthesize(functions, state="empty").behaviour("create_channel").effect
    assert isinstance(create, CreateEffect) and create.spread == "params"

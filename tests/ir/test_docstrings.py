"""Docstring-style descriptions: argument notes become descriptions, a Returns sketch the reply's schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envfactory.ir.docstrings import read_docstring
from envfactory.ir.sketch import sketch_schema, sketch_schemas
from envfactory.synth import synthesize

GOOGLE = """Create a new task.

    Args:
        title: Non-empty task title.
        priority: Optional, one of "low", "med", "high". Omit for no priority.
        due: Optional ISO date string, e.g. "2026-09-01".

    Returns:
        {"ok": true, "task": {id, title, status, priority}, "recovered": [task, ...]} on success,
        or {"ok": false, "error", "message"} if title is empty.
"""
NUMPY = """List the notes.

Parameters
----------
tag : str
    Only notes with this tag.

Returns
-------
dict
    {"notes": [{"id": 1, "text": "..."}], "count": N}
"""


def test_a_google_docstring_is_split_into_its_parts() -> None:
    doc = read_docstring(GOOGLE)
    assert doc.summary == "Create a new task."
    assert doc.params == {"title": "Non-empty task title.",
                          "priority": 'Optional, one of "low", "med", "high". Omit for no priority.',
                          "due": 'Optional ISO date string, e.g. "2026-09-01".'}  # fmt: skip
    assert doc.returns is not None and doc.returns.startswith('{"ok": true, "task": {id,')


def test_a_numpy_docstring_is_split_into_its_parts() -> None:
    doc = read_docstring(NUMPY)
    assert doc.params == {"tag": "Only notes with this tag."}
    assert doc.returns is not None and '"count": N' in doc.returns


def test_plain_prose_has_no_parts() -> None:
    assert read_docstring("Delete a note by its id. Returns nothing.").params == {}
    assert read_docstring("Delete a note by its id.").returns is None


@pytest.mark.parametrize(
    ("text", "schema"),
    [
        ('{"ok": true, "count": N, "name": "x"}', {"type": "object", "properties": {
            "ok": {"type": "boolean"}, "count": {"type": "integer"}, "name": {"type": "string"}}}),
        ("[{id, name}, ...]", {"type": "array", "items": {"type": "object", "properties": {"id": {}, "name": {}}}}),
        ('{"task": {id}, "recovered": [task, ...]}', {"type": "object", "properties": {
            "task": {"type": "object", "properties": {"id": {}}},
            "recovered": {"type": "array", "items": {"type": "object", "properties": {"id": {}}}}}}),
        ("the new id", None),
        ("{...}", None),
        ("{a: (1 + 2)}", None),  # not a sketch
    ],
)  # fmt: skip
def test_a_reply_sketch_is_read_as_a_schema(text: str, schema: dict[str, object] | None) -> None:
    assert sketch_schema(text) == schema


def test_a_thing_one_sketch_names_is_drawn_as_another_draws_it() -> None:
    drawn = sketch_schemas({"add": '{"task": {id, title}}', "list": '{"tasks": [task, ...]}'})
    assert drawn["list"]["properties"]["tasks"]["items"] == {"type": "object", "properties": {"id": {}, "title": {}}}


def test_a_sketch_is_read_past_alternatives_additions_and_remarks() -> None:
    text = """Returns: {"ok": true, "note": {id, body}, "parent": {"id"} or
        null, "source": "cli"|"web"|null, "size": N (in bytes), "at": "<ISO-8601
        timestamp>", "kin": [note + "depth", ...]} on success"""
    props = sketch_schema(text)["properties"]  # type: ignore[index]
    assert props["parent"] == {"type": "object", "properties": {"id": {}}}
    assert props["source"] == props["at"] == {"type": "string"}
    assert props["size"] == {"type": "integer"}
    assert props["kin"]["items"] == {"type": "object", "properties": {"id": {}, "body": {}, "depth": {}}}
    assert sketch_schema('{"ok": true, "state": null | str}') == {
        "type": "object", "properties": {"ok": {"type": "boolean"}, "state": {"type": "string"}}}  # fmt: skip


def test_a_member_sketched_as_dots_is_the_thing_another_sketch_draws() -> None:
    drawn = sketch_schemas({"add": '{"ok": true, "note": {id, body}}', "done": '{"ok": true, "note": {...}}'})
    assert drawn["done"]["properties"]["note"] == {"type": "object", "properties": {"id": {}, "body": {}}}


def test_synthesis_reads_the_notes_and_the_sketch(tmp_path: Path) -> None:
    tools = [{"name": "add_task", "description": GOOGLE, "inputSchema": {"type": "object", "required": ["title"],
              "properties": {"title": {"type": "string"}, "priority": {"type": "string"},
                             "due": {"type": "string"}}}}]  # fmt: skip
    path = tmp_path / "tools.mcp.json"
    path.write_text(json.dumps({"tools": tools}))
    spec = synthesize(path)
    tool = spec.tools["add_task"]
    assert tool.input_schema["properties"]["priority"]["enum"] == ["low", "med", "high"]  # the note's constraint
    assert tool.input_schema["properties"]["due"]["format"] == "date"  # "an ISO date string"
    assert tool.output_schema is not None and set(tool.output_schema["properties"]) == {"ok", "task", "recovered"}
    assert {"title", "status", "priority"} <= set(spec.state_schema["task"].fields)


@pytest.mark.parametrize(
    ("text", "fmt"),
    [("Optional ISO date string", "date"), ("an ISO 8601 date", "date"), ("ISO 8601 datetime", None),
     ("in the format YYYY-MM-DD", None), ("the date it was updated", None)],
)  # fmt: skip
def test_a_date_format_is_read_where_the_prose_names_the_standard(text: str, fmt: str | None) -> None:
    from envfactory.ir.prose import format_from_description

    assert format_from_description(text) == fmt

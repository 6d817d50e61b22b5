"""``{success: true, data: {type: object}}``: an envelope whose ``data`` holds a record it does not
describe. ``data`` is no field of the record, ``success`` says the call worked, and the self-check
reads a record back inside the envelope its read tool declares."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import openapi_file, path_id

from envfactory.ir.jsonschema import data_path, declares_one_record
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import _unwrapped, self_check

JSON = dict[str, Any]
FREE = {"type": "object", "required": ["success", "data"],
        "properties": {"success": {"type": "boolean"}, "data": {"type": "object"}}}  # fmt: skip
WIDGET = {"type": "object", "properties": {"id": {"type": "integer"}, "label": {"type": "string"}}}
WRAPPED = {"type": "object", "properties": {"success": {"type": "boolean"}, "data": WIDGET}}


def _ok(schema: JSON) -> JSON:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def test_a_free_form_data_member_is_the_envelopes_record() -> None:
    path, record, as_list = data_path(FREE)
    assert [k for k, _ in path] == ["data"] and record == {"type": "object"} and not as_list
    assert declares_one_record(FREE)
    assert _unwrapped({"success": True, "data": {"id": 3}}, WRAPPED) == {"id": 3}


def test_the_record_behind_a_free_envelope_round_trips(tmp_path: Path) -> None:
    label = {"type": "object", "properties": {"label": {"type": "string"}}}
    body = {"content": {"application/json": {"schema": label}}}
    paths = {
        "/widgets": {"post": {"operationId": "createWidget", "requestBody": body, "responses": _ok(FREE)},
                     "get": {"operationId": "listWidgets", "responses": _ok({"type": "array", "items": WIDGET})}},
        "/widgets/{id}": {"get": {"operationId": "getWidget", "responses": _ok(WRAPPED),
                                  "parameters": [path_id("integer")]}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "w"))
    assert "data" not in spec.state_schema["widget"].fields
    episode = Environment(spec).episode()
    made = episode.call_tool("createWidget", {"label": "gear"})
    assert made.ok and made.data["success"] is True and made.data["data"]["label"] == "gear", made.content
    got = episode.call_tool("getWidget", {"id": made.data["data"]["id"]})
    assert got.ok and got.data["data"]["label"] == "gear", got.content
    report = self_check(spec, env=Environment(spec))
    assert report.passed, report.failures

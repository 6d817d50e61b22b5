"""A record keyed by a number is named by its digits where a parameter takes text: a child
listing under ``/services/{id}/resources`` whose ``id`` is a string finds the resources of
service ``7`` when given ``"7"``."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file, path_id

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

SERVICE = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
RESOURCE = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}


def _ok(schema: dict) -> dict:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def test_a_text_parameter_names_the_record_keyed_by_its_digits(tmp_path: Path) -> None:
    many = {"type": "array", "items": RESOURCE}
    paths = {
        "/services": {"get": {"operationId": "listServices", "responses": _ok({"type": "array", "items": SERVICE})}},
        "/services/{id}": {"get": {"operationId": "getService", "parameters": [path_id("integer")],
                                   "responses": _ok(SERVICE)}},
        "/services/{id}/resources": {"get": {"operationId": "listServiceResources", "parameters": [path_id("string")],
                                             "responses": _ok(many)}},
        "/resources/{id}": {"get": {"operationId": "getResource", "parameters": [path_id("integer")],
                                    "responses": _ok(RESOURCE)}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "services"))
    assert spec.state_schema["service"].key_type == "integer"
    row = spec.initial_state["resource"][0]
    parent = next(f for f, t in spec.state_schema["resource"].refs.items() if t == "service")
    listed = Environment(spec).episode().call_tool("listServiceResources", {"id": str(row[parent])})
    assert listed.ok and row["id"] in [r["id"] for r in listed.data], listed.content
    report = self_check(spec, env=Environment(spec))
    assert report.passed, report.failures

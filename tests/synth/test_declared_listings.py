"""A listing shows a made record as its declared answer shows it: a key the state holds as text
(``milestone_0013``, since the read's path parameter is a string) that the answer declares an
integer is answered as a number there, and the self-check finds the record by that answer."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file, path_id

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

MILESTONE = {"type": "object", "properties": {"id": {"type": "integer", "format": "int64"},
                                              "title": {"type": "string"}, "state": {"type": "string"}}}  # fmt: skip


def _ok(schema: dict) -> dict:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def test_a_made_record_is_found_in_the_listing_as_it_is_declared_there(tmp_path: Path) -> None:
    body = {"content": {"application/json": {"schema": {"type": "object", "properties": {
        "title": {"type": "string"}, "state": {"type": "string"}}}}}}  # fmt: skip
    listing = _ok({"type": "array", "items": MILESTONE})
    paths = {
        "/milestones": {"get": {"operationId": "listMilestones", "responses": listing},
                        "post": {"operationId": "createMilestone", "requestBody": body, "responses": _ok(MILESTONE)}},
        "/milestones/{id}": {"get": {"operationId": "getMilestone", "parameters": [path_id("string")],
                                     "responses": _ok(MILESTONE)}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "milestones"))
    assert spec.state_schema["milestone"].key_type == "string"  # the read's parameter takes text
    report = self_check(spec, env=Environment(spec))
    checks = {(t.tool, c.name): c.status for t in report.tools for c in t.checks}
    assert checks[("createMilestone", "create -> list contains it")] == "pass", report.failures
    assert checks[("createMilestone", "create -> read round trip")] == "pass", report.failures

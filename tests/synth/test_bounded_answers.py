"""An answer's list declared to hold at most n items (``maxItems: 1``) answers the first n of
what the record holds, though the create that made it took more."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

FIELD = {"type": "object", "properties": {"key": {"type": "string"}, "hidden": {"type": "boolean"}}}


def _ok(schema: dict) -> dict:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _template(fields: dict) -> dict:
    return {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "fields": fields}}


def test_an_answer_holds_no_more_items_than_it_declares(tmp_path: Path) -> None:
    given = _template({"type": "array", "items": FIELD})
    answered = _template({"type": "array", "items": FIELD, "minItems": 1, "maxItems": 1})
    body = {"content": {"application/json": {"schema": given}}}
    paths = {"/templates": {"post": {"operationId": "createTemplate", "requestBody": body,
                                     "responses": _ok(answered)}}}  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "templates"))
    fields = [{"key": "a", "hidden": False}, {"key": "b", "hidden": True}]
    made = Environment(spec).episode().call_tool("createTemplate", {"name": "t", "fields": fields})
    assert made.ok and made.data["fields"] == fields[:1], made.content
    report = self_check(spec, env=Environment(spec))
    assert report.passed, report.failures

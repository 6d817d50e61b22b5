"""A read whose declared envelope holds its record inside a list (Personio's
``{data: {type, attributes: [{first_name: {label, value}, ...}]}}``) shows a made record there:
the self-check's round trip finds it in that list (a whole answer that is a list is many records:
no read's, so not taken so)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file, path_id

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

LABELLED = {"type": "object", "required": ["label", "value"],
            "properties": {"label": {"type": "string"}, "value": {"type": "object"}}}  # fmt: skip
MEMBERS = {"type": "object", "properties": {"id": LABELLED, "first_name": LABELLED, "last_name": LABELLED}}
EMPLOYEE = {"type": "object", "properties": {"data": {"type": "object", "properties": {
    "type": {"type": "string"}, "attributes": {"type": "array", "items": MEMBERS}}}}}  # fmt: skip


def _ok(schema: dict) -> dict:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def test_a_record_listed_inside_its_envelope_is_read_back(tmp_path: Path) -> None:
    made = {"type": "object", "properties": {"data": {"type": "object"}, "success": {"type": "boolean"}}}
    names = [{"name": n, "in": "query", "required": True, "schema": {"type": "string"}}
             for n in ("employee[first_name]", "employee[last_name]")]  # fmt: skip
    paths = {
        "/employees": {"post": {"operationId": "createEmployee", "parameters": names, "responses": _ok(made)},
                       "get": {"operationId": "listEmployees", "responses": _ok(EMPLOYEE)}},
        "/employees/{id}": {"get": {"operationId": "getEmployee", "parameters": [path_id("integer")],
                                    "responses": _ok(EMPLOYEE)}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "employees"))
    assert spec.behaviour("getEmployee").effect.kind == "read"
    report = self_check(spec, env=Environment(spec))
    checks = {(t.tool, c.name): c.status for t in report.tools for c in t.checks}
    assert checks[("createEmployee", "create -> read round trip")] == "pass", report.failures

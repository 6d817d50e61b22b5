"""A tool whose whole answer is an integer, named for counting what it names (``GET /users/count``):
a count of that entity's records, narrowed by the arguments that name their fields."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

USER = {"type": "object", "properties": {"id": {"type": "string"}, "username": {"type": "string"}}}


def _ok(schema: dict) -> dict:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def test_an_integer_answer_named_a_count_counts_the_records_it_names(tmp_path: Path) -> None:
    body = {"content": {"application/json": {"schema": USER}}}
    name = {"name": "username", "in": "query", "schema": {"type": "string"}}
    paths = {
        "/users": {"post": {"operationId": "createUser", "requestBody": body, "responses": _ok(USER)},
                   "get": {"operationId": "listUsers", "responses": _ok({"type": "array", "items": USER})}},
        "/users/count": {"get": {"operationId": "get_users_count", "parameters": [name],
                                 "responses": _ok({"type": "integer"})}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "users"), state="empty")
    assert spec.behaviour("get_users_count").effect.kind == "count"
    assert "count" not in spec.state_schema.names  # no made-up entity for the count
    episode = Environment(spec).episode()
    assert episode.call_tool("get_users_count", {}).data == 0
    episode.call_tool("createUser", {"username": "ada"})
    episode.call_tool("createUser", {"username": "bob"})
    assert episode.call_tool("get_users_count", {}).data == 2
    assert episode.call_tool("get_users_count", {"username": "ada"}).data == 1
    report = self_check(spec, env=Environment(spec))
    checks = {(t.tool, c.name): c.status for t in report.tools for c in t.checks}
    assert checks[("get_users_count", "answers whole counts, the same twice")] == "pass", report.failures

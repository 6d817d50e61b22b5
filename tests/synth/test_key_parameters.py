"""The parameters that name a thing's key decide its type: ``/teams/{id}: integer`` beside
``/repos/{repo}/teams/{team}`` (the team's *name*) keys teams by integers; and the self-check asks
for a missing row with a key the parameter accepts (text where it takes text, within its range)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

JSON = dict[str, Any]
TEAM = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}


def _ok(schema: JSON) -> JSON:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _param(name: str, typ: str, **more: Any) -> JSON:
    return {"name": name, "in": "path", "required": True, "schema": {"type": typ, **more}}


def _synth(tmp_path: Path, paths: JSON) -> Any:
    path = tmp_path / "api.json"
    path.write_text(json.dumps({"openapi": "3.0.0", "info": {"title": "api", "version": "1"}, "paths": paths}))
    return synthesize(path)


def test_the_parameters_naming_the_key_decide_its_type(tmp_path: Path) -> None:
    spec = _synth(tmp_path, {
        "/repos/{repo}/teams/{team}": {"get": {"operationId": "checkTeam", "responses": _ok(TEAM),
                                               "parameters": [_param("repo", "string"), _param("team", "string")]}},
        "/teams": {"get": {"operationId": "listTeams", "responses": _ok({"type": "array", "items": TEAM})}},
        "/teams/{id}": {"get": {"operationId": "getTeam", "parameters": [_param("id", "integer")],
                                "responses": _ok(TEAM)},
                        "delete": {"operationId": "deleteTeam", "parameters": [_param("id", "integer")],
                                   "responses": {"204": {"description": "gone"}}}},
    })  # fmt: skip
    team = spec.state_schema["team"]
    assert team.key == "id" and team.key_type == "integer"
    assert all(isinstance(row["id"], int) for row in spec.initial_state["team"])
    episode = Environment(spec).episode()
    some = spec.initial_state["team"][0]["id"]
    assert episode.call_tool("getTeam", {"id": some}).ok


def test_a_missing_row_is_asked_for_with_a_key_the_parameter_accepts(tmp_path: Path) -> None:
    thing = {"type": "object", "properties": {"id": {"type": "integer"}, "label": {"type": "string"}}}
    spec = _synth(tmp_path, {
        "/things": {"get": {"operationId": "listThings", "responses": _ok({"type": "array", "items": thing})}},
        "/things/{thingId}": {"get": {"operationId": "getThing", "responses": _ok(thing),
                                      "parameters": [_param("thingId", "integer", minimum=1, maximum=500)]}},
        "/labels/{thingId}": {"get": {"operationId": "getByText", "responses": _ok(thing),  # the same key, as text
                                      "parameters": [_param("thingId", "string")]}},
    })  # fmt: skip
    assert spec.state_schema["thing"].key_type == "integer"
    report = self_check(spec, env=Environment(spec))
    checks = {(t.tool, c.name): c for t in report.tools for c in t.checks}
    for tool in ("getThing", "getByText"):
        assert checks[(tool, "read of a missing row is not_found")].status == "pass", checks

"""Records named by their key or by a field (``synth.handles``, ``Entity.named_by``): a key argument
that says it takes either — in its description ("The ID or name of the container") or its name
(``id_or_name``) — finds a record by that field too, and every write through it reaches the record
under its own key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.synth.function_lists import STR, function, synthesize_functions

from envfactory.ir.effect import ReadEffect
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

JSON = dict[str, Any]
CONTAINER = {"type": "object", "properties": {"Id": {"type": "string"}, "name": {"type": "string"},
                                              "state": {"type": "string"}}}  # fmt: skip


def _ok(schema: JSON) -> JSON:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def test_a_route_whose_parameter_takes_the_id_or_the_name_finds_the_record_by_either(tmp_path: Path) -> None:
    either = [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"},
               "description": "ID or name of the container"}]  # fmt: skip
    body = {"content": {"application/json": {"schema": {"type": "object", "properties": {"name": STR}}}}}
    patch = {"content": {"application/json": {"schema": {"type": "object", "properties": {"state": STR}}}}}
    listed = _ok({"type": "array", "items": CONTAINER})
    doc = {"openapi": "3.0.0", "info": {"title": "engine", "version": "1"}, "paths": {
        "/containers": {"get": {"operationId": "listContainers", "responses": listed},
                        "post": {"operationId": "createContainer", "requestBody": body, "responses": _ok(CONTAINER)}},
        "/containers/{id}": {"get": {"operationId": "inspectContainer", "parameters": either,
                                     "responses": _ok(CONTAINER)},
                             "patch": {"operationId": "updateContainer", "parameters": either, "requestBody": patch,
                                       "responses": _ok(CONTAINER)},
                             "delete": {"operationId": "removeContainer", "parameters": either,
                                        "responses": _ok({"type": "object"})}},
    }}  # fmt: skip
    (tmp_path / "engine.json").write_text(json.dumps(doc))
    spec = synthesize(tmp_path / "engine.json")
    assert spec.state_schema["container"].named_by == "name"
    episode = Environment(spec).episode()
    made = episode.call_tool("createContainer", {"name": "web"}).data
    by_key = episode.call_tool("inspectContainer", {"id": made["Id"]})
    assert by_key.ok and episode.call_tool("inspectContainer", {"id": "web"}).data == by_key.data
    assert episode.call_tool("updateContainer", {"id": "web", "state": "paused"}).ok
    rows = list(episode.store.rows("container"))
    assert [r["state"] for r in rows if r["Id"] == made["Id"]] == ["paused"]  # changed under its own key
    assert len(rows) == len(spec.initial_state["container"]) + 1  # and no record made under the name
    assert episode.call_tool("inspectContainer", {"id": "no such name"}).error == "not_found"
    assert episode.call_tool("removeContainer", {"id": "web"}).ok
    assert made["Id"] not in {r["Id"] for r in episode.store.rows("container")}
    assert self_check(spec, env=Environment(spec)).passed


def test_an_argument_named_for_either_is_the_key_and_a_plain_key_argument_names_by_key_alone(tmp_path: Path) -> None:
    template = {"id": STR, "name": STR, "template": STR}
    spec = synthesize_functions(tmp_path, "prompts", [
        function("template_create", "Create a prompt template.", {"name": STR, "template": STR}, ["name", "template"],
                 template),
        function("template_get", "Get a prompt template by id or name.", {"id_or_name": STR}, ["id_or_name"], template),
        function("note_create", "Create a note.", {"name": STR}, ["name"], {"id": STR, "name": STR}),
        function("note_get", "Get a note.", {"id": STR}, ["id"], {"id": STR, "name": STR}),
    ])  # fmt: skip
    effect = spec.behaviour("template_get").effect
    assert isinstance(effect, ReadEffect) and effect.key_arg == "id_or_name"
    assert spec.state_schema["template"].named_by == "name" and spec.state_schema["note"].named_by is None
    episode = Environment(spec).episode()
    made = episode.call_tool("template_create", {"name": "greet", "template": "Hi {who}"}).data
    assert episode.call_tool("template_get", {"id_or_name": "greet"}).data["id"] == made["id"]
    assert episode.call_tool("template_get", {"id_or_name": made["id"]}).ok
    episode.call_tool("note_create", {"name": "todo list"})
    assert episode.call_tool("note_get", {"id": "todo list"}).error == "not_found"  # its key alone names a note

"""A GET on ``/.../{thing_id}`` whose whole answer is a list of records lists things of the thing
the parameter keys — it reads no one record keyed by it: ``/times/{user_id}`` a user's times,
``/scrobble/shows/{show_id}`` answering ``[MarkedEpisode]`` a show's marked episodes."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

SHOW = {"type": "object", "title": "Show", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
MARKED = {"type": "object", "title": "MarkedEpisode",
          "properties": {"episode_id": {"type": "integer"}, "marked_at": {"type": "integer"}}}  # fmt: skip
TIME = {"type": "object", "title": "TrackedTime",
        "properties": {"id": {"type": "integer"}, "time": {"type": "integer"}}}  # fmt: skip


def _ok(schema: dict) -> dict:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _param(name: str) -> list[dict]:
    return [{"name": name, "in": "path", "required": True, "schema": {"type": "integer"}}]


def test_a_list_answer_under_a_key_of_the_same_thing_lists_its_records_title(tmp_path: Path) -> None:
    paths = {
        "/shows/{show_id}": {"get": {"operationId": "getShow", "parameters": _param("show_id"),
                                     "responses": _ok(SHOW)}},
        "/scrobble/shows/{show_id}": {"get": {"operationId": "listShowMarks", "parameters": _param("show_id"),
                                              "responses": _ok({"type": "array", "items": MARKED})}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "shows"))
    effect = spec.behaviour("listShowMarks").effect
    assert (effect.kind, effect.entity) == ("list", "marked_episode")
    assert [(f.arg, f.field) for f in effect.filters] == [("show_id", "show_id")]
    assert spec.state_schema["marked_episode"].refs.get("show_id") == "show"
    assert self_check(spec, env=Environment(spec)).passed


def test_a_list_answer_under_a_key_of_another_thing_lists_the_path_noun(tmp_path: Path) -> None:
    paths = {
        "/users/{user_id}": {"get": {"operationId": "getUser", "parameters": _param("user_id"),
                                     "responses": _ok({"type": "object", "properties": {"id": {"type": "integer"}}})}},
        "/times/{user_id}": {"get": {"operationId": "userTimes", "parameters": _param("user_id"),
                                     "responses": _ok({"type": "array", "items": TIME})}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "times"))
    effect = spec.behaviour("userTimes").effect
    assert (effect.kind, effect.entity) == ("list", "time")
    assert [f.arg for f in effect.filters] == ["user_id"]


def test_a_parameter_named_by_a_noun_the_api_keeps_a_collection_of_names_its_owner(tmp_path: Path) -> None:
    user = {"type": "object", "properties": {"id": {"type": "integer"}, "login": {"type": "string"}}}
    by_name = [{"name": "username", "in": "path", "required": True, "schema": {"type": "string"}}]
    who = [{"name": "user", "in": "path", "required": True, "schema": {"type": "string"}}]
    paths = {
        "/users/{username}": {"get": {"operationId": "getUser", "parameters": by_name, "responses": _ok(user)}},
        "/times/{user}": {"get": {"operationId": "userTimes", "parameters": who,
                                  "responses": _ok({"type": "array", "items": TIME})}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "times"))
    effect = spec.behaviour("userTimes").effect
    assert (effect.kind, effect.entity) == ("list", "time")
    assert [f.arg for f in effect.filters] == ["user"]

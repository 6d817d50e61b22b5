"""Parameters named after a record's key that disagree on its type — ``{id}: integer`` on one
route, ``{id}: string`` on the others — make its keys numbers: the one key every route takes,
the text ones as its digits; the self-check passes each the key as its parameter takes it."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file, path_id

from envfactory.ir.env import EnvSpec
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

STATUS = {"type": "string", "enum": ["booked", "confirmed", "cancelled"]}
APPOINTMENT = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "status": STATUS}}


def _ok(schema: dict) -> dict:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _route(op: str, kind: str, method: str = "put") -> dict:
    return {method: {"operationId": op, "parameters": [path_id(kind)], "responses": _ok(APPOINTMENT)}}


def _disagreeing(tmp_path: Path) -> EnvSpec:
    """Appointments whose key parameter is text on three routes and an integer on the fourth."""
    paths = {
        "/appointments": {"get": {"operationId": "listAppointments",
                                  "responses": _ok({"type": "array", "items": APPOINTMENT})}},
        "/appointments/{id}": _route("getAppointment", "string", "get"),
        "/appointments/{id}/cancel": _route("cancelAppointment", "string"),
        "/appointments/{id}/confirm": _route("confirmAppointment", "integer"),
    }  # fmt: skip
    return synthesize(openapi_file(tmp_path, paths, "appointments"))


def test_key_parameters_that_disagree_make_number_keys(tmp_path: Path) -> None:
    spec = _disagreeing(tmp_path)
    assert spec.state_schema["appointment"].key_type == "integer"
    assert {spec.behaviour(t).effect.kind for t in ("cancelAppointment", "confirmAppointment")} == {"action"}
    key = spec.initial_state["appointment"][0]["id"]
    episode = Environment(spec).episode()
    assert episode.call_tool("getAppointment", {"id": str(key)}).ok
    report = self_check(spec, env=Environment(spec))
    checks = {(t.tool, c.name): c.status for t in report.tools for c in t.checks}
    for tool in ("cancelAppointment", "confirmAppointment"):
        assert checks[(tool, "action changes the state")] == "pass", report.failures
    assert report.passed, report.failures


def test_a_text_key_parameter_that_asks_a_shape_keeps_text_keys(tmp_path: Path) -> None:
    shaped = {"name": "id", "in": "path", "required": True, "schema": {"type": "string", "format": "uuid"}}
    paths = {
        "/appointments/{id}": {"get": {"operationId": "getAppointment", "parameters": [shaped],
                                       "responses": _ok(APPOINTMENT)}},
        "/appointments/{id}/confirm": _route("confirmAppointment", "integer"),
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "appointments"))
    assert spec.state_schema["appointment"].key_type == "string"


def test_tasks_pass_each_route_the_key_as_it_takes_it(tmp_path: Path) -> None:
    from envfactory.tasks.generate import generate_tasks

    spec = _disagreeing(tmp_path)
    tasks, report = generate_tasks(Environment(spec), 20, seed=0)
    failed = {reason for reason in report.rejected if reason.startswith("gold call")}
    assert not failed, failed
    calls = [c for t in tasks for c in t.gold if c.tool == "cancelAppointment"]
    assert calls and all(isinstance(c.args["id"], str) for c in calls)

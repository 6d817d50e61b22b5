"""Required transport values (issue #25): a header every call must carry (a marketplace, a tenant, a
token) comes from the binding, is accepted when left out and never becomes task content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from envfactory.ingest import load_toolset
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.agents import gold, success_rate
from envfactory.tasks.generate import generate_tasks
from envfactory.users.scripted import ScriptedUser

HEADERS = [
    {"name": "xero-tenant-id", "in": "header", "required": True, "schema": {"type": "string"}},
    {"name": "X-Postmark-Server-Token", "in": "header", "required": True, "schema": {"type": "string"}},
    {
        "name": "X-EBAY-C-MARKETPLACE-ID",
        "in": "header",
        "required": True,
        "example": "EBAY_US",
        "schema": {"type": "string"},
    },
    {"name": "Api-Version", "in": "header", "required": True, "schema": {"type": "string", "enum": ["2", "1"]}},
    {"name": "X-Team", "in": "header", "schema": {"type": "string"}},
]
EMPLOYEE = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
            "status": {"type": "string", "enum": ["active", "inactive"]}, "salary": {"type": "integer"}}}  # fmt: skip


def _ok(schema: Any) -> Any:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


@pytest.fixture
def spec_path(tmp_path: Path) -> Path:
    body = {"required": True, "content": {"application/json": {"schema": EMPLOYEE}}}
    key = [{"name": "employee_id", "in": "path", "required": True, "schema": {"type": "string"}}]
    many, one = _ok({"type": "array", "items": EMPLOYEE}), _ok(EMPLOYEE)
    paths = {
        "/employees": {
            "get": {"operationId": "listEmployees", "parameters": HEADERS, "responses": many},
            "post": {"operationId": "createEmployee", "parameters": HEADERS, "requestBody": body, "responses": one},
        },
        "/employees/{employee_id}": {
            "parameters": key,
            "get": {"operationId": "getEmployee", "parameters": HEADERS, "responses": one},
            "patch": {"operationId": "updateEmployee", "parameters": HEADERS, "requestBody": body, "responses": one},
        },
    }
    path = tmp_path / "payroll.json"
    path.write_text(json.dumps({"openapi": "3.0.0", "info": {"title": "payroll", "version": "1"}, "paths": paths}))
    return path


def test_the_binding_holds_the_values_and_credentials_leave_the_input(spec_path: Path) -> None:
    tool = load_toolset(spec_path)["updateEmployee"]
    http = tool.source.http
    assert http is not None
    assert sorted(http.transport) == ["X-Postmark-Server-Token", "xero-tenant-id"]  # a tenant and a token
    assert http.values == {"xero-tenant-id": "example", "X-Postmark-Server-Token": "example",
                           "X-EBAY-C-MARKETPLACE-ID": "EBAY_US", "Api-Version": "2"}  # fmt: skip
    assert tool.required == ["employee_id"]  # the rest may be left out
    assert tool.properties["X-EBAY-C-MARKETPLACE-ID"]["default"] == "EBAY_US"
    assert tool.is_transport("X-Team") and tool.is_transport("Api-Version") and not tool.is_transport("name")


def test_headers_are_no_fields_and_calls_work_with_or_without_them(spec_path: Path) -> None:
    spec = synthesize(spec_path)
    assert set(spec.state_schema["employee"].fields) == {"id", "name", "status", "salary"}
    assert all(b.prior == "confident" for b in spec.behaviours)  # a header is not an argument left unread
    episode = Environment(spec).episode()
    assert episode.call_tool("createEmployee", {"id": "e1", "name": "Ann"}).ok
    sent = episode.call_tool(
        "updateEmployee", {"employee_id": "e1", "name": "Bo", "X-EBAY-C-MARKETPLACE-ID": "EBAY_DE"}
    )
    assert sent.ok and episode.store.get("employee", "e1") == {"id": "e1", "name": "Bo"}


def test_tasks_are_made_and_never_speak_of_headers(spec_path: Path) -> None:
    env = Environment(synthesize(spec_path))
    tasks, _ = generate_tasks(env, 12, seed=0)
    assert len(tasks) == 12
    assert success_rate(env.episode(max_steps=10_000, user=ScriptedUser()), tasks, gold) == 1.0
    for task in tasks:
        text = task.instruction.lower()
        assert not any(w in text for w in ("tenant", "token", "marketplace", "version", "team")), text
        assert not any(a in call.args for call in task.gold for a in [h["name"] for h in HEADERS]), task.gold

"""Singleton resources (/me, /settings, /balance, get_preferences): one record, not a table."""

from __future__ import annotations

from tests.conftest import FIXTURES

from envfactory.ingest import load
from envfactory.ir.tool import ToolSet
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check
from envfactory.tasks.generate import generate_tasks


def test_singleton_paths_are_one_record_and_collections_stay_tables() -> None:
    spec = synthesize(FIXTURES / "settings.yaml")
    kinds = {b.tool: (b.effect.kind, getattr(b.effect, "op", None)) for b in spec.behaviours}
    assert kinds["getMe"] == ("singleton", "get") and kinds["updateSettings"] == ("singleton", "set")
    assert kinds["getBalance"] == ("singleton", "get") and kinds["listProjects"] == ("list", None)
    assert {e: len(rows) for e, rows in spec.initial_state.items() if e != "project"} == {
        "profile": 1, "settings": 1, "balance": 1}  # fmt: skip
    report = self_check(spec)
    assert report.passed, report.failures
    ep = Environment(spec).episode()
    before = ep.call_tool("getSettings", {}).data
    assert "_id" not in before and set(before) == {"theme", "notifications", "language"}
    changed = ep.call_tool("updateSettings", {"theme": "dark"}).data
    assert changed == {**before, "theme": "dark"} == ep.call_tool("getSettings", {}).data
    tasks = generate_tasks(Environment(spec), 30, seed=0)[0]
    said = [t.instruction for t in tasks if t.origin and t.origin.generator == "direct/1"]
    assert said and all(s.startswith("Please ") and "settings" in s for s in said)


def test_function_tools_named_after_a_singleton_take_no_id(tmp_path) -> None:
    import json

    doc = [
        {"name": "get_preferences", "description": "The user's preferences.",
         "parameters": {"type": "object", "properties": {}}},
        {"name": "update_preferences", "description": "Change preferences.",
         "parameters": {"type": "object", "properties": {"units": {"type": "string", "enum": ["metric", "imperial"]},
                                                          "digest": {"type": "boolean"}}}},
    ]  # fmt: skip
    path = tmp_path / "prefs.json"
    path.write_text(json.dumps(doc))
    loaded = load(path)
    assert isinstance(loaded.toolset, ToolSet)
    spec = synthesize(loaded)
    assert {b.effect.kind for b in spec.behaviours} == {"singleton"}
    ep = Environment(spec).episode()
    assert ep.call_tool("update_preferences", {"units": "imperial"}).data["units"] == "imperial"
    assert ep.call_tool("get_preferences", {}).data["units"] == "imperial"


def test_a_singletons_route_in_two_versions_is_one_record(tmp_path) -> None:
    """``GET /auth/me`` and ``GET /v2/auth/me``, each answering one object with its own spelling of
    the members: both read the one record, each answering its own members (the second was a list
    of one-row tables before, and its list check failed)."""
    import json

    def one(members: dict) -> dict:
        return {"200": {"description": "ok", "content": {"application/json": {"schema": {
            "type": "object", "properties": members}}}}}  # fmt: skip

    doc = {"openapi": "3.0.0", "info": {"title": "tokens", "version": "1"}, "paths": {
        "/auth/me": {"get": {"operationId": "getMe", "responses": one(
            {"IssuedAt": {"type": "string", "format": "date-time"}, "UUID": {"type": "string"}})}},
        "/v2/auth/me": {"get": {"operationId": "getMeV2", "responses": one(
            {"issued_at": {"type": "string", "format": "date-time"}, "uuid": {"type": "string"}})}},
    }}  # fmt: skip
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps(doc))
    spec = synthesize(path)
    effects = {b.tool: b.effect for b in spec.behaviours}
    assert {(e.kind, getattr(e, "op", None)) for e in effects.values()} == {("singleton", "get")}
    assert effects["getMe"].entity == effects["getMeV2"].entity  # type: ignore[union-attr]
    assert self_check(spec).passed
    ep = Environment(spec).episode()
    assert set(ep.call_tool("getMe", {}).data) == {"IssuedAt", "UUID"}
    assert set(ep.call_tool("getMeV2", {}).data) == {"issued_at", "uuid"}


def test_a_singleton_read_through_a_reading_verb_stays_one_record(tmp_path) -> None:
    """``GET /account/get-balance``: a read of the one balance (the verb reads), where
    ``GET /tax/calculate`` is an operation — a route led by an operation verb keeps no singleton, one
    led by a reading verb still does."""
    import json

    def one(members: dict) -> dict:
        return {"200": {"description": "ok", "content": {"application/json": {"schema": {
            "type": "object", "properties": members}}}}}  # fmt: skip

    doc = {"openapi": "3.0.0", "info": {"title": "account", "version": "1"}, "paths": {
        "/account/get-balance": {"get": {"operationId": "getBalance", "responses": one(
            {"value": {"type": "number"}, "autoReload": {"type": "boolean"}})}},
        "/tax/calculate": {"get": {"operationId": "calculateTax", "responses": one({"amount": {"type": "number"}})}},
    }}  # fmt: skip
    path = tmp_path / "account.json"
    path.write_text(json.dumps(doc))
    spec = synthesize(path)
    effects = {b.tool: b.effect for b in spec.behaviours}
    assert (effects["getBalance"].kind, effects["getBalance"].entity) == ("singleton", "balance")  # type: ignore[union-attr]
    assert effects["calculateTax"].kind == "fallback" and "calculate" not in spec.state_schema.names

"""Which inferred entities are collections an API keeps (``synth/kept.py``): shapes of health checks,
estimates and free-form answers from public specs, each reduced to a few lines, beside collections
that look alike and are kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.synth.openapi_docs import ok, synthesize_paths

from envfactory.ir.effect import FallbackEffect, ListEffect, ReadEffect
from envfactory.runtime.environment import Environment
from envfactory.synth.kept import _names
from envfactory.synth.selfcheck import self_check

JSON = dict[str, Any]
NUM = {"type": "number"}
STR = {"type": "string"}
RIDE = {"type": "object", "properties": {"id": STR, "status": STR, "origin": STR}}
ESTIMATE = {"type": "object", "properties": {"ride_type": STR, "cost_cents": NUM, "eta_seconds": NUM}}


def _query(name: str, required: bool = True, schema: JSON = NUM) -> JSON:
    return {"name": name, "in": "query", "required": required, "schema": schema}


RIDES = {
    "/rides": {
        "get": {"operationId": "list_rides", "responses": ok({"type": "array", "items": RIDE})},
        "post": {"operationId": "request_ride", "responses": ok(RIDE), "requestBody": {"content": {
            "application/json": {"schema": {"type": "object", "properties": {"origin": STR}}}}}},
    },
    "/rides/{id}": {"get": {"operationId": "get_ride", "responses": ok(RIDE), "parameters": [
        {"name": "id", "in": "path", "required": True, "schema": STR}]}},
}  # fmt: skip


def test_an_answer_computed_from_required_arguments_is_no_collection(tmp_path: Path) -> None:
    estimates = {"type": "object", "properties": {"estimates": {"type": "array", "items": ESTIMATE}}}
    spec = synthesize_paths(tmp_path, {**RIDES, "/cost": {"get": {  # a cost estimate for a route (Lyft's /cost)
        "operationId": "get_cost", "parameters": [_query("start_lat"), _query("start_lng"), _query("end_lat", False)],
        "responses": ok(estimates)}}})  # fmt: skip
    assert "ride" in spec.state_schema.names  # requested, listed and read: kept
    assert "cost" not in spec.state_schema.names and "estimate" not in spec.state_schema.names
    cost = spec.behaviour("get_cost")
    assert isinstance(cost.effect, FallbackEffect) and not cost.effect.writes
    assert "start_lat" in cost.effect.reason and "start_lng" in cost.effect.reason
    ep = Environment(spec).episode()
    answer = ep.call_tool("get_cost", {"start_lat": 37.7, "start_lng": -122.4})
    assert answer.ok and isinstance(answer.data["estimates"], list)  # the declared answer, made from its schema
    assert self_check(spec).passed


def test_a_required_filter_over_the_records_fields_keeps_the_collection(tmp_path: Path) -> None:
    spec = synthesize_paths(tmp_path, {"/estimates": {"get": {  # the same answer, but the argument selects among rows
        "operationId": "list_estimates", "parameters": [_query("ride_type", schema=STR)],
        "responses": ok({"type": "array", "items": ESTIMATE})}}})  # fmt: skip
    effect = spec.behaviour("list_estimates").effect
    assert isinstance(effect, ListEffect) and [f.arg for f in effect.filters] == ["ride_type"]
    assert spec.state_schema.names == ["estimate"]


def test_an_argument_naming_a_thing_or_a_person_is_no_value_to_compute_with() -> None:
    kept = {"ride"}
    named = ["item_id", "projectName", "database_file", "email", "user_email", "folderPath", "source_type", "rides"]
    assert all(_names(arg, kept) for arg in named)  # Slack's users.lookupByEmail, kanban's list_children(item_id)
    assert not any(_names(arg, kept) for arg in ("start_lat", "period", "interval", "sql", "from", "scope"))


def test_a_free_form_document_is_no_collection(tmp_path: Path) -> None:
    free = {"type": "object", "additionalProperties": {}}  # Kinto's /__heartbeat__: one free-form object
    undeclared = {"200": {"description": "An array of the errors"}}  # ReadMe's /errors, documented without a schema
    spec = synthesize_paths(tmp_path, {
        **RIDES, "/__heartbeat__": {"get": {"operationId": "heartbeat", "responses": ok(free)}},
        "/errors": {"get": {"operationId": "get_errors", "responses": undeclared}},
    })  # fmt: skip
    heartbeat = spec.behaviour("heartbeat").effect
    assert isinstance(heartbeat, FallbackEffect) and "free-form" in heartbeat.reason
    assert Environment(spec).episode().call_tool("heartbeat", {}).ok
    # an undeclared answer says nothing either way: the errors may well be records the API keeps
    assert isinstance(spec.behaviour("get_errors").effect, ListEffect) and "error" in spec.state_schema.names


def test_a_referenced_or_written_entity_is_kept_whatever_it_holds(tmp_path: Path) -> None:
    ride = {"type": "object", "properties": {"id": STR, "driver_id": STR}}
    tag = {"type": "object", "properties": {"id": STR}}
    spec = synthesize_paths(tmp_path, {
        "/rides": {"get": {"operationId": "list_rides", "responses": ok({"type": "array", "items": ride})}},
        "/drivers/{driver_id}": {"get": {"operationId": "get_driver", "responses": ok({"type": "object"}),
                                         "parameters": [{"name": "driver_id", "in": "path", "required": True,
                                                         "schema": STR}]}},
        "/tags": {"post": {"operationId": "create_tag", "responses": ok(tag)},
                  "get": {"operationId": "list_tags", "responses": ok({"type": "array", "items": tag})}},
    })  # fmt: skip
    assert spec.state_schema["ride"].refs == {"driver_id": "driver"}
    assert {"driver", "tag"} <= set(spec.state_schema.names)  # a ride refers to drivers; tags are made
    assert isinstance(spec.behaviour("get_driver").effect, ReadEffect)

"""A route reading one thing of one record (``synth.intents.aspects_read``): Lyft's ride receipt and
HubSpot's signed file URL, reduced to a few lines, beside a card's board (a thing of its own) and a
user's budget lines (records)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.synth.openapi_docs import get, ok, synthesize_paths

from envfactory.ir.effect import ListEffect, ReadEffect
from envfactory.runtime.environment import Environment
from envfactory.synth.selfcheck import self_check

JSON = dict[str, Any]
STR = {"type": "string"}
NUM = {"type": "number"}
RIDE = {"type": "object", "properties": {"ride_id": STR, "status": STR, "price": NUM, "origin": STR}}
RECEIPT = {"type": "object", "properties": {"ride_id": STR, "price": NUM, "charged_at": STR}}


RIDES = {
    "/rides": {
        "get": {"operationId": "list_rides", "responses": ok({"type": "array", "items": RIDE})},
        "post": {"operationId": "request_ride", "responses": ok(RIDE), "requestBody": {"content": {
            "application/json": {"schema": {"type": "object", "properties": {"origin": STR}}}}}},
    },
    "/rides/{id}": get("get_ride", RIDE),
}  # fmt: skip


def test_one_thing_of_a_record_is_read_from_the_record(tmp_path: Path) -> None:
    spec = synthesize_paths(tmp_path, {**RIDES, "/rides/{id}/receipt": get("get_receipt", RECEIPT)})
    assert spec.state_schema.names == ["ride"]  # no table of receipts beside the rides
    effect = spec.behaviour("get_receipt").effect
    assert isinstance(effect, ReadEffect) and effect.entity == "ride" and effect.key_arg == "id"
    assert "charged_at" not in spec.state_schema["ride"].fields  # the view adds nothing to the ride
    ep = Environment(spec).episode()
    ride = spec.initial_state["ride"][0]
    receipt = ep.call_tool("get_receipt", {"id": ride["ride_id"]})
    assert receipt.ok and receipt.data["price"] == ride["price"] and receipt.data["ride_id"] == ride["ride_id"]
    assert ep.call_tool("get_receipt", {"id": "no-such-ride"}).error == "not_found"
    made = ep.call_tool("request_ride", {"origin": "Pier 39"}).data
    assert ep.call_tool("get_receipt", {"id": made["ride_id"]}).ok  # a ride made in the episode has one too
    assert self_check(spec).passed


def test_a_thing_other_tools_name_or_a_list_is_not_a_view(tmp_path: Path) -> None:
    board = {"type": "object", "properties": {"id": STR, "name": STR}}
    line = {"type": "object", "properties": {"category": STR, "amount": NUM}}
    spec = synthesize_paths(tmp_path, {
        **RIDES,
        "/boards/{id}": get("get_board", board),
        "/rides/{id}/board": get("get_ride_board", board),  # a board is a thing of its own
        "/rides/{id}/budget": get("get_ride_budget", {"type": "array", "items": line}),  # lines: records
        "/rides/{id}/qr": get("get_ride_qr", {"type": "string", "format": "binary"}),  # an image: no record's view
    })  # fmt: skip
    assert spec.behaviour("get_ride_board").effect.entity == "board"
    budget = spec.behaviour("get_ride_budget").effect
    assert isinstance(budget, ListEffect) and budget.entity == "budget"
    assert spec.behaviour("get_ride_qr").effect.entity != "ride"  # reading a ride there would answer its record

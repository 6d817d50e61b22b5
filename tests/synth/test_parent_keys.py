"""A route's parent parameter names the parent, never the child: ``POST /hooks/{id}/deliveries``
makes a new delivery of hook ``id`` (its own key drawn fresh, the hook's held beside it), and
``GET /hooks/{id}/deliveries`` lists that hook's deliveries, not the delivery keyed ``id``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envfactory.ir.effect import CreateEffect, ListEffect
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

JSON = dict[str, Any]
ID = [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}, "description": "id of the hook"}]
HOOK = {"type": "object", "properties": {"id": {"type": "integer"}, "url": {"type": "string"}}}
DELIVERY = {"type": "object", "properties": {"status": {"type": "string"}, "note": {"type": "string"}}}


def _ok(schema: JSON) -> JSON:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _body(schema: JSON) -> JSON:
    return {"content": {"application/json": {"schema": schema}}}


PATHS = {
    "/hooks": {
        "get": {"operationId": "listHooks", "responses": _ok({"type": "array", "items": HOOK})},
        "post": {"operationId": "createHook", "requestBody": _body(HOOK), "responses": _ok(HOOK)},
    },
    "/hooks/{id}": {"get": {"operationId": "getHook", "parameters": ID, "responses": _ok(HOOK)}},
    "/hooks/{id}/deliveries": {
        "get": {"operationId": "listDeliveries", "parameters": ID,
                "responses": _ok({"type": "array", "items": DELIVERY})},
        "post": {"operationId": "createDelivery", "parameters": ID, "requestBody": _body(DELIVERY),
                 "responses": _ok(DELIVERY)},
    },
}  # fmt: skip


def _spec(tmp_path: Path) -> Any:
    path = tmp_path / "hooks.json"
    path.write_text(json.dumps({"openapi": "3.0.0", "info": {"title": "hooks", "version": "1"}, "paths": PATHS}))
    return synthesize(path)


def test_the_parent_parameter_is_held_beside_the_childs_own_key(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    delivery = spec.state_schema["delivery"]
    parent_field = next(f for f, t in delivery.refs.items() if t == "hook")
    assert parent_field != delivery.key
    create, listing = spec.behaviour("createDelivery").effect, spec.behaviour("listDeliveries").effect
    assert isinstance(create, CreateEffect) and create.key_arg is None and create.args["id"] == parent_field
    assert isinstance(listing, ListEffect) and [(f.arg, f.field) for f in listing.filters] == [("id", parent_field)]


def test_one_hook_takes_many_deliveries(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    episode = Environment(spec).episode()
    hook = episode.call_tool("createHook", {"url": "https://example.com/h"}).data["id"]
    for status in ("sent", "failed"):
        made = episode.call_tool("createDelivery", {"id": hook, "status": status})
        assert made.ok, made.content
    listed = episode.call_tool("listDeliveries", {"id": hook})
    assert listed.ok and sorted(d["status"] for d in listed.data) == ["failed", "sent"], listed.content
    report = self_check(spec, env=Environment(spec))
    assert report.passed, report.failures


CARD = {"type": "object", "properties": {"id": {"type": "string"}, "title": {"type": "string"}}}
APP_ID = {"name": "appId", "in": "path", "required": True, "schema": {"type": "integer"}}
CARD_ID = {"name": "cardId", "in": "path", "required": True, "schema": {"type": "string"}}
CARD_PATHS = {  # the route below a parent names no parent collection: ``/cards/{appId}``, not ``/apps/{appId}/cards``
    "/cards/{appId}": {
        "get": {"operationId": "listCards", "parameters": [APP_ID],
                "responses": _ok({"type": "object", "properties": {"results": {"type": "array", "items": CARD}}})},
        "post": {"operationId": "createCard", "parameters": [APP_ID], "responses": _ok(CARD),
                 "requestBody": _body({"type": "object", "properties": {"title": {"type": "string"}}})},
    },
    "/cards/{appId}/{cardId}": {
        "get": {"operationId": "getCard", "parameters": [APP_ID, CARD_ID], "responses": _ok(CARD)},
        "delete": {"operationId": "deleteCard", "parameters": [APP_ID, CARD_ID],
                   "responses": {"204": {"description": "gone"}}},
    },
}  # fmt: skip


def test_a_parameter_naming_another_thing_scopes_a_collection(tmp_path: Path) -> None:
    path = tmp_path / "cards.json"
    path.write_text(json.dumps({"openapi": "3.0.0", "info": {"title": "cards", "version": "1"}, "paths": CARD_PATHS}))
    spec = synthesize(path)
    listing, create = spec.behaviour("listCards").effect, spec.behaviour("createCard").effect
    assert isinstance(listing, ListEffect) and listing.entity == "card"  # a list, not a read of the card keyed 7
    assert isinstance(create, CreateEffect) and create.key_arg is None and create.args["appId"] == "appId"
    assert spec.state_schema["card"].key_type == "string"  # ``cardId`` names the card, ``appId`` its app
    episode = Environment(spec).episode()
    made = [episode.call_tool("createCard", {"appId": 7, "title": t}) for t in ("a", "b")]
    assert all(m.ok for m in made), [m.content for m in made]
    listed = episode.call_tool("listCards", {"appId": 7})
    assert listed.ok and {"a", "b"} <= {c["title"] for c in listed.data["results"]}, listed.content
    report = self_check(spec, env=Environment(spec))
    assert report.passed, report.failures

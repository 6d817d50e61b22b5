"""A create whose whole request body is a list of records, every member of them a field of one
entity (``POST /{realm}/add-models`` taking ``[Model]``), makes one record of that entity per item,
each with the route's parameters that name its fields; a body holding such a list beside other
members (an order and its ``items``) still makes one record."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

MODEL = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                                          "protocol": {"type": "string"}}}  # fmt: skip
REALM = [{"name": "realm", "in": "path", "required": True, "schema": {"type": "string"}}]


def _ok(schema: dict | None = None) -> dict:
    if schema is None:
        return {"204": {"description": "done"}}
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _body(schema: dict) -> dict:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def test_a_body_that_is_a_list_of_records_makes_one_record_per_item(tmp_path: Path) -> None:
    paths = {
        "/{realm}/models": {
            "parameters": REALM,
            "get": {"operationId": "listModels", "responses": _ok({"type": "array", "items": MODEL})},
            "post": {"operationId": "createModel", "requestBody": _body(MODEL), "responses": _ok()},
        },
        "/{realm}/add-models": {
            "parameters": REALM,
            "post": {"operationId": "addModels", "summary": "Create multiple models",
                     "requestBody": _body({"type": "array", "items": MODEL}), "responses": _ok()},
        },
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "models"), state="empty")
    effect = spec.behaviour("addModels").effect
    assert (effect.kind, effect.entity, effect.items_arg) == ("create_many", "model", "body")
    assert effect.args == {"realm": "realm"}
    episode = Environment(spec).episode()
    items = [{"id": "m1", "name": "a", "protocol": "oidc"}, {"id": "m2", "name": "b", "protocol": "saml"}]
    assert episode.call_tool("addModels", {"realm": "north", "body": items}).ok
    rows = sorted(episode.store.rows("model"), key=lambda r: r["id"])
    assert [(r["id"], r["realm"]) for r in rows] == [("m1", "north"), ("m2", "north")]
    seeded = synthesize(openapi_file(tmp_path, paths, "models"))
    assert self_check(seeded, env=Environment(seeded)).passed


def test_a_body_holding_a_list_beside_other_members_makes_one_record(tmp_path: Path) -> None:
    line = {"type": "object", "properties": {"product_id": {"type": "string"}, "quantity": {"type": "integer"}}}
    order = {"type": "object", "properties": {"id": {"type": "string"}, "customer": {"type": "string"},
                                              "items": {"type": "array", "items": line}}}  # fmt: skip
    paths = {
        "/lines": {"get": {"operationId": "listLines", "responses": _ok({"type": "array", "items": line})}},
        "/orders": {"post": {"operationId": "createOrder", "requestBody": _body(order), "responses": _ok(order)}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "orders"))
    assert spec.behaviour("createOrder").effect.kind == "create"


def test_a_batch_answering_one_object_lists_the_keys_it_made(tmp_path: Path) -> None:
    ids = {"type": "array", "items": {"type": "string"}}
    bulk = {"type": "object", "required": ["data"], "properties": {"data": {"type": "object", "properties": {
        "bulk": {"type": "object", "properties": {"model_ids": ids, "duplicate_ids": ids}}}}}}  # fmt: skip
    paths = {
        "/{realm}/models": {
            "parameters": REALM,
            "get": {"operationId": "listModels", "responses": _ok({"type": "array", "items": MODEL})},
            "post": {"operationId": "createModels", "responses": _ok(bulk), "requestBody": _body(
                {"type": "object", "properties": {"models": {"type": "array", "items": MODEL}}})},
        },
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "models"), state="empty")
    effect = spec.behaviour("createModels").effect
    assert (effect.kind, effect.keys_as) == ("create_many", "model_ids")
    items = [{"id": "m1", "name": "a", "protocol": "oidc"}, {"id": "m2", "name": "b", "protocol": "saml"}]
    made = Environment(spec).episode().call_tool("createModels", {"realm": "north", "models": items})
    assert made.data == {"data": {"bulk": {"model_ids": ["m1", "m2"]}}}, made.content
    assert self_check(spec, env=Environment(spec)).passed


def test_a_body_listing_plain_values_named_after_a_field_makes_one_record_per_value(tmp_path: Path) -> None:
    email = {"type": "object", "properties": {"email": {"type": "string"}, "primary": {"type": "boolean"}}}
    many = {"type": "array", "items": email}
    addresses = {"type": "object", "properties": {"emails": {"type": "array", "items": {"type": "string"}}}}
    paths = {"/user/emails": {"get": {"operationId": "listEmails", "responses": _ok(many)},
                              "post": {"operationId": "addEmails", "requestBody": _body(addresses),
                                       "responses": _ok(many)}}}  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "emails"), state="empty")
    effect = spec.behaviour("addEmails").effect
    assert (effect.kind, effect.entity, effect.value_field) == ("create_many", "email", "email")
    episode = Environment(spec).episode()
    assert episode.call_tool("addEmails", {"emails": ["a@example.com", "b@example.com"]}).ok
    assert sorted(r["email"] for r in episode.store.rows("email")) == ["a@example.com", "b@example.com"]
    seeded = synthesize(openapi_file(tmp_path, paths, "emails"))
    assert self_check(seeded, env=Environment(seeded)).passed


def test_a_batch_whose_name_says_another_verb_makes_nothing(tmp_path: Path) -> None:
    permission = {"type": "object", "properties": {"name": {"type": "string"}, "role": {"type": "string"}}}
    names = {"type": "object", "properties": {"names": {"type": "array", "items": {"type": "string"}}}}
    note = [{"name": "note", "in": "path", "required": True, "schema": {"type": "string"}}]
    paths = {
        "/notes/{note}/permissions": {"get": {"operationId": "listPermissions", "parameters": note,
                                              "responses": _ok({"type": "array", "items": permission})}},
        "/notes/{note}/permissions:batchDelete": {"post": {"operationId": "permissionsBatchDelete", "parameters": note,
                                                           "requestBody": _body(names), "responses": _ok({})}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "notes"))
    assert spec.behaviour("permissionsBatchDelete").effect.kind != "create_many"

"""An API's version in a route names no resource (``/categories/v2``, ``/products/v2/{id}``,
``/v1/taxes``); an operation under a scope every route names (``POST /orgs/{org}/import``) keeps no
records of it; a ``oneOf`` of one alternative is that alternative. Zettle's product library and
Mailscript's addresses, reduced to a few routes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.synth.openapi_docs import ok, synthesize_paths

from envfactory.diagnostics import Diagnostics
from envfactory.ir.effect import CreateManyEffect, ListEffect, ReadEffect
from envfactory.ir.jsonschema import normalize_schema
from envfactory.runtime.environment import Environment
from envfactory.synth.selfcheck import self_check

JSON = dict[str, Any]
STR = {"type": "string"}
UUID = {"type": "string", "format": "uuid"}
ORG = {"name": "org", "in": "path", "required": True, "schema": UUID}
CATEGORY = {"type": "object", "required": ["uuid", "name"], "properties": {"uuid": UUID, "name": STR}}
PRODUCT = {"type": "object", "properties": {"uuid": UUID, "name": STR, "price": {"type": "number"}}}
TAX = {"type": "object", "properties": {"uuid": UUID, "label": STR, "percentage": {"type": "number"}}}
LIBRARY = {"type": "object", "properties": {"products": {"type": "array", "items": PRODUCT}, "until": STR}}
CATEGORIES = {"type": "array", "items": CATEGORY}
IMPORTED = {"type": "object", "properties": {"uuid": UUID, "state": STR, "finished": STR}}


def _body(schema: JSON) -> JSON:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


PATHS = {
    "/orgs/{org}/categories/v2": {
        "get": {"operationId": "getCategories", "parameters": [ORG],
                "responses": ok({"type": "object", "properties": {"categories": CATEGORIES}})},
        "post": {"operationId": "createCategories", "parameters": [ORG], "responses": {"201": {"description": "made"}},
                 "requestBody": _body({"type": "object", "required": ["categories"],
                                       "properties": {"categories": CATEGORIES}})},
    },
    "/orgs/{org}/products/v2": {"get": {"operationId": "getProducts", "parameters": [ORG],
                                         "responses": ok({"type": "array", "items": PRODUCT})}},
    "/orgs/{org}/products/v2/{productUuid}": {"get": {
        "operationId": "getProduct", "responses": ok(PRODUCT),
        "parameters": [ORG, {"name": "productUuid", "in": "path", "required": True, "schema": UUID}]}},
    "/v1/taxes": {"get": {"operationId": "getTaxes", "responses": ok({"type": "array", "items": TAX})}},
}  # fmt: skip


def test_a_version_in_a_route_names_no_resource(tmp_path: Path) -> None:
    spec = synthesize_paths(tmp_path, PATHS)
    assert {"category", "product", "tax"} <= set(spec.state_schema.names)
    assert "v2" not in spec.state_schema.names and "v1" not in spec.state_schema.names
    listed = spec.behaviour("getCategories").effect
    assert isinstance(listed, ListEffect) and listed.entity == "category"
    made = spec.behaviour("createCategories").effect
    assert isinstance(made, CreateManyEffect) and made.entity == "category"
    read = spec.behaviour("getProduct").effect
    assert isinstance(read, ReadEffect) and read.entity == "product" and read.key_arg == "productUuid"
    assert spec.behaviour("getTaxes").effect.entity == "tax"
    # the batch create's check draws keys that fit their format: a uuid with text appended was refused
    assert self_check(spec).passed


def test_an_operation_under_a_scope_keeps_no_records_of_it(tmp_path: Path) -> None:
    spec = synthesize_paths(tmp_path, {
        **PATHS,
        "/orgs/{org}/import": {"post": {"operationId": "importLibrary", "parameters": [ORG],
                                        "responses": ok(IMPORTED), "requestBody": _body(LIBRARY)}},
        "/orgs/{org}/library": {"get": {"operationId": "getLibrary", "parameters": [ORG], "responses": ok(LIBRARY)}},
    })  # fmt: skip
    library = spec.behaviour("getLibrary").effect
    # the organization is the scope every route names, not a record the library is a view of
    assert getattr(library, "entity", None) == "library", library


def test_a_one_of_with_one_alternative_is_that_alternative(tmp_path: Path) -> None:
    address = {"type": "object", "required": ["id", "owner"], "properties": {"id": STR, "owner": STR}}
    schema = {"type": "object", "properties": {"list": {"type": "array", "items": {"oneOf": [address],
                                                                                    "type": "object"}}}}  # fmt: skip
    normalized = normalize_schema(json.loads(json.dumps(schema)), Diagnostics())
    assert normalized["properties"]["list"]["items"]["properties"] == address["properties"]
    assert "oneOf" not in normalized["properties"]["list"]["items"]
    two = {"oneOf": [address, {"type": "object", "properties": {"code": STR}}]}
    assert "properties" not in normalize_schema(two, Diagnostics())  # two alternatives stay a choice
    nullable = {"anyOf": [address, {"type": "null"}]}
    assert "properties" not in normalize_schema(nullable, Diagnostics())
    spec = synthesize_paths(tmp_path, {
        "/addresses": {"get": {"operationId": "getAllAddresses", "responses": ok(schema)},
                       "post": {"operationId": "addAddress", "responses": {"200": {"description": "ok"}},
                                "requestBody": _body({"type": "object", "required": ["address"],
                                                      "properties": {"address": STR}})}},
    })  # fmt: skip
    ep = Environment(spec).episode()
    answer = ep.call_tool("getAllAddresses", {})
    assert answer.ok
    assert self_check(spec).passed  # the listed records hold what the one alternative requires

"""An answer that is a map of counts (``additionalProperties: integer``) said to be *by* a field of
a thing the description names ("Returns pet inventories by status") tallies that thing's records
by the field: ``{"available": 2, "sold": 1}``, not a list of a made-up ``inventory``."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

STATUS = {"type": "string", "enum": ["available", "pending", "sold"]}
PET = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "status": STATUS}}
COUNTS = {"type": "object", "additionalProperties": {"type": "integer", "format": "int32"}}


def _ok(schema: dict) -> dict:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def _paths(summary: str) -> dict:
    body = {"content": {"application/json": {"schema": PET}}}
    return {
        "/pet": {"post": {"operationId": "addPet", "requestBody": body, "responses": _ok(PET)},
                 "get": {"operationId": "listPets", "responses": _ok({"type": "array", "items": PET})}},
        "/store/inventory": {"get": {"operationId": "getInventory", "summary": summary,
                                     "description": "Returns a map of status codes to quantities",
                                     "responses": _ok(COUNTS)}},
    }  # fmt: skip


def test_a_map_of_counts_by_a_field_tallies_the_records_it_names(tmp_path: Path) -> None:
    spec = synthesize(openapi_file(tmp_path, _paths("Returns pet inventories by status"), "pets"), state="empty")
    assert spec.behaviour("getInventory").effect.kind == "count"
    assert "inventory" not in spec.state_schema.names  # no made-up entity for the tally
    episode = Environment(spec).episode()
    assert episode.call_tool("getInventory", {}).data == {}
    for name, status in (("rex", "available"), ("tom", "sold"), ("kit", "available")):
        assert episode.call_tool("addPet", {"name": name, "status": status}).ok
    assert episode.call_tool("getInventory", {}).data == {"available": 2, "sold": 1}
    seeded = synthesize(openapi_file(tmp_path, _paths("Returns pet inventories by status"), "pets"))
    report = self_check(seeded, env=Environment(seeded))
    checks = {(t.tool, c.name): c.status for t in report.tools for c in t.checks}
    assert checks[("getInventory", "the tally counts every record")] == "pass", report.failures
    assert report.passed, report.failures


def test_a_map_of_counts_that_names_no_field_is_no_tally(tmp_path: Path) -> None:
    spec = synthesize(openapi_file(tmp_path, _paths("Returns pet inventories"), "pets"), state="empty")
    assert spec.behaviour("getInventory").effect.kind != "count"

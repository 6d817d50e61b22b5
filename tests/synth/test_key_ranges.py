"""A key parameter that declares a maximum: seeded records leave room under it, and the self-check
makes its record under a key the read accepts."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

ORDER = {"type": "object", "properties": {"id": {"type": "integer"}, "quantity": {"type": "integer"}}}


def _ok(schema: dict) -> dict:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def test_records_are_seeded_and_made_under_keys_the_read_accepts(tmp_path: Path) -> None:
    order_id = {"name": "orderId", "in": "path", "required": True,
                "schema": {"type": "integer", "minimum": 1, "maximum": 10}}  # fmt: skip
    body = {"content": {"application/json": {"schema": ORDER}}}
    paths = {
        "/orders": {"post": {"operationId": "placeOrder", "requestBody": body, "responses": _ok(ORDER)}},
        "/orders/{orderId}": {"get": {"operationId": "getOrder", "parameters": [order_id], "responses": _ok(ORDER)}},
    }
    spec = synthesize(openapi_file(tmp_path, paths, "orders"))
    seeded = [r["id"] for r in spec.initial_state["order"]]
    assert seeded and max(seeded) <= 5  # half the range: creates fit under the maximum too
    report = self_check(spec, env=Environment(spec))
    checks = {(t.tool, c.name): c.status for t in report.tools for c in t.checks}
    assert checks[("placeOrder", "create -> read round trip")] == "pass", report.failures
    episode = Environment(spec).episode()
    assert episode.call_tool("placeOrder", {"id": 9, "quantity": 2}).ok
    assert episode.call_tool("getOrder", {"orderId": 9}).data["quantity"] == 2

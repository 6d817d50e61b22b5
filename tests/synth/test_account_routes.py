"""Routes under a namespace that is no record (Vonage's ``/account/...``, reduced to a few lines):
a set-verb POST of a one-record noun is that record set (``POST /account/settings`` named
changeAccountSettings), a verb and its particle is an operation (``/account/top-up``), a
verb-noun word makes its noun (``/account/register-sender``), and a query ``api_secret``
described as a credential is no argument."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.synth.openapi_docs import ok, synthesize_paths

from envfactory.ir.effect import CreateEffect, SingletonEffect
from envfactory.runtime.environment import Environment
from envfactory.synth.selfcheck import self_check

JSON = dict[str, Any]
STR = {"type": "string"}
INT = {"type": "integer"}
KEY = {"name": "api_key", "in": "query", "required": True, "schema": STR, "description": "Your API key"}
AUTH = [KEY, {**KEY, "name": "api_secret", "description": "Your API secret"}]
SETTINGS = {"type": "object", "properties": {"mo-callback-url": STR, "dr-callback-url": STR,
                                             "max-outbound-request": INT}}  # fmt: skip
SENDER = {"type": "object", "properties": {"id": STR, "name": STR, "value": STR}}


def _form(op: str, answer: JSON, body: JSON) -> JSON:
    return {"post": {"operationId": op, "parameters": AUTH, "responses": ok(answer), "requestBody": {"content": {
        "application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": body}}}}}}  # fmt: skip


PATHS = {
    "/account/settings": _form("changeAccountSettings", SETTINGS, {"moCallBackUrl": STR, "drCallBackUrl": STR}),
    "/account/top-up": _form("topUpAccountBalance", {"type": "object", "properties": {"ok": STR}}, {"trx": STR}),
    "/account/register-sender": _form("registerSender", SENDER, {"name": STR, "value": STR}),
}


def test_routes_under_a_namespace_that_is_no_record(tmp_path: Path) -> None:
    spec = synthesize_paths(tmp_path, PATHS)
    settings = spec.behaviour("changeAccountSettings").effect
    assert isinstance(settings, SingletonEffect) and settings.entity == "settings" and settings.op == "set"
    assert settings.args == {"moCallBackUrl": "mo-callback-url", "drCallBackUrl": "dr-callback-url"}
    assert spec.behaviour("topUpAccountBalance").effect.kind == "fallback"  # no table of top-ups
    sender = spec.behaviour("registerSender").effect
    assert isinstance(sender, CreateEffect) and sender.entity == "sender"  # not an "account" record
    assert set(spec.state_schema.names) == {"settings", "sender"}
    assert all("api_secret" not in spec.tools[name].properties for name in spec.tools.names)  # a credential
    ep = Environment(spec).episode()
    answer = ep.call_tool("changeAccountSettings", {"moCallBackUrl": "https://example.com/in"})
    assert answer.ok and answer.data["mo-callback-url"] == "https://example.com/in"  # the answer's spelling
    assert self_check(spec).passed

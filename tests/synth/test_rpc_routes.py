"""Remote-procedure routes (``/sendMessage``, ``/getChat``, ``/v1/create-corpus``): one route word says
the verb and the noun, as a tool's name does; a REST collection whose first word is also a verb
(``/file_version_legal_holds``, with an item route below it) is still a collection. Telegram's Bot
API, Vectara's and Box's routes, reduced to a few lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.synth.openapi_docs import get, ok, synthesize_paths

from envfactory.ir.effect import CreateEffect, DeleteEffect, ListEffect, ReadEffect
from envfactory.runtime.environment import Environment

JSON = dict[str, Any]
STR = {"type": "string"}
INT = {"type": "integer"}
MESSAGE = {"type": "object", "properties": {"message_id": INT, "chat_id": INT, "text": STR}}
CHAT = {"type": "object", "properties": {"id": INT, "title": STR}}
CORPUS = {"type": "object", "properties": {"id": INT, "name": STR}}


def _post(op: str, answer: JSON, body: JSON, required: list[str]) -> JSON:
    return {"post": {"operationId": op, "responses": ok(answer), "requestBody": {"required": True, "content": {
        "application/json": {"schema": {"type": "object", "properties": body, "required": required}}}}}}  # fmt: skip


def test_a_route_word_says_the_verb_and_the_noun(tmp_path: Path) -> None:
    spec = synthesize_paths(tmp_path, {
        "/sendMessage": _post("sendMessage", MESSAGE, {"chat_id": INT, "text": STR}, ["chat_id", "text"]),
        "/deleteMessage": _post("deleteMessage", {"type": "boolean"}, {"chat_id": INT, "message_id": INT},
                                ["chat_id", "message_id"]),
        "/getChat": _post("getChat", CHAT, {"chat_id": INT}, ["chat_id"]),
        "/v1/create-corpus": _post("createCorpus", CORPUS, {"name": STR}, ["name"]),
        "/v1/list-corpora": {"get": {"operationId": "listCorpora", "responses": ok({"type": "array",
                                                                                       "items": CORPUS})}},
    })  # fmt: skip
    effects = {b.tool: b.effect for b in spec.behaviours}
    assert isinstance(effects["sendMessage"], CreateEffect) and effects["sendMessage"].entity == "message"
    assert isinstance(effects["deleteMessage"], DeleteEffect) and effects["deleteMessage"].entity == "message"
    assert isinstance(effects["getChat"], ReadEffect) and effects["getChat"].entity == "chat"
    assert isinstance(effects["createCorpus"], CreateEffect) and effects["createCorpus"].entity == "corpus"
    assert isinstance(effects["listCorpora"], ListEffect) and effects["listCorpora"].entity == "corpus"
    ep = Environment(spec).episode()
    sent = ep.call_tool("sendMessage", {"chat_id": 7, "text": "hello"})
    assert sent.ok
    gone = ep.call_tool("deleteMessage", {"chat_id": 7, "message_id": sent.data["message_id"]})
    assert gone.ok and ep.store.get("message", sent.data["message_id"]) is None  # the message it sent
    made = ep.call_tool("createCorpus", {"name": "papers"}).data
    assert any(c["id"] == made["id"] for c in ep.call_tool("listCorpora", {}).data)  # one table, not two


def test_a_collection_whose_first_word_is_a_verb_is_still_a_collection(tmp_path: Path) -> None:
    hold = {"type": "object", "properties": {"id": STR, "file_version": STR}}
    spec = synthesize_paths(tmp_path, {
        "/file_version_legal_holds": {"get": {"operationId": "listHolds",
                                              "responses": ok({"type": "array", "items": hold})}},
        "/file_version_legal_holds/{file_version_legal_hold_id}": get("getHold", hold, "file_version_legal_hold_id"),
    })  # fmt: skip
    assert spec.behaviour("listHolds").effect.entity == "file_version_legal_hold"  # "file" is no verb here

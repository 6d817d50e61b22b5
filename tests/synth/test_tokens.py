"""Token sessions: a login answers an ``access_token`` that the other tools take back, as BFCL's
travel API does (written here from scratch). The token is who calls, never a field of a record."""

from __future__ import annotations

from pathlib import Path

from tests.synth.function_lists import STR, checked_tasks, function, synthesize_functions

from envfactory.ir.effect import ListEffect, SingletonEffect
from envfactory.ir.jsonschema import primary_type
from envfactory.real.keypool import Aliases
from envfactory.runtime.environment import Environment
from envfactory.synth.naming import credential
from envfactory.synth.selfcheck import self_check

TOKEN = {"type": "string", "description": "The access token obtained from authenticate."}
CARD = {"card_id": STR, "card_number": STR, "cardholder_name": STR}
TOOLS = [
    function("authenticate", "Authenticate the user.", {"client_id": STR, "client_secret": STR},
             ["client_id", "client_secret"], {"access_token": STR, "token_type": STR, "expires_in": STR}),
    function("register_card", "Register a credit card.",
             {"access_token": TOKEN, "card_number": STR, "cardholder_name": STR},
             ["access_token", "card_number", "cardholder_name"], {"card_id": STR}),
    function("get_card", "Get a credit card.", {"access_token": TOKEN, "card_id": STR}, ["access_token", "card_id"],
             CARD),
    function("get_card_history", "Get the registered credit cards.", {"access_token": TOKEN}, ["access_token"],
             {"cards": {"type": "array", "items": {"type": "dict", "properties": CARD}}}),
]  # fmt: skip


def test_a_login_issues_the_token_the_other_tools_need(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "cards", TOOLS)
    assert "access_token" not in spec.state_schema["card"].fields  # who calls is not part of the card
    gate = spec.behaviour("register_card").gate
    assert gate is not None and (gate.field, gate.arg) == ("access_token", "access_token")
    history = spec.behaviour("get_card_history")  # only the token asked for: every card answers
    assert isinstance(history.effect, ListEffect) and history.prior == "confident"
    ep = Environment(spec).episode()
    card = {"card_number": "4111111111111111", "cardholder_name": "Ann Lee"}
    refused = ep.call_tool("register_card", {"access_token": "guess", **card})
    assert refused.error == "precondition_failed" and ep.state_hash() == Environment(spec).episode().state_hash()
    first = ep.call_tool("authenticate", {"client_id": "app", "client_secret": "s3cret"}).data["access_token"]
    second = ep.call_tool("authenticate", {"client_id": "app", "client_secret": "s3cret"}).data["access_token"]
    assert first != second  # every sign-in issues a new token ...
    assert ep.call_tool("register_card", {"access_token": first, **card}).error == "precondition_failed"
    assert ep.call_tool("register_card", {"access_token": second, **card}).ok  # ... and only that one works
    again = Environment(spec).episode()  # the same seed issues the same tokens
    assert again.call_tool("authenticate", {"client_id": "a", "client_secret": "b"}).data["access_token"] == first


def test_tasks_give_the_token_once_and_the_gold_plan_passes_it(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "cards", TOOLS)
    _, tasks = checked_tasks(spec, 8)
    assert tasks
    for task in tasks:
        token = next(c.args["access_token"] for c in task.gold if "access_token" in c.args)
        assert task.instruction.endswith(f"My access token is '{token}'.")
        assert task.instruction.count(token) == 1 and "with access token" not in task.instruction


def test_credentials_are_told_from_properties() -> None:
    assert all(map(credential, ["access_token", "token", "api_key", "apiKey", "session_token", "authToken"]))
    assert not any(map(credential, ["refresh_token_expiry", "key", "primary_key", "card_id", "monkey", "token_count"]))


def test_the_instrument_calls_each_side_with_the_ids_it_made() -> None:
    aliases = Aliases()
    real = {"booking_id": 3426812, "status": "ok", "access_token": "123456", "items": [{"id": "r1"}]}
    ours = {"booking_id": "booking_0011", "status": "done", "access_token": "9f2c", "items": [{"id": "s1"}]}
    aliases.pair(real, ours)
    assert aliases.mapping == {3426812: "booking_0011", "123456": "9f2c", "r1": "s1"}  # ids and tokens, not statuses
    assert aliases.translate({"booking_id": 3426812, "note": "123456", "ids": ["r1", "r2"], "flag": True}) == {
        "booking_id": "booking_0011", "note": "9f2c", "ids": ["s1", "r2"], "flag": True}  # fmt: skip


def test_reading_all_of_nothing_answers_empty_not_not_found(tmp_path: Path) -> None:
    cards = {"type": "dict", "description": "All registered cards.", "properties": CARD}
    listing = function("get_all_cards", "Get all registered credit cards.", {}, [], {"card_list": cards})
    spec = synthesize_functions(tmp_path, "cards", [*TOOLS, listing])
    empty = spec.model_copy(update={"initial_state": {**spec.initial_state, "card": []}})
    assert Environment(empty).episode().call_tool("get_all_cards", {}).ok  # nothing registered yet is an answer
    assert Environment(spec).episode().call_tool("get_all_cards", {}).ok


def test_a_credential_without_a_login_is_given_once_per_task(tmp_path: Path) -> None:
    key = {"type": "string", "description": "Your API key."}
    lists = [
        function("create_list", "Create a word list.", {"api_key": key, "name": STR, "description": STR},
                 ["api_key", "name"], {"id": STR, "name": STR, "description": STR}),
        function("update_list", "Update a word list.", {"api_key": key, "id": STR, "description": STR},
                 ["api_key", "id", "description"], {"id": STR, "name": STR, "description": STR}),
        function("get_list", "Get a word list.", {"api_key": key, "id": STR}, ["api_key", "id"],
                 {"id": STR, "name": STR, "description": STR}),
    ]  # fmt: skip
    spec = synthesize_functions(tmp_path, "words", lists)
    assert "api_key" not in spec.state_schema["list"].fields
    _, tasks = checked_tasks(spec, 10)
    assert len(tasks) == 10  # the key never makes a task unverifiable (a mutation of it changes nothing)
    for task in tasks:
        keys = {c.args["api_key"] for c in task.gold if "api_key" in c.args}
        assert len(keys) == 1 and task.instruction.endswith(f"My api key is '{keys.pop()}'.")


def test_the_self_check_refreshes_a_token_with_the_one_the_session_holds(tmp_path: Path) -> None:
    refresh = function("refresh_token", "Replace the access token with a new one.", {"access_token": TOKEN}, [],
                       {"access_token": STR})  # fmt: skip
    spec = synthesize_functions(tmp_path, "cards", [*TOOLS, refresh])
    effect = SingletonEffect(entity="session", op="set", sets={"logged_in": True},
                             checks={"access_token": "access_token"}, issues=("access_token",))  # fmt: skip
    behaviours = tuple(b.model_copy(update={"effect": effect}) if b.tool == "refresh_token" else b
                       for b in spec.behaviours)  # fmt: skip
    spec = spec.model_copy(update={"behaviours": behaviours})
    assert spec.initial_state["session"][0]["access_token"]  # the session holds a token from the start
    checks = {c.name: c.status for t in self_check(spec).tools if t.tool == "refresh_token" for c in t.checks}
    assert checks == {"set writes the record": "pass", "output matches output schema": "pass"}


def test_a_session_page_declared_as_text_answers_the_one_record(tmp_path: Path) -> None:
    page = function("login_page", "The login page.", {}, [], {})
    page["response"] = {"type": "string"}
    spec = synthesize_functions(tmp_path, "cards", [*TOOLS, page])
    status = SingletonEffect(entity="session", op="get")
    behaviours = tuple(b.model_copy(update={"effect": status}) if b.tool == "login_page" else b
                       for b in spec.behaviours)  # fmt: skip
    spec = spec.model_copy(update={"behaviours": behaviours})
    assert primary_type(spec.tools["login_page"].output_schema) == "string"
    checks = {c.name: c.status for t in self_check(spec).tools if t.tool == "login_page" for c in t.checks}
    assert checks["answers the one record"] == "pass"

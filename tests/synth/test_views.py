"""Reads that are views of other things (a card's balance, a stock found by its symbol) and keyless
deposits and withdrawals on an account: the shapes of BFCL's trading and travel APIs, written
here from scratch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.synth.function_lists import STR, checked_tasks, function, synthesize_functions

from envfactory.ir.effect import ListEffect, ReadEffect, SingletonEffect
from envfactory.runtime.environment import Environment

JSON = dict[str, Any]
NUM = {"type": "number"}
PAYMENT = {"type": "string", "description": "The ID of the credit card to pay with."}
TOOLS = [
    function("get_account_info", "Get the account's details.", {}, [],
             {"account_id": {"type": "integer"}, "balance": NUM}),
    function("fund_account", "Add funds to the account.", {"amount": NUM}, ["amount"],
             {"status": STR, "new_balance": NUM}),
    function("withdraw_funds", "Withdraw funds from the account.", {"amount": NUM}, ["amount"],
             {"status": STR, "new_balance": NUM}),
    function("register_credit_card", "Register a credit card.", {"card_number": STR, "cardholder_name": STR},
             ["card_number", "cardholder_name"], {"card_id": STR}),
    function("get_credit_card_balance", "Get the balance of a credit card.", {"card_id": STR}, ["card_id"],
             {"card_balance": NUM}),
    function("list_stocks", "List the stocks.", {}, [], {"stocks": {"type": "array", "items": {
        "type": "dict", "properties": {"symbol": STR, "price": NUM}}}}),
    function("get_stock_info", "Get a stock's details.", {"symbol": STR}, ["symbol"], {"symbol": STR, "price": NUM}),
    function("get_credit_card_by_number", "Find a card by its number.", {"card_number": STR}, ["card_number"],
             {"card_id": STR, "cardholder_name": STR}),
    function("book_trip", "Book a trip.", {"payment_id": PAYMENT, "destination": STR}, ["payment_id", "destination"],
             {"booking_id": STR}),
    function("notify_price_change", "Notify about price changes.", {"symbols": {"type": "array", "items": STR}},
             ["symbols"], {"notification": STR}),
]  # fmt: skip


def _spec(tmp_path: Path) -> Any:
    return synthesize_functions(tmp_path, "wallet", TOOLS)


def test_views_join_the_thing_they_view(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    assert "credit_card_balance" not in spec.state_schema.names  # an aspect of the credit card
    card = spec.state_schema["credit_card"]
    assert card.key == "card_id"  # ``card_id`` keys a credit card
    balance = spec.behaviour("get_credit_card_balance").effect
    assert isinstance(balance, ReadEffect) and balance.entity == "credit_card" and balance.key_arg == "card_id"
    assert spec.state_schema["stock"].key == "symbol"  # no ids: stocks are named by their symbol
    lookup = spec.behaviour("get_credit_card_by_number").effect  # found by what it holds, not its key
    assert isinstance(lookup, ListEffect) and [(f.arg, f.field, f.op) for f in lookup.filters] == [
        ("card_number", "card_number", "eq")
    ]
    ep = Environment(spec).episode()
    stock, card = spec.initial_state["stock"][0], spec.initial_state["credit_card"][0]
    assert ep.call_tool("get_stock_info", {"symbol": stock["symbol"]}).data["price"] == stock["price"]
    assert ep.call_tool("get_stock_info", {"symbol": "NOPE-404"}).error == "not_found"
    found = ep.call_tool("get_credit_card_by_number", {"card_number": card["card_number"]})
    assert found.data["card_id"] == card["card_id"]
    assert ep.call_tool("get_credit_card_by_number", {"card_number": "0"}).error == "not_found"
    # ``payment_id`` is no card's name, but its description says whose id it holds
    assert spec.state_schema["booking"].refs.get("payment_id") == "credit_card"
    unknown = ep.call_tool("book_trip", {"payment_id": "nope", "destination": "Oslo"})
    assert unknown.error == "not_found"
    assert ep.call_tool("book_trip", {"payment_id": card["card_id"], "destination": "Oslo"}).ok
    # a notification goes out: not a state change the environment would refuse to fake
    assert spec.behaviour("notify_price_change").effect.kind == "fallback"
    assert ep.call_tool("notify_price_change", {"symbols": [stock["symbol"]]}).ok


def test_deposits_and_withdrawals_move_the_singleton_balance(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    fund, take = spec.behaviour("fund_account").effect, spec.behaviour("withdraw_funds").effect
    assert isinstance(fund, SingletonEffect) and fund.adds == {"amount": "balance"}
    assert isinstance(take, SingletonEffect) and take.takes == {"amount": "balance"}
    start = {"_id": "self", "account_id": 1, "balance": 100.0}
    ep = Environment(spec.model_copy(update={"initial_state": {**spec.initial_state, "account": [start]}})).episode()
    assert ep.call_tool("fund_account", {"amount": 50}).data == {"new_balance": 150.0}
    assert ep.call_tool("withdraw_funds", {"amount": 120}).data == {"new_balance": 30.0}
    before = ep.state_hash()
    assert ep.call_tool("withdraw_funds", {"amount": 31}).error == "precondition_failed"  # never below zero
    assert ep.call_tool("fund_account", {"amount": -5}).error == "invalid_arguments"
    assert ep.state_hash() == before
    assert ep.call_tool("get_account_info", {}).data == {"account_id": 1, "balance": 30.0}


def test_views_and_funds_self_check_and_yield_tasks(tmp_path: Path) -> None:
    _, tasks = checked_tasks(_spec(tmp_path), 10)
    assert tasks

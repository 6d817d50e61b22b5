"""Orders of stocks named by their symbol, BFCL's trading shapes written here from scratch: a natural
key another record holds is a reference, "details" is one thing, a search that finds nothing
answers an empty list, and a finished order cannot be cancelled whatever its status is spelled."""

from __future__ import annotations

from pathlib import Path

from tests.synth.function_lists import STR, checked_tasks, function, synthesize_functions

from envfactory.ir.effect import ActionEffect, ReadEffect
from envfactory.runtime.environment import Environment

NUM = {"type": "number"}
STOCK = {"symbol": STR, "price": NUM, "percent_change": NUM, "volume": NUM}
TOOLS = [
    function("get_stock_info", "Get the details of a stock.", {"symbol": STR}, ["symbol"], STOCK),
    function("get_available_stocks", "Get the stocks of a sector.", {"sector": STR}, ["sector"],
             {"stock_list": {"type": "array", "items": STR}}),
    function("filter_stocks_by_price", "Filter stocks by price.", {"min_price": NUM, "max_price": NUM},
             ["min_price", "max_price"], {"filtered_stocks": {"type": "array", "items": STR}}),
    function("place_order", "Place an order.", {"symbol": STR, "price": NUM, "amount": {"type": "integer"}},
             ["symbol", "price", "amount"], {"order_id": {"type": "integer"}, "status": STR}),
    function("get_order_details", "Get the details of an order.", {"order_id": {"type": "integer"}}, ["order_id"],
             {"id": {"type": "integer"}, "symbol": STR, "price": NUM, "amount": {"type": "integer"}, "status": STR}),
    function("cancel_order", "Cancel an order.", {"order_id": {"type": "integer"}}, ["order_id"],
             {"order_id": {"type": "integer"}, "status": STR}),
]  # fmt: skip


def test_an_order_refers_to_the_stock_its_symbol_names(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "broker", TOOLS)
    assert spec.state_schema["stock"].key == "symbol"
    assert spec.state_schema["order"].refs.get("symbol") == "stock"
    ep = Environment(spec).episode()
    symbol = spec.initial_state["stock"][0]["symbol"]
    assert ep.call_tool("place_order", {"symbol": symbol, "price": 10.5, "amount": 3}).ok
    assert ep.call_tool("place_order", {"symbol": "NOPE", "price": 10.5, "amount": 3}).error == "not_found"


def test_details_are_one_record_read_by_its_key(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "broker", TOOLS)
    effect = spec.behaviour("get_order_details").effect
    assert isinstance(effect, ReadEffect) and effect.key_arg == "order_id"


def test_a_search_that_finds_nothing_answers_an_empty_list(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "broker", TOOLS)
    ep = Environment(spec).episode()
    found = ep.call_tool("filter_stocks_by_price", {"min_price": 10**9, "max_price": 10**9 + 1})
    assert found.ok and found.data == {"filtered_stocks": []}


def test_an_answer_that_lists_plain_values_lists_the_keys_of_what_matched(tmp_path: Path) -> None:
    tools = [*TOOLS, function("filter_stocks", "Filter the given stocks by price.",
                              {"stocks": {"type": "array", "items": STR}, "min_price": NUM, "max_price": NUM},
                              ["stocks", "min_price", "max_price"], {"symbols": {"type": "array", "items": STR}}),
             function("get_order_history", "Get the order IDs.", {}, [],
                      {"order_history": {"type": "array", "items": {"type": "integer"}}})]  # fmt: skip
    spec = synthesize_functions(tmp_path, "broker", tools)
    assert "filtered_stocks" not in spec.state_schema["stock"].fields  # an answer's list of symbols is no field
    stocks = [
        {"symbol": s, "price": p, "percent_change": 0.0, "volume": 1.0} for s, p in (("A", 5), ("B", 50), ("C", 9))
    ]
    ep = Environment(spec.model_copy(update={"initial_state": {**spec.initial_state, "stock": stocks}})).episode()
    assert ep.call_tool("filter_stocks_by_price", {"min_price": 1, "max_price": 10}).data == {
        "filtered_stocks": ["A", "C"]
    }
    picked = ep.call_tool("filter_stocks", {"stocks": ["B", "C", "Z"], "min_price": 1, "max_price": 100})
    assert picked.data == {"symbols": ["B", "C"]}  # only the stocks named, within the range
    orders = [r["id"] for r in ep.store.rows("order")]
    assert ep.call_tool("get_order_history", {}).data == {"order_history": orders} and orders


def test_a_finished_order_cannot_be_cancelled_however_it_is_spelled(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "broker", TOOLS)
    cancel = spec.behaviour("cancel_order").effect
    assert isinstance(cancel, ActionEffect) and "completed" in cancel.forbidden_from
    done = {**spec.initial_state["order"][0], "status": "Completed"}
    state = {**spec.initial_state, "order": [done, *spec.initial_state["order"][1:]]}
    ep = Environment(spec.model_copy(update={"initial_state": state})).episode()
    key = done[spec.state_schema["order"].key]
    assert ep.call_tool("cancel_order", {"order_id": key}).error == "precondition_failed"
    other = spec.initial_state["order"][1][spec.state_schema["order"].key]
    assert ep.call_tool("cancel_order", {"order_id": other}).ok
    checked_tasks(spec, 5)


def test_a_status_listed_in_one_answer_takes_its_values_and_their_spelling(tmp_path: Path) -> None:
    listed = {**STR, "enum": ["Open", "Pending", "Completed", "Cancelled", None]}  # a nullable enum's null
    tools = [dict(t) for t in TOOLS]
    details = next(t for t in tools if t["name"] == "get_order_details")
    details["response"] = {"type": "dict", "properties": {**details["response"]["properties"], "status": listed}}
    spec = synthesize_functions(tmp_path, "broker", tools)  # place_order's free-text status comes first
    assert spec.state_schema["order"].fields["status"]["enum"] == ["Open", "Pending", "Completed", "Cancelled"]
    cancel = spec.behaviour("cancel_order").effect
    assert isinstance(cancel, ActionEffect) and cancel.to == "Cancelled" and cancel.forbidden_from == ("Completed",)
    ep = Environment(spec).episode()
    symbol = spec.initial_state["stock"][0]["symbol"]
    placed = ep.call_tool("place_order", {"symbol": symbol, "price": 10.5, "amount": 3}).data
    order = placed["order_id"]  # the new order's key, under the name the answer gives it
    assert order == max(r["id"] for r in ep.store.rows("order")) and "order_id" not in spec.state_schema["order"].fields
    assert ep.call_tool("get_order_details", {"order_id": order}).data["status"] == "Open"  # the enum's first
    assert ep.call_tool("cancel_order", {"order_id": order}).ok
    assert ep.call_tool("get_order_details", {"order_id": order}).data["status"] == "Cancelled"


def test_things_keyed_by_a_made_up_id_are_listed_by_their_name(tmp_path: Path) -> None:
    user = {"type": "string", "description": "User name of the user."}
    tools = [
        function("get_user_id", "Get user ID from user name.", {"user": user}, ["user"], {"user_id": STR}),
        function("list_users", "List all users.", {}, [],
                 {"user_list": {"type": "array", "description": "All users.", "items": STR}}),
        function("list_user_ids", "List the IDs of all users.", {}, [],
                 {"ids": {"type": "array", "description": "The user IDs.", "items": STR}}),
    ]  # fmt: skip
    spec = synthesize_functions(tmp_path, "people", tools)
    episode = Environment(spec).episode()
    rows = list(episode.store.rows("user"))
    listed = episode.call_tool("list_users", {})
    assert listed.ok and listed.data["user_list"] == [r["user"] for r in rows], listed.content
    ids = episode.call_tool("list_user_ids", {})  # a list that says it holds ids holds the keys
    assert ids.ok and ids.data["ids"] == [r["user_id"] for r in rows], ids.content

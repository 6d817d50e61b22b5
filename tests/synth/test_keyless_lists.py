"""Keyless lists of values (a watchlist, favourites): one record holding the list, tools that add
to it and remove from it, and a read that answers it. The shape of BFCL's trading watchlist,
written here from scratch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.synth.function_lists import STR, checked_tasks, function, synthesize_functions

from envfactory.ir.effect import SingletonEffect
from envfactory.runtime.environment import Environment
from envfactory.synth.selfcheck import self_check

SYMBOLS = {"type": "array", "items": STR, "description": "List of stock symbols in the watchlist."}
TOOLS = [
    function("get_watchlist", "Get the watchlist.", {}, [], {"watchlist": SYMBOLS}),
    function("add_to_watchlist", "Add a stock to the watchlist.", {"stock": STR}, ["stock"], {"watchlist": SYMBOLS}),
    function("remove_stock_from_watchlist", "Remove a stock from the watchlist.", {"symbol": STR}, ["symbol"],
             {"status": STR}),
    function("add_favorites", "Add songs to the favorites.", {"songs": {"type": "array", "items": STR}}, ["songs"],
             {"favorites": {"type": "array", "items": STR}}),
    function("get_favorites", "Get the favorite songs.", {}, [], {"favorites": {"type": "array", "items": STR}}),
    function("get_stock_info", "Get a stock's details.", {"symbol": STR}, ["symbol"],
             {"symbol": STR, "price": {"type": "number"}}),
]  # fmt: skip


def _episode(tmp_path: Path, watchlist: list[str]) -> Any:
    spec = synthesize_functions(tmp_path, "lists", TOOLS)
    stocks = [{"symbol": s, "price": 1.0} for s in ("NVDA", "AAPL")]
    start = {**spec.initial_state, "watchlist": [{"_id": "self", "watchlist": watchlist}],
             "favorite": [{"_id": "self", "favorites": ["x"]}], "stock": stocks}  # fmt: skip
    return spec, Environment(spec.model_copy(update={"initial_state": start})).episode()


def test_a_watchlist_is_one_record_whose_list_the_tools_edit(tmp_path: Path) -> None:
    spec, ep = _episode(tmp_path, ["NVDA"])
    add, remove = spec.behaviour("add_to_watchlist").effect, spec.behaviour("remove_stock_from_watchlist").effect
    assert isinstance(add, SingletonEffect) and add.adds == {"stock": "watchlist"}
    assert isinstance(remove, SingletonEffect) and remove.takes == {"symbol": "watchlist"}
    assert spec.state_schema["watchlist"].fields["watchlist"]["type"] == "array"
    assert spec.state_schema["watchlist"].refs == {"watchlist": "stock"}  # ``stock`` names the stocks
    unknown = ep.call_tool("add_to_watchlist", {"stock": "ZZZZ"})
    assert unknown.error == "not_found" and "stock 'ZZZZ' not found" in unknown.content
    assert ep.call_tool("get_watchlist", {}).data == {"watchlist": ["NVDA"]}
    assert ep.call_tool("add_to_watchlist", {"stock": "AAPL"}).data == {"watchlist": ["NVDA", "AAPL"]}
    assert ep.call_tool("add_to_watchlist", {"stock": "AAPL"}).data == {"watchlist": ["NVDA", "AAPL"]}  # no repeat
    assert ep.call_tool("remove_stock_from_watchlist", {"symbol": "NVDA"}).ok
    before = ep.state_hash()
    gone = ep.call_tool("remove_stock_from_watchlist", {"symbol": "NVDA"})
    assert gone.error == "not_found" and "'NVDA' is not in the watchlist" in gone.content
    assert ep.state_hash() == before and ep.call_tool("get_watchlist", {}).data == {"watchlist": ["AAPL"]}


def test_a_list_taking_several_values_adds_each_once(tmp_path: Path) -> None:
    spec, ep = _episode(tmp_path, [])
    assert spec.behaviour("add_favorites").effect.adds == {"songs": "favorites"}
    assert ep.call_tool("add_favorites", {"songs": ["a", "b", "a", "x"]}).data == {"favorites": ["x", "a", "b"]}
    assert ep.call_tool("get_favorites", {}).data == {"favorites": ["x", "a", "b"]}


def test_keyless_lists_self_check_and_yield_tasks_that_edit_them(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "lists", TOOLS)
    env, tasks = checked_tasks(spec, 20)
    said = [t.instruction for t in tasks if t.gold and t.gold[0].tool in ("add_to_watchlist",
                                                                        "remove_stock_from_watchlist")]  # fmt: skip
    assert any(s.startswith("Please remove '") and s.endswith(" from my watchlist.") for s in said)
    held = env.episode().call_tool("get_watchlist", {}).data["watchlist"]
    removal = next(t for t in tasks if t.gold and t.gold[0].tool == "remove_stock_from_watchlist")
    assert removal.gold[0].args["symbol"] in held


FOLLOWED = {"type": "boolean", "description": "True if followed, False if already following."}
UNFOLLOWED = {"type": "boolean", "description": "True if unfollowed, False if not following."}
FOLLOWING = [
    function("list_all_following", "List the users you follow.", {}, [],
             {"following_list": {"type": "array", "items": STR}}),
    function("follow_user", "Follow a user.", {"username_to_follow": STR}, ["username_to_follow"],
             {"follow_status": FOLLOWED}),
    function("unfollow_user", "Unfollow a user.", {"username_to_unfollow": STR}, ["username_to_unfollow"],
             {"unfollow_status": UNFOLLOWED}),
]  # fmt: skip


def test_follow_and_unfollow_edit_the_following_list_and_say_whether_it_changed(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "social", FOLLOWING)
    follow = spec.behaviour("follow_user").effect
    assert isinstance(follow, SingletonEffect) and follow.adds == {"username_to_follow": "following_list"}
    assert follow.reports == "follow_status"
    report = self_check(spec)  # adding twice answers false; removing what is not there answers false
    assert report.passed, report.failures
    start = {**spec.initial_state, "following": [{"_id": "self", "following_list": ["ann"]}]}
    ep = Environment(spec.model_copy(update={"initial_state": start})).episode()
    assert ep.call_tool("follow_user", {"username_to_follow": "bob"}).data == {"follow_status": True}
    assert ep.call_tool("follow_user", {"username_to_follow": "bob"}).data == {"follow_status": False}  # already
    assert ep.call_tool("list_all_following", {}).data == {"following_list": ["ann", "bob"]}
    assert ep.call_tool("unfollow_user", {"username_to_unfollow": "ann"}).data == {"unfollow_status": True}
    gone = ep.call_tool("unfollow_user", {"username_to_unfollow": "ann"})  # "False if not following": no error
    assert gone.ok and gone.data == {"unfollow_status": False}
    assert ep.call_tool("list_all_following", {}).data == {"following_list": ["bob"]}


NAMED = [
    function("project_register", "Register a project.", {"name": STR, "path": STR}, ["name", "path"], {}),
    function("project_get", "Look up a single registered project by name.", {"name": STR}, ["name"], {}),
    function("project_remove", "Remove a project from the registry.", {"name": STR}, ["name"], {}),
    function("project_list", "List the registered projects.", {}, [], {}),
]  # fmt: skip


def test_a_thing_two_tools_name_by_its_name_alone_is_keyed_by_it(tmp_path: Path) -> None:
    """No tool passes a project's id, and two take its ``name`` alone: a project is named by its
    name (read, removed by it), where before the remove was a fallback "no argument holds its key"."""
    spec = synthesize_functions(tmp_path, "projects", NAMED)
    assert spec.state_schema["project"].key == "name"
    assert spec.behaviour("project_remove").effect.kind == "delete"
    ep = Environment(spec.model_copy(update={"initial_state": {"project": []}})).episode()
    assert ep.call_tool("project_register", {"name": "q4", "path": "/tmp"}).ok
    assert ep.call_tool("project_get", {"name": "q4"}).ok
    assert ep.call_tool("project_remove", {"name": "q4"}).ok
    assert ep.call_tool("project_get", {"name": "q4"}).error == "not_found"


def test_a_name_one_tool_takes_alone_keys_nothing(tmp_path: Path) -> None:
    """One read by ``name`` is a look-up, not a key: people share names."""
    spec = synthesize_functions(tmp_path, "projects", [f for f in NAMED if f["name"] != "project_remove"])
    assert spec.state_schema["project"].key != "name"

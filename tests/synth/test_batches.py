"""Collection-shaped tool sets: batch creates and deletes, natural keys, list fields, dumps."""

from __future__ import annotations

import pytest
from tests.conftest import FIXTURES

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

BOARD = FIXTURES / "board_tools.json"


@pytest.fixture(scope="module")
def board() -> Environment:
    return Environment(synthesize(BOARD, state="empty"))


def test_each_shape_gets_its_effect() -> None:
    spec = synthesize(BOARD)
    kinds = {b.tool: b.effect.kind for b in spec.behaviours}
    assert kinds == {
        "create_tasks": "create_many",
        "create_dependencies": "create_many",
        "add_labels": "edit_list",
        "remove_labels": "edit_list",
        "delete_tasks": "delete_many",
        "delete_dependencies": "delete_many",
        "export_board": "dump",
        "find_tasks": "dump",
        "get_tasks": "dump",
    }
    task, dependency = spec.state_schema["task"], spec.state_schema["dependency"]
    assert task.key == "title" and set(task.fields) == {"title", "status", "labels"}  # a natural key
    assert dependency.key == "id" and dependency.refs == {"waiting": "task", "blocker": "task"}
    report = self_check(spec)
    assert report.passed, report.failures


def _tasks(*titles: str) -> list[dict]:
    return [{"title": t, "status": "todo", "labels": ["x"]} for t in titles]


def test_batch_create_skips_taken_keys_and_echoes_what_it_made(board: Environment) -> None:
    ep = board.episode()
    first = ep.call_tool("create_tasks", {"tasks": _tasks("Write spec", "Ship it")})
    assert first.ok and [t["title"] for t in first.data["tasks"]] == ["Write spec", "Ship it"]
    again = ep.call_tool("create_tasks", {"tasks": _tasks("Ship it", "Test it")})
    assert [t["title"] for t in again.data["tasks"]] == ["Test it"]
    assert sorted(r["title"] for r in ep.store.rows("task")) == ["Ship it", "Test it", "Write spec"]


def test_rows_without_a_natural_key_are_duplicates_when_equal_and_the_hidden_key_never_shows(
    board: Environment,
) -> None:
    ep = board.episode()
    ep.call_tool("create_tasks", {"tasks": _tasks("a", "b")})
    dep = {"waiting": "a", "blocker": "b", "kind": "blocks"}
    assert ep.call_tool("create_dependencies", {"dependencies": [dep]}).ok
    ep.call_tool("create_dependencies", {"dependencies": [dep]})
    assert ep.store.count("dependency") == 1
    dump = ep.call_tool("export_board", {})
    assert dump.data["dependencies"] == [dep]  # the generated id is the environment's, not the API's


def test_list_edits_add_once_refuse_missing_rows_whole_and_remove(board: Environment) -> None:
    ep = board.episode()
    ep.call_tool("create_tasks", {"tasks": _tasks("a")})
    added = ep.call_tool("add_labels", {"additions": [{"taskTitle": "a", "labels": ["x", "urgent", "urgent"]}]})
    assert added.ok and ep.store.get("task", "a")["labels"] == ["x", "urgent"]
    before = ep.state_hash()
    refused = ep.call_tool(
        "add_labels", {"additions": [{"taskTitle": "a", "labels": ["late"]}, {"taskTitle": "nope", "labels": ["y"]}]}
    )
    assert refused.error == "not_found" and ep.state_hash() == before  # all or nothing
    assert ep.call_tool("remove_labels", {"removals": [{"taskTitle": "a", "labels": ["x", "never"]}]}).ok
    assert ep.store.get("task", "a")["labels"] == ["urgent"]


def test_batch_delete_ignores_missing_keys_and_takes_referring_rows_along(board: Environment) -> None:
    ep = board.episode()
    ep.call_tool("create_tasks", {"tasks": _tasks("a", "b", "c")})
    deps = [{"waiting": "a", "blocker": "b", "kind": "blocks"}, {"waiting": "c", "blocker": "b", "kind": "relates"}]
    ep.call_tool("create_dependencies", {"dependencies": deps})
    assert ep.call_tool("delete_tasks", {"taskTitles": ["a", "ghost"]}).ok
    assert ep.store.get("task", "a") is None and ep.store.count("task") == 2
    assert [(r["waiting"], r["blocker"]) for r in ep.store.rows("dependency")] == [("c", "b")]
    gone = {"waiting": "c", "blocker": "b", "kind": "relates"}
    assert ep.call_tool("delete_dependencies", {"dependencies": [gone]}).ok
    assert ep.store.count("dependency") == 0


def test_dumps_answer_everything_a_search_or_named_rows_with_the_links_between_them(board: Environment) -> None:
    ep = board.episode()
    ep.call_tool("create_tasks", {"tasks": [*_tasks("Write spec", "Ship it"), {"title": "Party", "status": "done",
                                                                             "labels": ["fun"]}]})  # fmt: skip
    ep.call_tool("create_dependencies", {"dependencies": [
        {"waiting": "Ship it", "blocker": "Write spec", "kind": "blocks"},
        {"waiting": "Party", "blocker": "Ship it", "kind": "blocks"}]})  # fmt: skip
    everything = ep.call_tool("export_board", {}).data
    assert len(everything["tasks"]) == 3 and len(everything["dependencies"]) == 2
    found = ep.call_tool("find_tasks", {"query": "FUN"}).data  # case-insensitive, inside list fields too
    assert [t["title"] for t in found["tasks"]] == ["Party"] and found["dependencies"] == []
    named = ep.call_tool("get_tasks", {"titles": ["Ship it", "Write spec"]}).data
    assert {t["title"] for t in named["tasks"]} == {"Ship it", "Write spec"}
    assert named["dependencies"] == [{"waiting": "Ship it", "blocker": "Write spec", "kind": "blocks"}]


def test_deleting_a_name_no_row_holds_still_takes_the_references_to_it(board: Environment) -> None:
    ep = board.episode()
    ep.call_tool("create_tasks", {"tasks": _tasks("a")})
    ep.call_tool("create_dependencies", {"dependencies": [{"waiting": "a", "blocker": "ghost", "kind": "blocks"}]})
    assert ep.store.count("dependency") == 1  # a dangling reference, as the real servers allow
    assert ep.call_tool("delete_tasks", {"taskTitles": ["ghost"]}).ok
    assert ep.store.count("dependency") == 0 and ep.store.count("task") == 1


def test_one_rows_list_grows_by_a_call_that_names_it(tmp_path) -> None:
    from tests.synth.function_lists import STR, checked_tasks, function, synthesize_functions

    tweet = {"id": {"type": "integer"}, "content": STR, "mentions": {"type": "array", "items": STR}}
    tools = [
        function("post_tweet", "Post a tweet.", {"content": STR}, ["content"], tweet),
        function("get_tweet", "Get a tweet.", {"tweet_id": {"type": "integer"}}, ["tweet_id"], tweet),
        function("mention", "Mention users in a tweet.",
                 {"tweet_id": {"type": "integer"}, "mentioned_usernames": {"type": "array", "items": STR}},
                 ["tweet_id", "mentioned_usernames"], {"mention_status": STR}),
    ]  # fmt: skip
    spec = synthesize_functions(tmp_path, "tweets", tools)
    effect = spec.behaviour("mention").effect
    assert effect.kind == "edit_list" and effect.field == "mentions" and effect.items_arg is None
    ep = Environment(spec).episode()
    made = ep.call_tool("post_tweet", {"content": "hello"}).data["id"]
    assert ep.call_tool("mention", {"tweet_id": made, "mentioned_usernames": ["ann", "bo"]}).ok
    assert ep.call_tool("mention", {"tweet_id": made, "mentioned_usernames": ["bo", "cy"]}).ok
    assert ep.call_tool("get_tweet", {"tweet_id": made}).data["mentions"] == ["ann", "bo", "cy"]
    assert ep.call_tool("mention", {"tweet_id": 10**6, "mentioned_usernames": ["ann"]}).error == "not_found"
    checked_tasks(spec, 5)


def test_an_array_of_records_is_not_a_list_to_grow(tmp_path) -> None:
    # YNAB's updateTransactions(plan_id, transactions): a batch of records, not a plan's list of values
    from tests.synth.function_lists import STR, function, synthesize_functions

    record = {"type": "object", "properties": {"id": STR, "amount": {"type": "integer"}}}
    plan = {"id": STR, "name": STR, "transactions": {"type": "array", "items": record}}
    tools = [
        function("create_plan", "Create a plan.", {"name": STR}, ["name"], plan),
        function("get_plan", "Get a plan.", {"plan_id": STR}, ["plan_id"], plan),
        function("updateTransactions", "Update transactions.",
                 {"plan_id": STR, "transactions": {"type": "array", "items": record}}, ["plan_id", "transactions"],
                 {"transaction_ids": {"type": "array", "items": STR}}),
    ]  # fmt: skip
    spec = synthesize_functions(tmp_path, "plans", tools)
    assert spec.behaviour("updateTransactions").effect.kind != "edit_list"
    assert self_check(spec).passed

"""A workspace of users found by name and messages to them: references named by what a create tool
says of its argument, a read that finds a user by name, and a delete by a reference that removes
the latest matching row. The shapes of BFCL's message API, written here from scratch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.synth.function_lists import STR, checked_tasks, function, synthesize_functions

from envfactory.ir.effect import DeleteEffect, ListEffect
from envfactory.real.mirror import entity_rows
from envfactory.runtime.environment import Environment

JSON = dict[str, Any]
TOOLS = [
    function("list_users", "List all users in the workspace.", {}, [],
             {"user_list": {"type": "array", "items": STR, "description": "List of all users."}}),
    function("get_user_id", "Get user ID from user name.", {"user": {**STR, "description": "User name of the user."}},
             ["user"], {"user_id": {**STR, "description": "User ID of the user"}}),
    function("send_message", "Send a message to a user.",
             {"receiver_id": {**STR, "description": "User ID of the user to send the message to."},
              "message": {**STR, "description": "Message to be sent."}},
             ["receiver_id", "message"], {"message_id": {"type": "integer", "description": "ID of the sent message."}}),
    function("delete_message", "Delete the latest message sent to a receiver.",
             {"receiver_id": {**STR, "description": "User ID of the user to send the message to."}}, ["receiver_id"],
             {"receiver_id": {**STR, "description": "ID of the receiver of the deleted message."}}),
]  # fmt: skip


def test_a_create_argument_names_what_it_refers_to(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "workspace", TOOLS)
    # the record's own description ("ID of the receiver of the deleted message") names no entity;
    # what send_message says of its argument does
    assert spec.state_schema["message"].refs == {"receiver_id": "user"}
    ep = Environment(spec).episode()
    user = spec.initial_state["user"][0]["user_id"]
    assert ep.call_tool("send_message", {"receiver_id": user, "message": "hi"}).ok
    assert ep.call_tool("send_message", {"receiver_id": "nobody", "message": "hi"}).error == "not_found"


def test_a_user_is_found_by_the_name_a_read_takes(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "workspace", TOOLS)
    assert "user" in spec.state_schema["user"].fields  # "User name of the user": users hold it
    lookup = spec.behaviour("get_user_id").effect
    assert isinstance(lookup, ListEffect) and [(f.arg, f.field, f.op) for f in lookup.filters] == [
        ("user", "user", "eq")
    ]
    ep = Environment(spec).episode()
    row = spec.initial_state["user"][1]
    assert ep.call_tool("get_user_id", {"user": row["user"]}).data == {"user_id": row["user_id"]}
    assert ep.call_tool("get_user_id", {"user": "no such person"}).error == "not_found"


def test_delete_by_a_reference_removes_the_latest_matching_row(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "workspace", TOOLS)
    effect = spec.behaviour("delete_message").effect
    assert isinstance(effect, DeleteEffect) and effect.by == "receiver_id"
    ep = Environment(spec).episode()
    user = spec.initial_state["user"][0]["user_id"]
    ours = [r for r in spec.initial_state["message"] if r["receiver_id"] == user]
    first = ep.call_tool("send_message", {"receiver_id": user, "message": "first"}).data["message_id"]
    second = ep.call_tool("send_message", {"receiver_id": user, "message": "second"}).data["message_id"]
    hash_before = ep.state_hash()
    assert ep.call_tool("delete_message", {"receiver_id": user}).ok
    assert ep.state_hash() != hash_before
    left = {r["message_id"] for r in ep.store.rows("message")}
    assert second not in left and first in left  # the latest one went
    for _ in range(1 + len(ours)):
        assert ep.call_tool("delete_message", {"receiver_id": user}).ok
    assert ep.call_tool("delete_message", {"receiver_id": user}).error == "not_found"


def test_tasks_name_the_user_and_the_agent_finds_its_id(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "workspace", TOOLS)
    _, tasks = checked_tasks(spec, 10)
    assert len(tasks) == 10
    found = [t for t in tasks if [c.tool for c in t.gold][:2] == ["get_user_id", "send_message"]]
    assert found, [t.instruction for t in tasks]
    for task in found:  # "... with the user named 'Ann Lee' as receiver": the name, never the id
        name, user_id = task.gold[0].args["user"], task.gold[1].args["receiver_id"]
        assert f"the user named '{name}' as receiver" in task.instruction and user_id not in task.instruction
        row = next(r for r in spec.initial_state["user"] if r["user_id"] == user_id)
        assert row["user"] == name


def test_a_name_to_id_directory_is_read_as_rows(tmp_path: Path) -> None:
    spec = synthesize_functions(tmp_path, "workspace", TOOLS)
    rows = entity_rows({"user_map": {"Alice": "USR001", "Bob": "USR002"}, "user_count": 2}, spec.state_schema)
    assert rows is not None and rows["user"] == [{"user_id": "USR001", "user": "Alice"},
                                                 {"user_id": "USR002", "user": "Bob"}]  # fmt: skip


def test_a_finder_that_answers_no_record_is_passed_over(tmp_path: Path) -> None:
    # zoomconnect's ``get .../send-url-parameters``: a read by a field that answers text, not the row
    text = {**function("get_user_id", "Get a greeting for a user by user name.",
                       {"user": {**STR, "description": "User name of the user."}}, ["user"], {}),
            "response": {"type": "string"}}  # fmt: skip
    spec = synthesize_functions(tmp_path, "workspace", [*TOOLS[:1], text, *TOOLS[2:]])
    from envfactory.tasks.generate import generate_tasks

    tasks, report = generate_tasks(Environment(spec), 10, seed=0)  # never a traceback
    assert report.rejected["get_user_id answers no one record to find"] > 0 and not tasks  # no other way to a user

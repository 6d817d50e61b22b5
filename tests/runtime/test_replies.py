"""Refusals dressed as successful replies are refusals: in the recognizer, a bound tool, a served tool."""

from __future__ import annotations

import pytest

from envfactory.real.instrument import real_call
from envfactory.runtime.replies import reply_error


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ({"error": "Task 7 not found"}, "Task 7 not found"),
        ({"success": False, "message": "Priority must be a single uppercase letter"},
         "Priority must be a single uppercase letter"),
        ({"status": "error", "message": "syntax error near FROM"}, "syntax error near FROM"),
        ("Error: no such table: users", "Error: no such table: users"),
        ("Failed to create the note: the title is taken", "Failed to create the note: the title is taken"),
        ("Task with ID 42 not found.", "Task with ID 42 not found."),
        ([{"error": "denied"}], "denied"),
        ('Database error: near "x": syntax error', 'Database error: near "x": syntax error'),
        ({"ok": False}, "the reply says it failed"),
        ({"error": True, "code": "not_found", "message": "Note 'q4' not found."}, "Note 'q4' not found."),
        ({"isError": True}, "the reply says it failed"),
        ("❌ Context not found!\n\n📝 **Details:**\n- Context ID: 1", "Context not found!"),
        ("🚫 Not allowed", "Not allowed"),
        ("# Task Update Result\n\n## System Error\n\nTask `t-9` not found. List the tasks first.\n",
         "Task `t-9` not found. List the tasks first."),
    ],
)  # fmt: skip
def test_refusals_inside_replies_are_read(reply: object, message: str) -> None:
    assert reply_error(reply) == message


@pytest.mark.parametrize(
    "reply",
    [
        "No tasks found",  # an empty answer
        {"id": 3, "status": "failed", "name": "nightly build"},  # a record whose status is failed
        {"error": "partial", "rows": [1, 2]},  # an error field beside data
        {"id": 7, "error": True, "message": "disk full"},  # a record of a failed job: an answer
        {"error": False, "message": "saved"},
        {"success": True, "id": 4},
        "Created task 3: buy milk",
        [{"error": "a"}, {"error": "b"}],
        3,
        None,
        "A long text that mentions that a file was not found somewhere in its middle.\nSecond line.",
        "✅ Context deleted successfully!\n\n📝 **Details:**",
        "Task ❌ removed from the list",  # a mark inside the text, not opening it
        "# Guide\n\n## Error handling\n\nRetry twice.",  # a section about errors
        "# Import report\n\n## Errors\n\nnone",
    ],
)
def test_answers_are_not_refusals(reply: object) -> None:
    assert reply_error(reply) is None


def test_members_that_echo_the_arguments_carry_nothing() -> None:
    reply = {"error": "Priority must be a single uppercase letter (A-Z)", "priority": "high"}
    assert reply_error(reply, {"text": "milk", "priority": "high"}) == reply["error"]
    assert reply_error(reply, {"priority": "B"}) is None  # something besides the arguments: an answer


def test_the_instrument_reads_a_refusal_inside_a_reply() -> None:
    refused = real_call(True, "Error: UNIQUE constraint failed: users.email")
    assert not refused.ok and refused.error_code == "precondition_failed"
    assert real_call(True, {"id": 1}).ok
    assert real_call(False, None, "Note not found").error_code == "not_found"

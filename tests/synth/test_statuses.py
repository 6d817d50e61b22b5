"""Statuses read from prose: what an action sets, needs and is refused by, without a declared status."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from envfactory.ir.effect import ActionEffect
from envfactory.ir.tool import ToolSpec
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.statuses import Said, said_rule, said_transition

STR = {"type": "string"}


def _tool(name: str, text: str) -> ToolSpec:
    return ToolSpec(name=name, description=text, input_schema={"type": "object", "properties": {}})


@pytest.mark.parametrize(
    ("name", "text", "noun", "said"),
    [
        ("cancel_pending_booking", "Cancel a pending booking. If the booking is already confirmed or completed, it "
         "cannot be cancelled. The status of the booking will be changed to 'cancelled'.", "booking",
         Said("cancelled", ("pending",), ("confirmed", "completed"))),
        ("return_delivered_parcel", "Return a delivered parcel. Its status becomes 'Return Requested'.", "parcel",
         Said("return requested", ("delivered",), ())),
        ("close_ticket", "Close a ticket. Only works while the ticket is open or in_progress. Its state becomes "
         "'closed'.", "ticket", Said("closed", ("open", "in_progress"), ())),
        ("pay_invoice", "Marks the invoice as paid. An invoice that was voided can't be paid.", "invoice",
         Said("paid", (), ("voided",))),
        ("refund_order", "Refund a paid or delivered order.", "order", Said(None, ("paid", "delivered"), ())),
        ("archive_note", "Archive a note.", "note", Said()),
        ("complete_task", "Mark a task done.", "task", Said("done")),
        ("start_task", "Mark a task as in-progress.", "task", Said("in-progress")),
        ("pay_order", "Mark a pending order as paid.", "order", Said("paid", ("pending",), ())),
        ("read_email", "Marks the email read.", "email", Said()),  # not a state word
        ("review_task", "Mark a task as in-review (submit for review).", "task", Said("in-review")),
        ("reset_task", "Reset a task back to pending.", "task", Said("pending")),
        ("resolve_blocker", "Resolve a blocker and set task to in_progress", "blocker", Said("in_progress")),
        ("file_card", "Moves the card into 'done'.", "card", Said("done")),
        ("set_due", "Set the due date to tomorrow.", "task", Said()),  # not a state word
        ("move_task", "Move a task to another project.", "task", Said()),
        ("publish_post", "Publishes the post; only possible when it is not yet published. The state is set to "
         "published.", "post", Said("published", (), ())),
    ],
)  # fmt: skip
def test_what_prose_says_of_a_status(name: str, text: str, noun: str, said: Said) -> None:
    assert said_rule(_tool(name, text), noun) == said


def test_the_prose_decides_over_the_verb_and_is_spelled_as_the_enum_spells_it() -> None:
    said = Said("Cancelled", ("Pending",), ())
    enum = ["Pending", "Shipped", "Cancelled"]
    assert said_transition(said, enum, ("Cancelled", None, ("Shipped",))) == ("Cancelled", ("Pending",), ())
    assert said_transition(Said("archived"), enum, None) is None  # a value the status does not hold
    assert said_transition(Said(None, (), ("shipped",)), enum, ("Cancelled", None, ())) == (
        "Cancelled", None, ("Shipped",))  # fmt: skip


def _spec(tmp_path: Path) -> Any:
    def fn(name: str, text: str, props: dict[str, Any]) -> dict[str, Any]:
        return {"type": "function", "function": {"name": name, "description": text, "parameters": {
            "type": "object", "properties": props, "required": list(props)}}}  # fmt: skip

    tools = [
        fn("get_booking_details", "The details of a booking.", {"booking_id": STR}),
        fn("cancel_pending_booking", "Cancel a pending booking. A booking already confirmed cannot be cancelled. "
           "The booking status will be changed to 'cancelled'.", {"booking_id": STR, "reason": STR}),
        fn("check_in_confirmed_booking", "Check in a confirmed booking; its status changes to 'checked in'.",
           {"booking_id": STR}),
        fn("modify_pending_booking_dates", "Change the dates of a pending booking.",
           {"booking_id": STR, "start_date": STR}),
    ]  # fmt: skip
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    return synthesize(path, rows=24)


def test_an_action_the_prose_states_moves_the_status_it_names(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    status = spec.state_schema["booking"].fields["status"]
    assert set(status["enum"]) == {"pending", "confirmed", "cancelled", "checked in"}
    cancel = spec.behaviour("cancel_pending_booking").effect
    assert isinstance(cancel, ActionEffect) and (cancel.to, cancel.allowed_from) == ("cancelled", ("pending",))
    check_in = spec.behaviour("check_in_confirmed_booking").effect
    assert isinstance(check_in, ActionEffect) and (check_in.to, check_in.allowed_from) == ("checked in", ("confirmed",))
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    rows = {r["status"]: r for r in episode.store.rows("booking")}
    assert {"pending", "confirmed"} <= set(rows)  # seeded records start in the states the tools need
    pending, confirmed = rows["pending"]["id"], rows["confirmed"]["id"]
    assert episode.call_tool("cancel_pending_booking", {"booking_id": confirmed, "reason": "ill"}).error == (
        "precondition_failed"
    )
    done = episode.call_tool("cancel_pending_booking", {"booking_id": pending, "reason": "ill"})
    assert done.ok and done.data["status"] == "cancelled" and done.data["reason"] == "ill"
    assert episode.call_tool("get_booking_details", {"booking_id": pending}).data["status"] == "cancelled"
    assert episode.call_tool("check_in_confirmed_booking", {"booking_id": confirmed}).data["status"] == "checked in"


def test_a_change_the_prose_allows_only_in_some_states_is_refused_in_the_others(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    assert spec.behaviour("modify_pending_booking_dates").effect.when == {"status": ("pending",)}
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    rows = {r["status"]: r["id"] for r in episode.store.rows("booking")}
    refused = episode.call_tool("modify_pending_booking_dates", {"booking_id": rows["confirmed"], "start_date": "x"})
    assert refused.error == "precondition_failed" and "needs 'pending'" in refused.content
    changed = episode.call_tool("modify_pending_booking_dates", {"booking_id": rows["pending"], "start_date": "x"})
    assert changed.ok and changed.data["start_date"] == "x"


@pytest.mark.parametrize(
    ("name", "text", "kind", "nouns"),
    [
        ("reprioritise_task", "Change an existing task's priority.", "update", ["task"]),
        ("overdue_tasks", "List overdue (pending, past-due) tasks.", "list", ["task"]),
        ("why_task", "Show a task's change history.", "read", ["task"]),
        ("fund_account", "Add funds to the account.", "unknown", ["account"]),  # adds to what: not a create
        ("zap_widget", "Zaps a widget.", "unknown", ["widget"]),
        ("forget_context", "🗑️ Delete a specific context by ID.", "delete", ["context"]),
        ("schedule_task", "Set or change a task's due date.", "update", ["task"]),  # it names the task by id
    ],
)
def test_an_unknown_verb_is_read_from_the_description(name: str, text: str, kind: str, nouns: list[str]) -> None:
    from envfactory.synth.intents import read_intent

    props = {"id": {"type": "integer"}} if name == "schedule_task" else {}
    tool = ToolSpec(name=name, description=text, input_schema={"type": "object", "properties": props,
                                                               "required": list(props)})  # fmt: skip
    intent = read_intent(tool)
    assert (intent.kind, intent.nouns) == (kind, nouns)


def test_a_record_handle_is_its_key_and_every_stated_deed_moves_its_status(tmp_path: Path) -> None:
    def fn(name: str, text: str, props: dict[str, Any]) -> dict[str, Any]:
        return {"name": name, "description": text, "inputSchema": {"type": "object", "properties": props,
                                                                   "required": list(props)}}  # fmt: skip

    tools = [
        fn("create_task", "Create a task.", {"title": STR}),
        fn("start_task", "Mark a task as in-progress.", {"task_ref": STR}),
        fn("finish_task", "Mark a task as done.", {"task_ref": STR}),
        fn("cancel_task", "Cancel a task.", {"task_ref": STR}),
    ]
    path = tmp_path / "tools.mcp.json"
    path.write_text(json.dumps({"tools": tools}))
    spec = synthesize(path)
    assert spec.state_schema["task"].fields["status"]["enum"] == ["in-progress", "done", "cancelled"]
    effects = {t: spec.behaviour(t).effect for t in ("start_task", "finish_task", "cancel_task")}
    assert all(isinstance(e, ActionEffect) and e.key_arg == "task_ref" for e in effects.values())
    assert [e.to for e in effects.values()] == ["in-progress", "done", "cancelled"]  # type: ignore[union-attr]


def test_actions_alone_give_a_thing_the_status_they_move_it_between(tmp_path: Path) -> None:
    """No answer shows a timer's status and no prose says one, but it is paused, resumed and cancelled:
    it holds the states those verbs set (``active`` first, where records start), so the actions are
    actions — a resume needs a paused timer, a cancel refuses a cancelled one — and not fallbacks. A
    thing with a flag such a verb might set (``locked``) gets none; nor one action's thing."""

    def fn(name: str, text: str, props: dict[str, Any]) -> dict[str, Any]:
        return {"type": "function", "function": {"name": name, "description": text, "parameters": {
            "type": "object", "properties": props, "required": list(props)}}}  # fmt: skip

    tools = [
        fn("timer_set", "Set a timer.", {"name": STR, "seconds": {"type": "integer"}}),
        fn("timer_get", "Get a timer.", {"timer_id": STR}),
        fn("timer_pause", "Pause a timer.", {"timer_id": STR}),
        fn("timer_resume", "Resume a paused timer.", {"timer_id": STR}),
        fn("timer_cancel", "Cancel a timer.", {"timer_id": STR}),
        fn("note_archive", "Archive a note.", {"note_id": STR}),
        fn("note_get", "Get a note.", {"note_id": STR}),
    ]  # fmt: skip
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(tools))
    spec = synthesize(path, rows=6)
    assert set(spec.state_schema["timer"].fields["status"]["enum"]) == {"active", "paused", "cancelled"}
    resume, cancel = spec.behaviour("timer_resume").effect, spec.behaviour("timer_cancel").effect
    assert isinstance(resume, ActionEffect) and (resume.to, resume.allowed_from) == ("active", ("paused",))
    assert isinstance(cancel, ActionEffect) and cancel.to == "cancelled"
    assert "status" not in spec.state_schema["note"].fields  # one verb: no status a note moves between
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    active = next(r["id"] for r in episode.store.rows("timer") if r["status"] == "active")
    assert not episode.call_tool("timer_resume", {"timer_id": active}).ok  # running already
    assert episode.call_tool("timer_pause", {"timer_id": active}).data["status"] == "paused"
    assert episode.call_tool("timer_resume", {"timer_id": active}).data["status"] == "active"
    assert episode.call_tool("timer_cancel", {"timer_id": active}).ok
    assert not episode.call_tool("timer_cancel", {"timer_id": active}).ok  # a repeat refused
    from envfactory.ir.state import Entity, StateSchema
    from envfactory.synth.statuses import statuses_follow_prose

    verbs = {"timer": ["pause", "resume"]}
    bare = Entity(name="timer", fields={"id": STR})
    flag = Entity(name="timer", fields={"id": STR, "locked": {"type": "boolean"}})
    assert "status" in statuses_follow_prose(StateSchema(entities=(bare,)), {}, verbs)["timer"].fields
    assert "status" not in statuses_follow_prose(StateSchema(entities=(flag,)), {}, verbs)["timer"].fields

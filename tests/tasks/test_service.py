"""Service tasks: a person says who they are and which of their records to act on, never its id."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.service import service_plans

STR = {"type": "string"}


def _fn(name: str, text: str, props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": text, "parameters": {
        "type": "object", "properties": props, "required": list(props)}}}  # fmt: skip


TOOLS = [
    _fn("find_guest_id_by_phone", "Find a guest's id by their phone number.", {"phone": STR}),
    _fn("list_guest_bookings", "The bookings of a guest.", {"guest_id": STR}),
    _fn("get_booking_details", "The details of a booking.", {"booking_id": STR}),
    _fn("cancel_pending_booking", "Cancel a pending booking. A booking already confirmed cannot be cancelled. "
        "The booking status will be changed to 'cancelled'.",
        {"booking_id": STR, "reason": {"type": "string", "enum": ["plans changed", "found cheaper"]}}),
    _fn("modify_pending_booking_room", "Change the room of a pending booking.", {"booking_id": STR, "room": STR}),
    _fn("check_in_confirmed_booking", "Check in a confirmed booking; its status changes to 'checked in'.",
        {"booking_id": STR}),
]  # fmt: skip


def _env(tmp_path: Path) -> Environment:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(TOOLS))
    return Environment(synthesize(path, rows=24))


def test_the_chains_from_a_person_to_their_records(tmp_path: Path) -> None:
    plans = service_plans(_env(tmp_path).spec)
    assert {(p.lookup, p.listing, p.act) for p in plans} == {
        ("find_guest_id_by_phone", "list_guest_bookings", act)
        for act in ("cancel_pending_booking", "modify_pending_booking_room", "check_in_confirmed_booking")
    }


def test_service_tasks_say_who_asks_and_which_record_in_plain_words(tmp_path: Path) -> None:
    env = _env(tmp_path)
    tasks, report = generate_tasks(env, n=40, seed=0)
    service = [t for t in tasks if t.origin.generator == "service/1"]
    assert len(service) >= 10, report
    acts = {t.gold[-1].tool for t in service}
    assert acts == {"cancel_pending_booking", "modify_pending_booking_room", "check_in_confirmed_booking"}
    phones = {r["phone"] for r in env.base.tables["guest"].values()}
    for task in service:
        assert [c.tool for c in task.gold[:2]] == ["find_guest_id_by_phone", "list_guest_bookings"]
        said = re.search(r"my phone is '([^']+)'", task.instruction, re.I)
        assert said and said.group(1) in phones and task.gold[0].args == {"phone": said.group(1)}
        assert not re.search(r"\b(?:guest|booking)_\d{4}\b", task.instruction)  # never an id
        assert task.level == 3 and task.goal.rows
    cancel = next(t for t in service if t.gold[-1].tool == "cancel_pending_booking")
    assert "cancel my" in cancel.instruction and "; the reason is '" in cancel.instruction
    check_in = next(t for t in service if t.gold[-1].tool == "check_in_confirmed_booking")
    assert "check in my" in check_in.instruction

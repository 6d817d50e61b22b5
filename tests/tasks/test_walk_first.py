"""Walks on a synthesized environment's own answers (``first=True``): the kinds of tasks a real
implementation gets — read, pick a record by a condition, act on it —, worded by what each tool
does rather than by the sentence every description of the set opens with."""

from __future__ import annotations

import json
from pathlib import Path

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.generate import generate_tasks, regenerate
from envfactory.tasks.realfirst import WALKED, own_sentences

PREFIX = "This tool belongs to the help desk of a company, which manages support tickets. "
TICKET = {"type": "dict", "properties": {"id": {"type": "integer"}, "title": {"type": "string"},
                                         "priority": {"type": "integer"}, "status": {"type": "string"}}}  # fmt: skip
TOOLS = [
    {"name": "get_user_tickets", "description": PREFIX + "Tool description: Get all tickets of the current user.",
     "parameters": {"type": "dict", "properties": {}, "required": []}, "response": TICKET},
    {"name": "close_ticket", "description": PREFIX + "Tool description: Close a ticket.",
     "parameters": {"type": "dict", "properties": {"ticket_id": {"type": "integer"}}, "required": ["ticket_id"]},
     "response": {"type": "dict", "properties": {"status": {"type": "string"}}}},
    {"name": "edit_ticket", "description": PREFIX + "Tool description: Change a ticket's priority.",
     "parameters": {"type": "dict", "properties": {"ticket_id": {"type": "integer"}, "priority": {"type": "integer"}},
                    "required": ["ticket_id", "priority"]},
     "response": {"type": "dict", "properties": {"status": {"type": "string"}}}},
]  # fmt: skip


def _env(tmp_path: Path) -> Environment:
    path = tmp_path / "helpdesk.json"
    path.write_text(json.dumps(TOOLS))
    return Environment(synthesize(str(path), name="helpdesk"))


def test_a_list_documented_by_its_item_answers_every_record(tmp_path: Path) -> None:
    env = _env(tmp_path)
    answer = env.episode().call_tool("get_user_tickets", {})
    rows = env.base.tables["ticket"]
    assert answer.ok and isinstance(answer.data, list) and len(answer.data) == len(rows) > 1


def test_walks_on_a_synthesized_environment_read_pick_and_act(tmp_path: Path) -> None:
    env = _env(tmp_path)
    planned, _ = generate_tasks(env, 6, seed=0)
    walked, _ = generate_tasks(env, 6, seed=0, first=True)
    assert all(t.origin is not None and t.origin.generator != WALKED for t in planned)
    ours = [t for t in walked if t.origin is not None and t.origin.generator == WALKED]
    assert len(ours) >= 3
    for task in ours:
        assert task.gold[0].tool == "get_user_tickets" and len(task.gold) >= 2
        # said as a person would: the record by what it holds, the act on "it", no tool named
        assert task.instruction.startswith("Find the ticket ") and "get user tickets" not in task.instruction
        assert "close it" in task.instruction or "change its priority" in task.instruction
        assert "belongs to" not in task.instruction and "Tool description" not in task.instruction
        assert regenerate(env, task) == task  # the line alone rebuilds it


def test_own_sentences_skip_what_most_descriptions_share_and_labels() -> None:
    said = own_sentences({
        "a": "Part of the X API. Tool description: Send a message.",
        "b": "Part of the X API. Delete a message. Only the latest.",
        "c": "Part of the X API",
        "d": "List users: every one of them.",
        "e": "Part of the X API. 🗑️ Delete a context by ID.",
    })  # fmt: skip
    assert said == {"a": "Send a message", "b": "Delete a message", "c": "", "d": "List users: every one of them",
                    "e": "Delete a context by ID"}  # fmt: skip


def test_walks_that_run_out_give_way_to_plans(tmp_path: Path) -> None:
    """A dozen tickets offer a few dozen walks; asked for more tasks, an attempt whose walk repeats
    one already kept takes its planned task instead, and every task still rebuilds from its line."""
    env = _env(tmp_path)
    planned, _ = generate_tasks(env, 40, seed=0)
    mixed, _ = generate_tasks(env, 40, seed=0, first=True)
    kinds = {t.origin.generator == WALKED for t in mixed if t.origin is not None}
    assert len(mixed) >= len(planned) and kinds == {True, False}
    assert all(regenerate(env, task) == task for task in mixed)


def test_a_walk_says_which_member_of_the_record_a_write_takes() -> None:
    from envfactory.tasks.realfirst import _given

    assert _given("ticket_id", "id") == "it"  # its handle as a handle: "with it"
    assert _given("title", "title") == "its title"
    assert _given("parent", "slug") == "its slug as the parent"
    assert _given("username_to_follow", "username") == "its username as the username to follow"


def test_a_write_said_of_the_record_at_hand() -> None:
    from envfactory.tasks.realfirst import _on_it

    assert _on_it("Mark a task as done", "task") == "mark it as done"
    assert _on_it("Set or change a task's due date", "task") == "set or change its due date"
    assert _on_it("Change an existing task's priority", "task") == "change its priority"
    assert _on_it("Resolve one conflict reported by sync", "sync conflict") is None  # not "a sync conflict"
    assert _on_it("Mark a task as done", None) is None
    assert _on_it("Delete a specific context by ID", "context") == "delete it by ID"
    assert _on_it("Add a note to a task", "task") == "add a note to it"
    assert _on_it("Create a new task", "task") is None  # another one, not the one found


def test_a_walk_acts_on_the_record_it_picked() -> None:
    """A create is never fed another record's title (a copy is no act on it), an update never a
    record's due date beside a key drawn elsewhere, and a write's key only a record of its own
    entity; the record is picked by what it holds, not by a time stamp, where it can be."""
    from envfactory.tasks.realfirst import RealWalker

    tools = [
        {"name": "list_tasks", "description": "List tasks.", "inputSchema": {"type": "object", "properties": {}}},
        {"name": "list_notes", "description": "List notes.", "inputSchema": {"type": "object", "properties": {}}},
        {"name": "add_task", "description": "Create a task.", "inputSchema": {"type": "object", "properties": {
            "title": {"type": "string"}}, "required": ["title"]}},
        {"name": "schedule_task", "description": "Set a task's due date.", "inputSchema": {"type": "object",
            "properties": {"task_id": {"type": "integer"}, "due": {"type": "string", "format": "date"}},
            "required": ["task_id", "due"]}},
        {"name": "delete_note", "description": "Delete a note.", "inputSchema": {"type": "object", "properties": {
            "note_id": {"type": "integer"}}, "required": ["note_id"]}},
    ]  # fmt: skip
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tools.json"
        path.write_text(json.dumps({"tools": tools}))
        env = Environment(synthesize(str(path), name="todo"))
    walker = RealWalker(env, env.spec)
    assert not walker._refers("add_task", "title", "list_tasks")  # the created record's own title
    assert not walker._refers("schedule_task", "due", "list_tasks")  # a value the update stores
    assert walker._refers("schedule_task", "task_id", "list_tasks")
    assert not walker._refers("schedule_task", "task_id", "list_notes")  # a note's id is no task's
    made = [walker.task(0, attempt) for attempt in range(8)]
    for task in made:
        write = task.gold[1]
        assert write.tool in ("schedule_task", "delete_note")
        read = task.gold[0].tool
        assert (read, write.tool) in (("list_tasks", "schedule_task"), ("list_notes", "delete_note"))


def test_a_walk_may_act_on_a_second_record_of_the_same_answer(tmp_path: Path) -> None:
    """Where no write takes what the first answered, the walk picks a second record of the same read
    by a text it alone holds: three calls, each write needing the read ("Then find the ticket whose
    title is ... and close it")."""
    env = _env(tmp_path)
    walked, _ = generate_tasks(env, 30, seed=0, first=True)
    ours = [t for t in walked if t.origin is not None and t.origin.generator == WALKED and len(t.gold) == 3]
    seconds = [t for t in ours if t.gold[1].args["ticket_id"] != t.gold[2].args["ticket_id"]]
    assert seconds
    for task in seconds:
        assert " Then find the ticket whose " in task.instruction
        assert str(task.gold[2].args["ticket_id"]) not in task.instruction.split(" Then find ")[1].split(" and ")[0]
        assert regenerate(env, task) == task


def test_an_aside_closing_a_write_is_left_out() -> None:
    from envfactory.tasks.realfirst import _on_it

    assert _on_it("Mark a task as in-review (submit for review)", "task") == "mark it as in-review"


def test_a_field_named_as_a_count_is_a_number_where_nothing_types_it() -> None:
    from envfactory.values import ValueMaker

    vm = ValueMaker(0)
    assert all(isinstance(vm.value({}, "overdue_days", "task"), int) for _ in range(5))
    assert isinstance(vm.value({}, "title", "task"), str)
    assert isinstance(vm.value({"type": "string"}, "overdue_days", "task"), str)  # a declared type stands


def test_an_object_of_changes_is_told_by_its_members() -> None:
    from envfactory.ir.task import Call
    from envfactory.tasks.realfirst import _told

    call = Call(tool="edit_ticket", args={"ticket_id": 3, "updates": {"description": "Printer jams", "priority": 2}})
    assert _told(call, "ticket_id") == " (description 'Printer jams', priority 2)"
    assert _told(Call(tool="close", args={"ticket_id": 3}), "ticket_id") == ""


def test_a_walk_never_feeds_a_write_what_the_read_was_asked_with(tmp_path: Path) -> None:
    """A user's posts all name that user: "follow the author of the post whose text is X" takes
    nothing the read answered. Here every ticket's id is among what the read is asked with, so no
    walk is left (``Rejected``), where one was before."""
    import pytest

    from envfactory.tasks.errors import Rejected
    from envfactory.tasks.realfirst import RealWalker, Records

    env = _env(tmp_path)
    walker = RealWalker(env, env.spec)
    assert walker.task(0, 0).gold[1].tool in ("close_ticket", "edit_ticket")
    recs = next(r for r in walker.lists if r.tool == "get_user_tickets")
    asked = tuple((f"hint_{i}", row["id"]) for i, row in enumerate(recs.rows))
    walker.lists = [Records(recs.tool, asked, recs.rows)]
    for attempt in range(3):
        with pytest.raises(Rejected, match="which the read was asked with"):
            walker.task(0, attempt)


def test_a_walk_reads_what_the_signed_in_user_owns_by_their_own_name(tmp_path: Path) -> None:
    """A read that needs the user's own name (``get_user_posts(username)``) is walked on a
    synthesized environment too: the user knows the name their session holds, as they know a bound
    object's."""
    post = {"type": "dict", "properties": {"id": {"type": "integer"}, "username": {"type": "string"},
                                           "content": {"type": "string"}}}  # fmt: skip
    tools = [
        {"name": "login", "description": "Log in with a username and password.",
         "parameters": {"type": "dict", "properties": {"username": {"type": "string"}, "password": {"type": "string"}},
                        "required": ["username", "password"]},
         "response": {"type": "dict", "properties": {"login_status": {"type": "boolean"}}}},
        {"name": "get_user_posts", "description": "Get every post of a user.",
         "parameters": {"type": "dict", "properties": {"username": {"type": "string"}}, "required": ["username"]},
         "response": post},
        {"name": "delete_post", "description": "Delete a post.",
         "parameters": {"type": "dict", "properties": {"post_id": {"type": "integer"}}, "required": ["post_id"]},
         "response": {"type": "dict", "properties": {"deleted": {"type": "boolean"}}}},
    ]  # fmt: skip
    path = tmp_path / "posts.json"
    path.write_text(json.dumps(tools))
    spec = synthesize(str(path), name="posts")
    who = "ann_k"  # as a model learned from a real object holds its signed-in user
    session = [{**spec.initial_state["session"][0], "username": who}]
    rows = [{"id": i, "username": who, "content": text} for i, text in enumerate(("Hello there", "Off to work"))]
    env = Environment(spec.model_copy(update={"initial_state": {**spec.initial_state, "post": rows,
                                                                "session": session}}))  # fmt: skip
    walked, _ = generate_tasks(env, 4, seed=0, first=True)
    ours = [t for t in walked if t.origin is not None and t.origin.generator == WALKED]
    assert ours, [t.instruction for t in walked]
    for task in ours:
        assert task.gold[0].tool == "get_user_posts" and task.gold[0].args == {"username": who}
        assert task.gold[-1].tool == "delete_post"


def test_a_second_write_that_undoes_the_first_is_dropped_not_the_walk(tmp_path: Path) -> None:
    """Send a message, then "delete the latest message sent to" the same user: the state is back
    where it started. The walk keeps its first write instead of being thrown away (a model holding
    no message counter had lost most of its walks so), then acts on a second record where it can."""
    from envfactory.ir.effect import DeleteEffect

    user = {"type": "dict", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}
    tools = [
        {"name": "list_users", "description": "List every user.",
         "parameters": {"type": "dict", "properties": {}, "required": []}, "response": user},
        {"name": "send_message", "description": "Send a message to a user.",
         "parameters": {"type": "dict", "required": ["receiver_id", "message"],
                        "properties": {"receiver_id": {"type": "string"}, "message": {"type": "string"}}},
         "response": {"type": "dict", "properties": {"message_id": {"type": "integer"}}}},
        {"name": "delete_message", "description": "Delete the latest message sent to a receiver.",
         "parameters": {"type": "dict", "properties": {"receiver_id": {"type": "string"}}, "required": ["receiver_id"]},
         "response": {"type": "dict", "properties": {"deleted": {"type": "boolean"}}}},
    ]  # fmt: skip
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(tools))
    spec = synthesize(str(path), name="chat")
    latest = DeleteEffect(entity="message", key_arg="receiver_id", by="receiver_id")
    spec = spec.model_copy(
        update={
            "behaviours": tuple(
                b.model_copy(update={"effect": latest}) if b.tool == "delete_message" else b for b in spec.behaviours
            )
        }
    )
    env = Environment(spec)
    walked, _ = generate_tasks(env, 10, seed=0, first=True)
    ours = [t for t in walked if t.origin is not None and t.origin.generator == WALKED]
    assert len(ours) == len(walked) == 10
    for task in ours:  # the first write kept, and where one can be, a write on a second user instead
        assert [c.tool for c in task.gold][:2] == ["list_users", "send_message"]
        assert {c.tool for c in task.gold[2:]} <= {"send_message"} and "delete" not in task.instruction
        assert regenerate(env, task) == task
    seconds = [t for t in ours if len(t.gold) == 3]
    assert seconds and all(t.gold[1].args["receiver_id"] != t.gold[2].args["receiver_id"] for t in seconds)

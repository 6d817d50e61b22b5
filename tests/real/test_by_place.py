"""A reply holding the record a write left is worded by place: each member as the model holds it, not
as an argument happened to give it."""

from __future__ import annotations

from tests.synth.function_lists import synthesize_tools

from envfactory.real.trace import Sequence, Trace, TraceCall
from envfactory.runtime.environment import Environment
from envfactory.synth.chooser import choose
from envfactory.synth.proposers.shapes import template_of

TOOLS = [
    {"name": "add_todo", "description": "Add a todo. Returns the todo.",
     "inputSchema": {"type": "object", "required": ["text"], "properties": {
         "text": {"type": "string"}, "priority": {"type": "string", "enum": ["high", "med", "low"]}}}},
    {"name": "edit_todo", "description": "Edit a todo; pass only the fields to change. Returns the todo.",
     "inputSchema": {"type": "object", "required": ["id"], "properties": {
         "id": {"type": "integer"}, "text": {"type": "string"}, "done": {"type": "boolean"},
         "priority": {"type": "string", "enum": ["high", "med", "low"]}}}},
]  # fmt: skip


def test_a_member_the_model_holds_at_the_same_place_is_worded_as_its_own_by_place() -> None:
    real = {"id": 1, "done": False, "prio": "med", "tags": []}
    model = {"id": 1, "done": False, "prio": "med", "tags": [], "rank": 4}  # not the reply whole
    args = {"id": 1, "done": False}
    assert template_of(real, args, model) == {"id": "{arg.id}", "done": "{arg.done}", "prio": "{out.prio}", "tags": []}
    assert template_of(real, args, model, by_place=True) == {
        "id": "{out.id}", "done": "{out.done}", "prio": "{out.prio}", "tags": "{out.tags}"}  # fmt: skip
    # a value of another kind is not the model's member: `1` is not `True`
    assert template_of({"n": 1, "m": 7}, {}, {"n": True, "m": 8}, by_place=True) == {"n": 1, "m": 7}


def _reply(todo: dict) -> dict:
    """The record as the real side answers it: its priority as ``prio``."""
    return {"id": todo["id"], "text": todo["text"], "done": todo["done"], "prio": todo["priority"]}


def _trace() -> Trace:
    sequences = []
    for s in range(6):
        todo = {"id": 1, "text": f"task {s}", "done": False, "priority": ["high", "med", "low"][s % 3]}
        calls = [TraceCall(tool="add_todo", arguments={"text": todo["text"], "priority": todo["priority"]}, ok=True,
                           output=_reply(todo), sequence=s)]  # fmt: skip
        # every sequence edits a todo's text while it is open and while it is done: what `done` left out
        # stands for is no one value, the record's own
        edits = [{"id": 1, "text": f"new {s}"}, {"id": 1, "done": True}, {"id": 1, "text": f"then {s}"},
                 {"id": 1, "done": False, "text": f"last {s}"}]  # fmt: skip
        for args in edits:
            todo.update({k: v for k, v in args.items() if k != "id"})
            calls.append(TraceCall(tool="edit_todo", arguments=args, ok=True, output=_reply(todo), sequence=s))
        sequences.append(Sequence(id=s, calls=tuple(calls)))
    return Trace(source="t", sequences=tuple(sequences))


def test_learned_an_edit_answers_the_record_it_left_whatever_it_was_given(tmp_path) -> None:
    learned = choose(synthesize_tools(tmp_path, "todos", TOOLS), _trace())
    episode = Environment(learned).episode()
    episode.call_tool("add_todo", {"text": "milk", "priority": "high"})
    episode.call_tool("edit_todo", {"id": 1, "done": True})
    edited = episode.call_tool("edit_todo", {"id": 1, "text": "oat milk"})  # done left out: still done
    assert edited.data == {"id": 1, "text": "oat milk", "done": True, "prio": "high"}, edited

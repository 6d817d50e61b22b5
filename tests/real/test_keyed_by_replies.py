"""A write naming its record by a bare ``id`` among several entities, told by the record its replies
answer; a key a reply echoes is no count of the state."""

from __future__ import annotations

from tests.synth.function_lists import synthesize_tools

from envfactory.ir.effect import FallbackEffect
from envfactory.real.keypool import made_up
from envfactory.real.replay import replay
from envfactory.real.trace import Sequence, Trace, TraceCall
from envfactory.runtime.environment import Environment
from envfactory.synth.candidates import Evidence, Pair
from envfactory.synth.chooser import choose
from envfactory.synth.proposers.replies import state_counts

TOOLS = [
    {"name": "add_todo", "description": "Add a todo. Returns the todo.",
     "inputSchema": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}},
    {"name": "mark_done", "description": "Mark the todo with the given id as done. Returns the updated todo.",
     "inputSchema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}},
    {"name": "edit_todo", "description": "Edit a todo's text. Returns the todo.",
     "inputSchema": {"type": "object", "required": ["id"], "properties": {
         "id": {"type": "integer"}, "text": {"type": "string"}}}},
    {"name": "open_dashboard", "description": "Return the URL of the dashboard.",
     "inputSchema": {"type": "object", "properties": {}}},
]  # fmt: skip


def _trace() -> Trace:
    texts = ["buy milk", "call bob", "pay rent", "walk dog", "read book", "fix bike"]
    sequences = []
    for s in range(6):
        calls: list[TraceCall] = [TraceCall(tool="open_dashboard", ok=True, output="http://localhost:8765", sequence=s)]
        todos: dict[int, dict] = {}
        todos[1] = {"id": 1, "done": False, "text": texts[s]}  # one todo a sequence: its id is how many there are
        calls.append(TraceCall(tool="add_todo", arguments={"text": texts[s]}, ok=True, output=dict(todos[1]),
                               sequence=s))  # fmt: skip
        for words in (f"new {texts[s - 1]}", f"newer {texts[s - 2]}"):
            todos[1]["text"] = words
            calls.append(TraceCall(tool="edit_todo", arguments={"id": 1, "text": words}, ok=True, sequence=s,
                                   output=dict(todos[1])))  # fmt: skip
        todos[1]["done"] = True
        calls.append(TraceCall(tool="mark_done", arguments={"id": 1}, ok=True, output=dict(todos[1]), sequence=s))
        calls.append(TraceCall(tool="mark_done", arguments={"id": 9}, ok=False, error="not_found", sequence=s))
        todos[1]["text"] = f"last {texts[s - 3]}"  # still there, and done
        calls.append(TraceCall(tool="edit_todo", arguments={"id": 1, "text": todos[1]["text"]}, ok=True, sequence=s,
                               output=dict(todos[1])))  # fmt: skip
        sequences.append(Sequence(id=s, calls=tuple(calls)))
    return Trace(source="t", sequences=tuple(sequences))


def test_a_write_naming_a_bare_id_among_entities_acts_on_the_record_its_replies_answer(tmp_path) -> None:
    spec = synthesize_tools(tmp_path, "todos", TOOLS)
    assert len(spec.state_schema.entities) == 2 and isinstance(spec.behaviour("mark_done").effect, FallbackEffect)
    learned = choose(spec, _trace())
    episode = Environment(learned).episode()
    episode.call_tool("add_todo", {"text": "a"})
    episode.call_tool("add_todo", {"text": "b"})
    marked = episode.call_tool("mark_done", {"id": 2})
    assert marked.ok and marked.data == {"id": 2, "done": True, "text": "b"}, marked
    # the id an edit echoes is the record's, not how many records are open (one, on every learning call)
    assert episode.call_tool("edit_todo", {"id": 1, "text": "c"}).data == {"id": 1, "done": False, "text": "c"}
    assert not episode.call_tool("mark_done", {"id": 7}).ok


def test_a_key_a_reply_answers_or_echoes_is_never_read_as_a_count_of_the_state(tmp_path) -> None:
    spec = synthesize_tools(tmp_path, "todos", TOOLS)
    # the k-th todo made: its id and how many are open are both k, and an edit echoes the id it was given
    made = [Pair({"text": t}, True, {"id": k, "open": k, "text": t}, True, {"id": k, "text": t},
                 tallies={"{count:todo}": k}) for k, t in enumerate("abc", 1)]  # fmt: skip
    edits = [Pair({"id": k, "text": t}, True, {"id": k, "done": False, "text": t}, True, {"id": k, "text": t},
                  tallies={"{count:todo}": k}) for k, t in enumerate("abc", 1)]  # fmt: skip
    (counted,) = state_counts(spec, Evidence({"add_todo": made, "edit_todo": edits}))
    answer = counted.behaviour.answer
    assert counted.tool == "add_todo" and answer is not None
    assert answer.template == {"id": "{out.id}", "open": "{count:todo}", "text": "{arg.text}"}


SESSIONS = [
    {"name": "list_sessions", "description": "List the sessions.", "inputSchema": {"type": "object", "properties": {}},
     "outputSchema": {"type": "object", "properties": {"sessions": {"type": "array", "items": {
         "type": "object", "properties": {"id": {"type": "string"}, "title": {"type": "string"}}}}}}},
    {"name": "summarize", "description": "Summarize what was noted.",
     "inputSchema": {"type": "object", "properties": {}},
     "outputSchema": {"type": "object", "properties": {
         "session_id": {"type": "string"}, "total": {"type": "integer"}}}},
]  # fmt: skip


def test_a_made_up_reply_pairs_none_of_its_ids_with_the_real_sides(tmp_path) -> None:
    spec = synthesize_tools(tmp_path, "notes", SESSIONS)
    assert made_up(spec, "summarize") and not made_up(spec, "list_sessions")
    listed = {"sessions": [{"id": "legacy", "title": "Notes"}]}
    calls = (TraceCall(tool="summarize", ok=True, output={"session_id": "legacy", "total": 0}),
             TraceCall(tool="list_sessions", ok=True, output=listed))  # fmt: skip
    seen: list[object] = []
    replay(spec, Trace(source="t", sequences=(Sequence(id=0, calls=calls),)),
           observe=lambda seq, i, call, *_: seen.append(call.output))  # fmt: skip
    # the model's summary made up its own session_id: the real `legacy` is still `legacy` after it
    assert seen[1] == listed

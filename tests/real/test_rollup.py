"""A field a record takes from the records under it: kept by the store, learned from the replies naming it."""

from __future__ import annotations

from pathlib import Path

from tests.synth.function_lists import STR, function, synthesize_functions

from envfactory.ir.effect import ActionEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.rollup import Rollup, rolled_rows
from envfactory.ir.state import Entity, StateSchema
from envfactory.real.replay import replay
from envfactory.real.trace import Sequence, Trace, TraceCall
from envfactory.runtime.store import BaseState, Store
from envfactory.synth.chooser import choose, observe
from envfactory.synth.proposers.children import rolled_up

# a task with subtasks: in progress while one is started or in review, pending while the rest wait,
# done once all are closed, cancelled when all were cancelled
RULE = Rollup(parent="parent", field="status", order=("in-progress", "pending", "done", "cancelled"),
              maps={"in-review": "in-progress"})  # fmt: skip


def test_a_parent_takes_the_first_value_in_order_its_children_hold_each_read_through_the_mapping() -> None:
    assert RULE.of(["pending", "done"]) == "pending"
    assert RULE.of(["done", "cancelled"]) == "done"
    assert RULE.of(["cancelled", "cancelled"]) == "cancelled"
    assert RULE.of(["in-review", "done"]) == "in-progress"
    assert RULE.of(["archived", None]) is None  # nothing it knows: the parent keeps its own


def test_the_store_rolls_a_write_and_a_delete_up_through_every_parent() -> None:
    entity = Entity(name="task", fields={"id": STR, "status": STR, "parent": STR}, rollup=RULE)
    rows = [{"id": "s1", "status": "pending"}, {"id": "s1.1", "status": "pending", "parent": "s1"},
            {"id": "s1.1.1", "status": "in-review", "parent": "s1.1"},
            {"id": "s1.2", "status": "done", "parent": "s1"}]  # fmt: skip
    started = rolled_rows(rows, "id", RULE)  # the starting records: deepest first
    assert [r["status"] for r in started] == ["in-progress", "in-progress", "in-review", "done"]
    store = Store(BaseState(StateSchema(entities=(entity,)), {"task": started}))
    store.put("task", "s1.1.1", {**store.get("task", "s1.1.1"), "status": "done"})
    assert store.get("task", "s1.1")["status"] == "done" and store.get("task", "s1")["status"] == "done"
    store.put("task", "s1.3", {"id": "s1.3", "status": "cancelled", "parent": "s1"})
    assert store.get("task", "s1")["status"] == "done"  # done comes before cancelled
    store.put("task", "s1.4", {"id": "s1.4", "status": "pending", "parent": "s1"})
    assert store.get("task", "s1")["status"] == "pending"
    store.delete("task", "s1.4")
    assert store.get("task", "s1")["status"] == "done"
    store.put("task", "s1", {**store.get("task", "s1"), "title": "renamed"})  # its own write keeps its value
    assert store.get("task", "s1")["status"] == "done"


TASK = {"id": {"type": "integer"}, "title": STR, "parent": {"type": "integer"},
        "status": {"type": "string", "enum": ["pending", "done"]}}  # fmt: skip
TOOLS = [
    function("create_task", "Create a task, or a subtask when parent is given.",
             {"title": STR, "parent": {"type": "integer"}}, ["title"], TASK),
    function("finish_task", "Mark a task as done.", {"task_id": {"type": "integer"}}, ["task_id"],
             {"id": {"type": "integer"}, "status": STR}),
    function("get_task", "Get a task.", {"task_id": {"type": "integer"}}, ["task_id"], TASK),
]  # fmt: skip


def _spec(tmp_path: Path) -> EnvSpec:
    spec = synthesize_functions(tmp_path, "tasks", TOOLS, state="empty")
    effect = spec.behaviour("finish_task").effect
    assert isinstance(effect, ActionEffect) and effect.to == "done", effect
    return spec


def _trace() -> Trace:
    """The real side: a task is done once every subtask is; its own status is never set."""

    def made(i: int, title: str, parent: int | None = None) -> TraceCall:
        row = {"id": i, "title": title, **({"parent": parent} if parent else {}), "status": "pending"}
        return TraceCall(tool="create_task", arguments={"title": title, **({"parent": parent} if parent else {})},
                         ok=True, output=row)  # fmt: skip

    def got(status: str) -> TraceCall:
        return TraceCall(tool="get_task", arguments={"task_id": 1}, ok=True,
                         output={"id": 1, "title": "ship", "status": status})  # fmt: skip

    def finish(i: int) -> TraceCall:
        return TraceCall(tool="finish_task", arguments={"task_id": i}, ok=True, output={"id": i, "status": "done"})

    sequences = []
    for s in range(8):
        calls = [made(1, "ship"), made(2, "docs", 1), made(3, "tests", 1), got("pending"), finish(2 + s % 2),
                 got("pending"), finish(3 - s % 2), got("done")]  # fmt: skip
        sequences.append(Sequence(id=s, calls=tuple(calls)))
    return Trace(source="tasks", sequences=tuple(sequences))


def test_a_status_the_replies_show_rolled_up_from_the_subtasks_is_learned_and_chosen(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    trace = _trace()
    evidence, before = observe(spec, trace)
    [candidate] = rolled_up(spec, evidence)
    [entity] = candidate.entities
    assert entity.rollup == Rollup(parent="parent", field="status", order=("pending", "done"))
    learned = choose(spec, trace, evidence_kind="traces")
    assert learned.state_schema["task"].rollup == entity.rollup
    assert "rolled-up" in {c.chosen.proposer for c in learned.choices}
    after = replay(learned, trace)
    assert before.output_exact is not None and after.output_exact == 1.0 > before.output_exact
    # a real side whose parent keeps its own status says nothing of the kind
    kept = Trace(source="tasks", sequences=tuple(
        s.model_copy(update={"calls": s.calls[:-1]}) for s in trace.sequences))  # fmt: skip
    assert rolled_up(spec, observe(spec, kept)[0]) == []


def test_an_action_the_real_side_accepts_from_a_value_the_descriptions_forbid_goes_from_it(tmp_path: Path) -> None:
    """The descriptions said a cancelled task cannot be finished: the model refuses to finish one, the
    real side accepts it twice: it goes from cancelled too (or from any status, a second candidate);
    refused as often as accepted, it stays forbidden."""
    from envfactory.runtime.environment import Environment
    from envfactory.synth.candidates import Evidence, Pair
    from envfactory.synth.proposers.writes import accepted_from

    spec = _spec(tmp_path)
    finish = spec.behaviour("finish_task")
    effect = finish.effect
    assert isinstance(effect, ActionEffect)
    strict = effect.model_copy(update={"forbidden_from": ("cancelled", "archived")})
    behaviours = tuple(b.model_copy(update={"effect": strict}) if b.tool == "finish_task" else b
                       for b in spec.behaviours)  # fmt: skip
    spec = spec.model_copy(update={"behaviours": behaviours})
    episode = Environment(spec).episode()
    assert episode.call_tool("create_task", {"title": "ship"}).ok
    assert episode.call_tool("finish_task", {"task_id": 1}).ok  # pending: allowed
    held = {"task": [{"id": 1, "title": "ship", "status": "cancelled"}]}
    accepted = Pair({"task_id": 1}, True, {"id": 1, "status": "done"}, False, "refused", held=held)
    candidates = accepted_from(spec, Evidence({"finish_task": [accepted, accepted]}))
    made = {c.summary: c.behaviour.effect for c in candidates}
    assert set(made) == {"goes to 'done' from cancelled as well", "goes to 'done' from any status"}
    assert made["goes to 'done' from cancelled as well"] == strict.model_copy(update={"forbidden_from": ("archived",)})
    assert made["goes to 'done' from any status"] == strict.model_copy(update={"forbidden_from": ()})
    twice_refused = Pair({"task_id": 1}, False, "cannot", False, "refused", held=held)
    assert accepted_from(spec, Evidence({"finish_task": [accepted, accepted, twice_refused, twice_refused]})) == []
    assert accepted_from(spec, Evidence({"finish_task": [accepted]})) == []  # once is no rule

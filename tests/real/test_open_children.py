"""An action held back by open records under the one it changes: learned from what the real side refused."""

from __future__ import annotations

import json
from pathlib import Path

from tests.synth.function_lists import STR, function

from envfactory.ir.effect import ActionEffect, Children, FallbackEffect
from envfactory.ir.env import EnvSpec
from envfactory.real.trace import Sequence, Trace, TraceCall
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.chooser import choose, observe
from envfactory.synth.proposers.children import open_children

TASK = {"id": {"type": "integer"}, "title": STR, "parent": {"type": "integer"},
        "status": {"type": "string", "enum": ["pending", "done", "cancelled"]}}  # fmt: skip
TOOLS = [
    function("create_task", "Create a task, or a subtask when parent is given.",
             {"title": STR, "parent": {"type": "integer"}}, ["title"], TASK),
    function("finish_task", "Mark a task as done. Use force=True to close all open subtasks.",
             {"task_id": {"type": "integer"}, "force": {"type": "boolean"}}, ["task_id"],
             {"id": {"type": "integer"}, "status": STR, "affected": {"type": "array", "items": {"type": "integer"}}}),
    function("get_task", "Get a task.", {"task_id": {"type": "integer"}}, ["task_id"], TASK),
]  # fmt: skip


def _spec(tmp_path: Path) -> EnvSpec:
    path = tmp_path / "tasks.jsonl"
    path.write_text("\n".join(json.dumps(f) for f in TOOLS))
    spec = synthesize(path, name="tasks", state="empty")
    effect = spec.behaviour("finish_task").effect
    assert isinstance(effect, ActionEffect) and effect.to == "done" and effect.children is None, effect
    return spec


def _made(i: int, title: str, parent: int | None = None) -> TraceCall:
    args: dict = {"title": title, **({"parent": parent} if parent else {})}
    row = {"id": i, "title": title, **({"parent": parent} if parent else {}), "status": "pending"}
    return TraceCall(tool="create_task", arguments=args, ok=True, output=row)


def _finish(i: int, ok: bool, force: bool | None = None, affected: list[int] | None = None) -> TraceCall:
    args: dict = {"task_id": i, **({"force": force} if force is not None else {})}
    out = {"id": i, "status": "done", **({"affected": affected} if affected else {})}
    return TraceCall(tool="finish_task", arguments=args, ok=ok, output=out if ok else None,
                     error=None if ok else "precondition_failed")  # fmt: skip


def _trace(closing: bool = True) -> Trace:
    """The real side: a task with an open subtask is refused until the subtask is done, or forced;
    ``closing``: half the sequences close the subtasks one by one first."""
    sequences = []
    for s in range(6):
        calls = [_made(1, f"ship {s}"), _made(2, f"docs {s}", parent=1), _made(3, f"tests {s}", parent=1)]
        if s % 2 and closing:
            calls += [_finish(1, False), _finish(2, True), _finish(1, False, force=False), _finish(3, True),
                      _finish(1, True)]  # fmt: skip
        else:
            calls += [_finish(3, True), _finish(1, False), _finish(1, True, force=True, affected=[2])]
        sequences.append(Sequence(id=s, calls=tuple(calls)))
    return Trace(source="tasks", sequences=tuple(sequences))


def test_open_records_under_one_hold_back_an_action_and_a_forced_call_closes_them(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    rule = Children(parent="parent", blocking=("pending",), force_arg="force", reported_as="affected")
    finish = spec.behaviour("finish_task")
    effect = finish.effect
    assert isinstance(effect, ActionEffect)
    held = finish.model_copy(update={"effect": effect.model_copy(update={"children": rule})})
    episode = Environment(spec.model_copy(update={"behaviours": tuple(
        held if b.tool == "finish_task" else b for b in spec.behaviours)})).episode()  # fmt: skip
    for title, parent in (("ship", None), ("docs", 1), ("tests", 1)):
        assert episode.call_tool("create_task", {"title": title, **({"parent": parent} if parent else {})}).ok
    refused = episode.call_tool("finish_task", {"task_id": 1})
    assert not refused.ok and refused.error == "precondition_failed"
    assert "(2, 3)" in refused.content and "force=true" in refused.content
    assert episode.call_tool("get_task", {"task_id": 1}).data["status"] == "pending"  # nothing changed
    assert episode.call_tool("finish_task", {"task_id": 3}).ok  # a subtask has none under it
    forced = episode.call_tool("finish_task", {"task_id": 1, "force": True})
    assert forced.ok and forced.data["affected"] == [2], forced
    assert episode.call_tool("get_task", {"task_id": 2}).data["status"] == "done"
    assert "affected" not in episode.call_tool("get_task", {"task_id": 1}).data  # said, not kept


def test_the_rule_is_read_off_the_calls_the_real_side_refused(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    evidence = observe(spec, _trace())[0]
    (candidate,) = [c for c in open_children(spec, evidence) if c.tool == "finish_task"]
    effect = candidate.behaviour.effect
    assert isinstance(effect, ActionEffect)
    assert effect.children == Children(
        parent="parent", blocking=("pending",), force_arg="force", reported_as="affected"
    )
    # a refusal chosen in its place (while the model's keys were not yet the real side's): the action
    # the descriptions gave is refined all the same, from what the model held when it refused (which
    # is what the calls it refused left: here, sequences that force the subtasks closed)
    refusing = spec.behaviour("finish_task").model_copy(
        update={"effect": FallbackEffect(reason="precondition_failed", writes=True)}
    )
    replaced = spec.model_copy(update={"behaviours": tuple(
        refusing if b.tool == "finish_task" else b for b in spec.behaviours)})  # fmt: skip
    evidence = observe(replaced, _trace(closing=False), described=spec)[0]
    assert "finish_task" in evidence.described and evidence.pairs["finish_task"][0].held
    (again,) = [c for c in open_children(replaced, evidence) if c.tool == "finish_task"]
    refined = again.behaviour.effect
    assert isinstance(refined, ActionEffect) and refined.children is not None
    # the model, refusing, never finished the subtask the real side did: which keys a reply lists is not told
    assert refined.children.model_copy(update={"reported_as": "affected"}) == effect.children
    assert open_children(replaced, observe(replaced, _trace(closing=False))[0]) == []  # nothing said what it was
    # a real side that finished the task whatever was under it: no such rule
    calls = (_made(1, "a"), _made(2, "b", parent=1), _finish(1, True))
    lenient = Trace(source="tasks", sequences=tuple(Sequence(id=s, calls=calls) for s in range(4)))
    assert open_children(spec, observe(spec, lenient)[0]) == []


def test_the_chooser_takes_the_rule_and_the_learned_model_refuses_as_the_real_side_did(tmp_path: Path) -> None:
    learned = choose(_spec(tmp_path), _trace())
    effect = learned.behaviour("finish_task").effect
    assert isinstance(effect, ActionEffect) and effect.children is not None, learned.behaviour("finish_task")
    episode = Environment(learned).episode()
    episode.call_tool("create_task", {"title": "ship"})
    episode.call_tool("create_task", {"title": "docs", "parent": 1})
    assert not episode.call_tool("finish_task", {"task_id": 1}).ok
    assert episode.call_tool("finish_task", {"task_id": 1, "force": True}).ok

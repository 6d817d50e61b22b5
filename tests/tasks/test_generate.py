import re
from pathlib import Path

import pytest

from envfactory.ir.task import Goal, Task
from envfactory.runtime.environment import Environment
from envfactory.tasks.generate import TaskFactory, baselines, generate_tasks, regenerate
from envfactory.tasks.instantiate import Rejected
from envfactory.tasks.selftest import SelfTest
from envfactory.tasks.taskset import TaskSet, split_tasks, task_line, write_tasks


@pytest.fixture(scope="module")
def made(bundled_envs: dict[str, Environment]) -> dict[str, list[Task]]:
    return {name: generate_tasks(env, 40, seed=3)[0] for name, env in bundled_envs.items()}


def test_every_environment_yields_distinct_self_tested_tasks(made, bundled_envs) -> None:
    for name, tasks in made.items():
        assert len(tasks) == 40, name
        assert len({task_line(t) for t in tasks}) == 40
        test = SelfTest(bundled_envs[name], seed=99)
        for task in tasks[:10]:
            assert test.check(task) is None, (name, task.id)
            assert task.gold and task.goal.state_hash and task.instruction


def test_instructions_never_name_ids_the_agent_must_look_up(made) -> None:
    for tasks in made.values():
        for task in tasks:
            told = {str(v) for n in task.blueprint.nodes for v in n.args.values()}  # ids the user knows
            named = set(re.findall(r"\b[a-z]+_\d{4}\b", task.instruction))
            assert named <= told, task.instruction
            fed = {e.dst_arg for e in task.blueprint.edges if e.dst_arg}
            assert all(
                a not in n.args
                for n in task.blueprint.calls
                for a in fed
                if any(e.dst == n.id and e.dst_arg == a for e in task.blueprint.edges)
            )
            assert not any(c.tool in task.instruction for c in task.gold)  # never the tool sequence


def test_difficulty_spans_single_calls_to_long_multi_write_reasoning(made) -> None:
    tasks = [t for ts in made.values() for t in ts]
    assert any(len(t.gold) == 1 for t in tasks)
    assert any(len(t.gold) >= 4 and len(t.blueprint.reasoning) >= 2 for t in tasks)
    multi = [t for t in tasks if len({n.entity for n in t.blueprint.writes}) >= 2]
    assert multi, "no task writes to two different entities"
    assert {t.level for t in tasks} >= {1, 2, 3, 4, 5}


def test_baseline_agents_do_not_solve_the_tasks(made, bundled_envs) -> None:
    for name, tasks in made.items():
        rates = baselines(bundled_envs[name], tasks, seed=0)
        assert rates["no-op"] == 0.0 and rates["read-only"] == 0.0, name
        assert rates["random"] <= 0.05, (name, rates)


def test_same_seed_same_bytes_and_regeneration_from_a_line(bundled_envs, made, tmp_path: Path) -> None:
    env = bundled_envs["library"]
    again, _ = generate_tasks(env, 40, seed=3)
    assert [task_line(t) for t in again] == [task_line(t) for t in made["library"]]
    other, _ = generate_tasks(env, 40, seed=4)
    assert [task_line(t) for t in other] != [task_line(t) for t in again]
    path = write_tasks(tmp_path / "lib.jsonl", again)
    line = TaskSet(path).line(17)
    task = Task.model_validate_json(line)
    assert task_line(regenerate(env, task)) == line


def test_taskset_random_access_and_splits(made, tmp_path: Path) -> None:
    tasks = made["shop"]
    path = write_tasks(tmp_path / "shop.jsonl", tasks)
    ts = TaskSet(path)
    assert len(ts) == 40 and ts[7] == tasks[7] and ts[-1] == tasks[-1]
    with pytest.raises(IndexError):
        ts[40]
    splits = split_tasks(tasks, test_fraction=0.25, heldout_tools=["refund_order"], seed=1)
    assert sorted(i for ids in splits.values() for i in ids) == sorted(t.id for t in tasks)
    held = {t.id for t in tasks if any(c.tool == "refund_order" for c in t.gold)}
    assert held <= set(splits["heldout"])
    assert 0 < len(splits["test"]) < len(splits["train"])
    assert split_tasks(tasks, test_fraction=0.25, heldout_tools=["refund_order"], seed=1) == splits


def test_verifier_gives_reasons_and_reads_numbers_leniently(bundled_envs) -> None:
    env = bundled_envs["shop"]
    factory = TaskFactory(env)
    task = next(t for t in (_try(factory, a) for a in range(200)) if t is not None and t.goal.answer)
    episode = env.episode(max_steps=100)
    episode.reset(task=task)
    for call in task.gold:
        episode.call_tool(call.tool, call.args)
    stated = " and ".join(f"{float(fact):,.2f}" for fact in task.goal.answer)  # 1,234.50 states 1234.5
    episode.respond(f"The answers are {stated}.")
    assert episode.verify().success
    wrong = task.model_copy(
        update={"goal": Goal(state_hash=task.goal.state_hash, rows=task.goal.rows, answer=("999999",))}
    )
    episode.reset(task=wrong)
    for call in task.gold:
        episode.call_tool(call.tool, call.args)
    episode.respond(f"The answers are {stated}.")
    assert episode.verify().reasons == ("the reply does not state '999999'",)


def _try(factory: TaskFactory, attempt: int) -> Task | None:
    try:
        return factory.task(0, attempt)
    except Rejected:
        return None

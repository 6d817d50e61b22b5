"""The warm start: a teacher that follows gold plans through the candidates, and cloning it."""

import json
from pathlib import Path

import pytest
import torch

from envfactory.rl.drrn import DRRN
from envfactory.rl.imitation import Imitator, clone, demonstrations
from envfactory.rl.rollout import rollout
from envfactory.rl.trainer import TrainConfig, train
from envfactory.runtime.environment import Environment
from envfactory.tasks.generate import generate_tasks
from envfactory.users.scripted import ScriptedUser
from envfactory.wrappers import Randomization, randomize


@pytest.fixture(scope="module")
def banking_tasks(bundled_envs: dict[str, Environment]):
    tasks = generate_tasks(bundled_envs["banking"], 60, seed=4)[0]
    return [t for t in tasks if t.level <= 3 and not t.goal.answer]


def teach(env: Environment, task, randomization: Randomization | None = None):
    episode = env.episode(user=ScriptedUser())
    if randomization is not None:
        episode = randomize(episode, randomization, seed=2)
    teacher = Imitator(episode=episode)
    return teacher, rollout(episode, task, teacher, seed=2)


def test_the_teacher_reads_before_it_writes(bundled_envs, banking_tasks) -> None:
    env = bundled_envs["banking"]
    lookups = [t for t in banking_tasks if t.level == 3]
    solved = [t for t in lookups if (r := teach(env, t))[1].success and not r[0].stuck]
    assert len(solved) >= len(lookups) * 0.6, (len(solved), len(lookups))
    teacher, result = teach(env, solved[0])
    assert result.tool_calls == len(solved[0].gold) and len(teacher.record) == result.steps


def test_the_teacher_retries_faults_pages_lists_and_maps_renamed_tools(bundled_envs, banking_tasks) -> None:
    env = bundled_envs["banking"]
    task = next(t for t in banking_tasks if t.level == 3 and teach(env, t)[1].success)
    _, faulted = teach(env, task, Randomization(faults={"transient_rate": 1.0}))
    assert faulted.success and faulted.tool_calls == 2 * len(task.gold)  # every call fails once, then goes through
    _, paged = teach(env, task, Randomization(output={"paginate": True, "page_size": 2}))
    assert paged.success and paged.tool_calls > len(task.gold)
    _, renamed = teach(env, task, Randomization(descriptions={"rename": True, "paraphrase": True}))
    assert renamed.success


def test_cloning_reproduces_the_teacher(bundled_envs, banking_tasks) -> None:
    env = bundled_envs["banking"]
    demos = demonstrations({"banking": env}, {"banking": banking_tasks[:20]})
    assert len(demos) >= 20 and all(0 <= i < len(actions) for _, actions, i, _ in demos)
    torch.manual_seed(0)
    model = DRRN()
    losses = clone(model, demos, 6)
    assert losses[-1] < losses[0] / 3
    agree = [int(model(s, a).argmax()) == i for s, a, i, _ in demos]
    assert sum(agree) >= 0.75 * len(agree), (sum(agree), len(agree))  # some candidates look alike


def test_training_with_a_warm_start_records_it(bundled_envs, banking_tasks, tmp_path: Path) -> None:
    config = TrainConfig(iterations=2, tasks_per_batch=4, warm_start=3, seed=0)
    train({"banking": bundled_envs["banking"]}, {"banking": banking_tasks[:12]}, config, tmp_path)
    record = json.loads((tmp_path / "warm_start.json").read_text())["warm_start"]
    assert record["decisions"] > 12 and record["loss_by_epoch"][-1] < record["loss_by_epoch"][0]

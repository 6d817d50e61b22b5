"""Training smoke test (about half a minute): success rises above the random policy's."""

import json
from pathlib import Path

import pytest

from envfactory.eval.metrics import summarize
from envfactory.eval.runner import evaluate
from envfactory.rl.drrn import DRRNPolicy
from envfactory.rl.policy import RandomPolicy
from envfactory.rl.trainer import TrainConfig, load_model, train
from envfactory.runtime.environment import Environment
from envfactory.tasks.generate import generate_tasks


@pytest.fixture(scope="module")
def library_tasks(bundled_envs: dict[str, Environment]):
    tasks = [t for t in generate_tasks(bundled_envs["library"], 60, seed=11)[0] if t.level <= 2]
    return tasks[: len(tasks) * 2 // 3], tasks[len(tasks) * 2 // 3 :]


def test_training_beats_the_random_policy_on_held_out_tasks(bundled_envs, library_tasks, tmp_path: Path) -> None:
    env = bundled_envs["library"]
    train_tasks, test_tasks = library_tasks
    config = TrainConfig(iterations=15, tasks_per_batch=8, group=4, estimator="erpo", seed=1)
    model = train({"library": env}, {"library": train_tasks}, config, tmp_path / "run")
    trained = summarize(evaluate(env, test_tasks, lambda s: DRRNPolicy(model, seed=s, greedy=True)))["success"]
    chance = summarize(evaluate(env, test_tasks, lambda s: RandomPolicy(s), trials=3))["success"]
    assert trained > chance + 0.3, (trained, chance)
    metrics = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert len(metrics) == 15 and metrics[-1]["reward"] > metrics[0]["reward"] - 0.25
    reloaded = load_model(tmp_path / "run" / "checkpoint.pt")
    again = summarize(evaluate(env, test_tasks, lambda s: DRRNPolicy(reloaded, seed=s, greedy=True)))["success"]
    assert again == trained


def test_resume_continues_from_the_checkpoint(bundled_envs, library_tasks, tmp_path: Path) -> None:
    env = bundled_envs["library"]
    train_tasks, _ = library_tasks
    config = TrainConfig(
        iterations=2, tasks_per_batch=2, group=2, checkpoint_every=1, randomization={"faults": "random"}
    )
    train({"library": env}, {"library": train_tasks}, config, tmp_path)
    config.iterations = 3
    train({"library": env}, {"library": train_tasks}, config, tmp_path, resume=True)
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["iteration"] for line in lines] == [1, 2, 3]
    with pytest.raises(ValueError, match="unknown estimator"):
        train({"library": env}, {"library": train_tasks}, TrainConfig(estimator="ppo"))


@pytest.mark.parametrize("sampler", ["curriculum", "adversarial", "dro", "cvar"])
def test_every_sampler_drives_training(bundled_envs, library_tasks, sampler: str, tmp_path: Path) -> None:
    env = bundled_envs["library"]
    config = TrainConfig(iterations=2, tasks_per_batch=3, group=2, sampler=sampler)
    train({"library": env}, {"library": library_tasks[0]}, config, tmp_path)
    assert len((tmp_path / "metrics.jsonl").read_text().splitlines()) == 2
    assert any((tmp_path / "tensorboard").iterdir())  # TensorBoard event files
    with pytest.raises(ValueError, match="unknown sampler"):
        train({"library": env}, {"library": library_tasks[0]}, TrainConfig(iterations=1, sampler="greedy"))


def test_a_fresh_run_in_the_same_folder_replaces_the_curve(bundled_envs, library_tasks, tmp_path: Path) -> None:
    env = bundled_envs["library"]
    train_tasks, _ = library_tasks
    config = TrainConfig(iterations=2, tasks_per_batch=2, group=2, seed=3)
    for _ in range(2):  # the second run starts over (no resume): its curve is the whole file
        train({"library": env}, {"library": train_tasks}, config, tmp_path / "run")
    lines = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["iteration"] for line in lines] == [1, 2]

"""Held-out success along training: evaluation points, the task sample, KL by hand, and a run
that measures held-out success trains exactly like the same run without it."""

import json
from pathlib import Path

import pytest
import torch

from envfactory.rl.held_out import HELD_OUT_FILE, HeldOut, eval_points, sample_tasks
from envfactory.rl.losses import mean_kl
from envfactory.rl.trainer import TrainConfig, train
from envfactory.runtime.environment import Environment
from envfactory.tasks.generate import generate_tasks


def test_eval_points_by_hand() -> None:
    assert eval_points(40, 10) == [0, 10, 20, 30, 40]
    assert eval_points(25, 10) == [0, 10, 20, 25]  # the last iteration is always a point
    assert eval_points(3, 1) == [0, 1, 2, 3]
    assert eval_points(40, 0) == []


def test_mean_kl_by_hand() -> None:
    old = [torch.log(torch.tensor([0.5, 0.5])), torch.log(torch.tensor([1.0]))]
    new = [torch.log(torch.tensor([0.25, 0.75])), torch.log(torch.tensor([1.0]))]
    # decision 0: 0.5 ln(0.5/0.25) + 0.5 ln(0.5/0.75) = 0.5 ln 2 + 0.5 ln(2/3) = 0.143841; decision 1: 0
    assert mean_kl(old, new) == pytest.approx(0.143841 / 2, abs=1e-6)
    assert mean_kl(old, old) == 0.0 and mean_kl([], []) == 0.0


@pytest.fixture(scope="module")
def library_split(bundled_envs: dict[str, Environment]):
    tasks = [t for t in generate_tasks(bundled_envs["library"], 40, seed=5)[0] if t.level <= 2]
    assert len(tasks) >= 12, len(tasks)
    return tasks[:-6], tasks[-6:]


def test_the_sample_is_seeded_and_keeps_the_split_order(bundled_envs, library_split) -> None:
    _, test = library_split
    split = {"library": (bundled_envs["library"], test)}
    first = sample_tasks(split, 3, seed=1)
    assert first == sample_tasks(split, 3, seed=1) and len(first) == 3
    assert [test.index(t) for _, t in first] == sorted(test.index(t) for _, t in first)
    assert sample_tasks(split, 100, seed=1) == [("library", t) for t in test]


def test_held_out_evaluation_leaves_training_unchanged(bundled_envs, library_split, tmp_path: Path) -> None:
    env = bundled_envs["library"]
    train_tasks, test_tasks = library_split
    config = TrainConfig(iterations=3, tasks_per_batch=3, group=2, seed=2, randomization={"output": "random"})
    held_out = HeldOut({"held-out tasks": {"library": (env, test_tasks)}}, every=2, sample=4, seed=2)
    with_eval = train({"library": env}, {"library": train_tasks}, config, tmp_path / "a", held_out=held_out)
    without = train({"library": env}, {"library": train_tasks}, config, tmp_path / "b")

    def rows(run: str) -> list[dict]:
        return [
            {k: v for k, v in json.loads(line).items() if k != "seconds"}
            for line in (tmp_path / run / "metrics.jsonl").read_text().splitlines()
        ]

    assert rows("a") == rows("b")
    assert all(torch.equal(p, q) for p, q in zip(with_eval.parameters(), without.parameters(), strict=True))
    assert all("kl" in row and row["kl"] >= 0 for row in rows("a"))
    points = [json.loads(line) for line in (tmp_path / "a" / HELD_OUT_FILE).read_text().splitlines()]
    assert [(p["iteration"], p["split"], p["episodes"]) for p in points] == [
        (0, "held-out tasks", 4),
        (2, "held-out tasks", 4),
        (3, "held-out tasks", 4),
    ]
    assert all(0 <= p["success"] <= 1 for p in points)
    assert not (tmp_path / "b" / HELD_OUT_FILE).exists()

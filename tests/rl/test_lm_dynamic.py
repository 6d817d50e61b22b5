"""Dynamic sampling in the language-model recipe's RL stage: an iteration with ``draws`` above 1
draws more batches until ``tasks_per_batch`` groups carry a signal, and steps on those alone.

The rollouts are scripted (each draw's groups' advantages are given), so what is tested is the
loop itself: which groups reach the step, how many batches were drawn, with which seeds, and what
the metrics say; the rollouts themselves are tested on the model in ``test_lm.py``."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from envfactory.rl.lm import recipe
from envfactory.rl.lm.recipe import LMConfig, signalled
from envfactory.rl.lm.update import Sample
from envfactory.seeding import derive_seed


def sample(weight: float, tag: str) -> Sample:
    return Sample((1, 2, 3), (0, 1, 1), weight, tag)


def test_a_group_carries_a_signal_when_some_advantage_is_not_zero() -> None:
    samples = [sample(0.0, "a"), sample(0.0, "a"), sample(0.7, "b"), sample(-0.7, "b"), sample(0.0, "c"),
               sample(0.3, "c")]  # fmt: skip
    assert signalled(samples, 2) == 2
    assert signalled(samples[:2], 2) == 0
    assert signalled([], 2) == 0


# each draw's two groups of two episodes: 0 is a group of equal rewards, 1 a group that carries a signal
SCRIPT = [(0, 1), (0, 0), (1, 1), (1, 1)]


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    seen: dict[str, Any] = {"seeds": [], "stepped": []}

    def rollouts(model: Any, tokenizer: Any, envs: Any, batch: Any, config: LMConfig,
                 seed: int) -> tuple[list[Sample], list[Any], int]:  # fmt: skip
        draw = len(seen["seeds"])
        seen["seeds"].append(seed)
        samples, trajectories = [], []
        for g, (_, task) in enumerate(batch):
            signal = SCRIPT[draw][g]
            for k in range(config.group):
                samples.append(sample((1.0 if k == 0 else -1.0) if signal else 0.0, f"d{draw}g{g}"))
                trajectories.append(SimpleNamespace(reward=float(signal and k == 0), masked=False, task_id=task.id))
        return samples, trajectories, 10

    def step(model: Any, optimizer: Any, samples: list[Sample], kind: str, *, constant: float) -> float:
        seen["stepped"].append([s.key for s in samples])
        return 0.5

    monkeypatch.setattr(recipe, "rollouts", rollouts)
    monkeypatch.setattr(recipe, "step", step)
    monkeypatch.setattr(recipe, "_optimizer", lambda *a: None)
    monkeypatch.setattr(recipe, "_save", lambda *a: None)
    return seen


def reinforce(tmp_path: Path, draws: int) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    tasks = {"env": [SimpleNamespace(id=f"t{i}") for i in range(4)]}
    config = LMConfig(rl_iterations=1, tasks_per_batch=2, group=2, draws=draws, seed=5)
    model = SimpleNamespace(parameters=lambda: [])
    recipe._reinforce(model, None, {}, tasks, config, tmp_path, lines.append, done=0, resume=False)  # type: ignore[arg-type]
    return lines


def test_without_dynamic_sampling_one_batch_is_drawn_and_its_signal_stepped_on(
    scripted: dict[str, Any], tmp_path: Path
) -> None:
    (line,) = reinforce(tmp_path, draws=1)
    assert scripted["stepped"] == [["d0g1", "d0g1"]]  # the group of equal rewards carries nothing
    assert scripted["seeds"] == [derive_seed(5, "episodes", 0)]
    assert (line["draws"], line["episodes"], line["learned_from"]) == (1, 4, 2)


def test_dynamic_sampling_draws_until_enough_groups_carry_a_signal_and_no_further(
    scripted: dict[str, Any], tmp_path: Path
) -> None:
    (line,) = reinforce(tmp_path, draws=4)
    # draw 0 gives one group with a signal, draw 1 none, draw 2 two: the first of them fills the batch
    assert scripted["stepped"] == [["d0g1", "d0g1", "d2g0", "d2g0"]]
    assert scripted["seeds"] == [derive_seed(5, "episodes", 0), derive_seed(5, "episodes", 0, 1),
                                 derive_seed(5, "episodes", 0, 2)]  # fmt: skip
    assert (line["draws"], line["episodes"], line["learned_from"]) == (3, 12, 4)
    assert line["reward"] == pytest.approx(3 / 12)  # every episode drawn counts in the mean reward


def test_dynamic_sampling_stops_at_its_bound_with_what_it_found(scripted: dict[str, Any], tmp_path: Path) -> None:
    (line,) = reinforce(tmp_path, draws=2)
    assert scripted["stepped"] == [["d0g1", "d0g1"]]
    assert (line["draws"], line["episodes"], line["learned_from"]) == (2, 8, 2)


def test_the_cli_passes_draws_and_decode_rows_to_a_language_model_and_refuses_them_for_the_compact_policy(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from envfactory.cli import rl_cmd
    from envfactory.cli.main import app

    refused = CliRunner().invoke(app, ["train", str(tmp_path), "--tasks", str(tmp_path / "t.jsonl"), "--draws", "3"])
    assert refused.exit_code != 0 and "--draws" in refused.output and "--model" in refused.output
    seen: dict[str, Any] = {}
    monkeypatch.setattr(rl_cmd, "_load", lambda *a: ({}, {}))

    def train_lm(*args: Any) -> int:
        seen["args"] = args
        return 0

    monkeypatch.setattr(rl_cmd, "_train_lm", train_lm)
    ran = CliRunner().invoke(app, ["train", str(tmp_path), "--tasks", str(tmp_path / "t.jsonl"), "--model", "local",
                                   "--draws", "3", "--decode-rows", "4"])  # fmt: skip
    assert ran.exit_code == 0, ran.output
    assert seen["args"][-2:] == (3, 4)
    refused = CliRunner().invoke(app, ["train", str(tmp_path), "--tasks", str(tmp_path / "t.jsonl"),
                                       "--decode-rows", "4"])  # fmt: skip
    assert refused.exit_code != 0 and "--decode-rows" in refused.output and "--model" in refused.output

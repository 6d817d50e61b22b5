"""Held-out success along training: a few evaluation points, a fixed seeded sample of held-out
tasks per split, greedy episodes on episodes of their own.

Nothing here touches the trainer's random streams, its episodes or its sampler, so a run with
held-out evaluation trains exactly as the same run without it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from envfactory.eval.metrics import summarize
from envfactory.eval.runner import evaluate
from envfactory.ir.task import Task
from envfactory.runtime.environment import Environment
from envfactory.seeding import derive_seed

if TYPE_CHECKING:  # the model is torch's; reading a run folder's points needs no torch
    from envfactory.rl.drrn import DRRN

JSON = dict[str, object]
HELD_OUT_FILE = "held_out.jsonl"  # in a run folder: one row per split and evaluation point
Split = dict[str, tuple[Environment, list[Task]]]  # environment name -> (environment, its held-out tasks)


@dataclass
class HeldOut:
    """``splits``: label -> the environments and held-out tasks evaluated under that label."""

    splits: dict[str, Split] = field(default_factory=dict)
    every: int = 10  # iterations between evaluation points (0 and the last iteration are points too)
    sample: int = 30  # at most this many tasks per split, the same ones at every point
    seed: int = 0


def eval_points(iterations: int, every: int) -> list[int]:
    """The iterations after which held-out success is measured: 0 (before RL, after any warm
    start), every ``every``-th, and the last; none when ``every`` < 1."""
    if every < 1:
        return []
    return sorted({0, *range(every, iterations + 1, every), iterations})


def sample_tasks(split: Split, size: int, seed: int) -> list[tuple[str, Task]]:
    """A seeded sample of ``size`` (environment, task) pairs of a split, in the split's order."""
    pairs = [(name, task) for name, (_, tasks) in split.items() for task in tasks]
    if len(pairs) <= size:
        return pairs
    chosen = set(random.Random(seed).sample(range(len(pairs)), size))
    return [pair for i, pair in enumerate(pairs) if i in chosen]


def held_out_success(model: DRRN, held_out: HeldOut, iteration: int) -> list[JSON]:
    """One row per split: the greedy policy's success on the split's sample at ``iteration``."""
    from envfactory.rl.drrn import DRRNPolicy

    rows: list[JSON] = []
    for label, split in held_out.splits.items():
        sample = sample_tasks(split, held_out.sample, derive_seed(held_out.seed, "held-out", label))
        trajs = []
        for name, (env, _) in split.items():
            tasks = [task for env_name, task in sample if env_name == name]
            if tasks:
                trajs += evaluate(env, tasks, lambda s: DRRNPolicy(model, seed=s, greedy=True), seed=held_out.seed)
        summary = summarize(trajs)
        rows.append({"iteration": iteration, "split": label, "success": float(summary.get("success", 0.0)),
                     "episodes": len(trajs)})  # fmt: skip
    return rows


__all__ = ["HELD_OUT_FILE", "HeldOut", "Split", "eval_points", "held_out_success", "sample_tasks"]

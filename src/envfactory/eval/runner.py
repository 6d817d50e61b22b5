"""Run a policy over a task set, optionally under randomization; the robustness table."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from envfactory.core import Policy
from envfactory.eval.metrics import summarize
from envfactory.ir.task import Task
from envfactory.ir.trajectory import Trajectory
from envfactory.rl.rollout import rollout
from envfactory.runtime.environment import Environment
from envfactory.seeding import derive_seed
from envfactory.users.judge import FactJudge, Judge
from envfactory.users.scripted import ScriptedUser
from envfactory.wrappers import FAMILIES, Randomization, condition, randomize


def evaluate(
    env: Environment,
    tasks: Sequence[Task],
    make_policy: Callable[[int], Policy],
    *,
    trials: int = 1,
    seed: int = 0,
    randomization: Randomization | None = None,
    keep_messages: bool = False,
    judge: Judge | None = None,
) -> list[Trajectory]:
    """``trials`` seeded episodes per task; each gets its own policy seed and perturbation.

    Episodes the ``judge`` (default: the fact judge) finds spoiled by the user are ``masked``."""
    judge = judge if judge is not None else FactJudge()
    base = env.episode(user=ScriptedUser())
    out = []
    for task in tasks:
        for trial in range(trials):
            episode_seed = derive_seed(seed, task.id, trial) % 2**31
            episode = randomize(base, randomization, episode_seed) if randomization else base
            out.append(
                rollout(
                    episode,
                    task,
                    make_policy(episode_seed),
                    seed=episode_seed,
                    keep_messages=keep_messages,
                    judge=judge,
                )
            )
    return out


def robustness(
    env: Environment,
    tasks: Sequence[Task],
    make_policy: Callable[[int], Policy],
    *,
    trials: int = 1,
    seed: int = 0,
) -> dict[str, dict[str, Any]]:
    """Success with no randomization and under each family alone (drawn per episode)."""
    table = {"none": summarize(evaluate(env, tasks, make_policy, trials=trials, seed=seed))}
    for family in FAMILIES:
        randomization = condition(family)
        table[family] = summarize(
            evaluate(env, tasks, make_policy, trials=trials, seed=seed, randomization=randomization)
        )
    return table

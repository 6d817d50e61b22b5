"""Run a policy over a task set, optionally under randomization; the robustness table."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from envfactory.core import Policy, UserSimulator
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
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    make_user: Callable[[int], UserSimulator] | None = None,
) -> list[Trajectory]:
    """``trials`` seeded episodes per task; each gets its own policy seed and perturbation.

    Episodes the ``judge`` (default: the fact judge) finds spoiled by the user are ``masked``.
    ``make_user`` gives each episode its user (default: the scripted user). ``workers`` > 1 runs
    episodes on that many threads (a served model kept busy); the result is the same list in the
    same order."""
    judge = judge if judge is not None else FactJudge()
    jobs = [(task, trial) for task in tasks for trial in range(trials)]

    def run(job: tuple[Task, int]) -> Trajectory:
        task, trial = job
        episode_seed = derive_seed(seed, task.id, trial) % 2**31
        base = env.episode(user=make_user(episode_seed) if make_user is not None else ScriptedUser())
        episode = randomize(base, randomization, episode_seed) if randomization else base
        return rollout(episode, task, make_policy(episode_seed), seed=episode_seed, keep_messages=keep_messages,
                       judge=judge)  # fmt: skip

    if workers <= 1:
        out = []
        for job in jobs:
            out.append(run(job))
            if progress is not None:
                progress(len(out))
        return out
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run, job) for job in jobs]
        done = []
        for future in futures:
            done.append(future.result())
            if progress is not None:
                progress(len(done))
    return done


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

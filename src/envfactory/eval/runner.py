"""Run a policy over a task set, optionally under randomization; the robustness table."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any, Protocol, TypedDict, Unpack, runtime_checkable

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


@runtime_checkable
class PlaysTogether(Protocol):
    """A policy factory whose policies are best played side by side — a language model that decodes
    their turns as one batch. :func:`evaluate` hands it the episodes, each a job returning its
    trajectory; ``play`` runs them all and returns the trajectories in the jobs' order, telling
    ``progress`` how many have ended as they end."""

    def __call__(self, seed: int) -> Policy: ...

    def play(self, jobs: Sequence[Callable[[], Trajectory]],
             progress: Callable[[int], None] | None = None) -> list[Trajectory]: ...  # fmt: skip


def play(env: Environment, task: Task, trial: int, make_policy: Callable[[int], Policy], *, seed: int = 0,
         randomization: Randomization | None = None, keep_messages: bool = False, judge: Judge | None = None,
         make_user: Callable[[int], UserSimulator] | None = None) -> Trajectory:  # fmt: skip
    """One episode of :func:`evaluate`: trial ``trial`` of ``task``, its seed drawn from ``seed``,
    the task and the trial; its user, perturbation and policy all seeded by it."""
    episode_seed = derive_seed(seed, task.id, trial) % 2**31
    base = env.episode(user=make_user(episode_seed) if make_user is not None else ScriptedUser())
    episode = randomize(base, randomization, episode_seed) if randomization else base
    return rollout(episode, task, make_policy(episode_seed), seed=episode_seed, keep_messages=keep_messages,
                   judge=judge)  # fmt: skip


class EvalOptions(TypedDict, total=False):
    """The keyword options of :func:`evaluate` and :func:`evaluate_sets` (defaults there)."""

    trials: int
    seed: int
    randomization: Randomization | None
    keep_messages: bool
    judge: Judge | None
    workers: int
    progress: Callable[[int], None] | None
    make_user: Callable[[int], UserSimulator] | None


def evaluate(env: Environment, tasks: Sequence[Task], make_policy: Callable[[int], Policy],
             **options: Unpack[EvalOptions]) -> list[Trajectory]:  # fmt: skip
    """``trials`` (1) seeded episodes per task; each gets its own policy seed and perturbation.

    Episodes the ``judge`` (default: the fact judge) finds spoiled by the user are ``masked``.
    ``make_user`` gives each episode its user (default: the scripted user). ``workers`` > 1 runs
    episodes on that many threads (a served model kept busy); a factory that
    :class:`PlaysTogether` plays them its own way. The result is the same list in the same order.
    :func:`evaluate_sets` of one environment."""
    return evaluate_sets({env.name: env}, {env.name: tasks}, make_policy, **options)


def evaluate_sets(
    envs: Mapping[str, Environment],
    tasks: Mapping[str, Sequence[Task]],
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
    """:func:`evaluate` over several environments at once (``tasks[name]`` on ``envs[name]``, in
    the order of ``envs``): the same trajectories, played as one set of episodes — side by side
    across the environments for a factory that :class:`PlaysTogether`."""
    jobs = [partial(play, env, task, trial, make_policy, seed=seed, randomization=randomization,
                    keep_messages=keep_messages, judge=judge if judge is not None else FactJudge(),
                    make_user=make_user)
            for name, env in envs.items() for task in tasks[name] for trial in range(trials)]  # fmt: skip
    if isinstance(make_policy, PlaysTogether):
        return make_policy.play(jobs, progress)
    if workers <= 1:
        out = []
        for job in jobs:
            out.append(job())
            if progress is not None:
                progress(len(out))
        return out
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(job) for job in jobs]
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


__all__ = ["EvalOptions", "PlaysTogether", "evaluate", "evaluate_sets", "play", "robustness"]

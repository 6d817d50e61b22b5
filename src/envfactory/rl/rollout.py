"""Rollouts: run any Policy through the Episode contract (plain or randomized) and record it."""

from __future__ import annotations

import json
from typing import Any

import orjson

from envfactory.core import EpisodeLike, Policy
from envfactory.ir.task import Task, Verdict
from envfactory.ir.trajectory import Trajectory
from envfactory.users.judge import Judge

JSON = dict[str, Any]


def rollout(
    episode: EpisodeLike,
    task: Task,
    policy: Policy,
    *,
    seed: int = 0,
    keep_messages: bool = False,
    judge: Judge | None = None,
) -> Trajectory:
    """Run ``policy`` on ``task`` until the episode ends (reply or step budget).

    The episode starts from the task's own seed: a real implementation's random generators (and a
    synthesized one's tokens) answer as they did when the task was proven, so its goal state is
    reachable in every trial. ``seed`` is the trial's: the policy's and the perturbations' draws.

    With a ``judge``, a trajectory the user spoiled (contradicted or invented facts) is
    ``masked``: estimators and samplers leave it out."""
    opening = episode.reset(task=task, seed=task.seed)  # the world the task was proven in
    policy.begin(task, opening, episode.tools)
    transcript: list[JSON] = list(opening)
    new: list[JSON] = []
    while not episode.done:
        action = policy.act(new)
        new = episode.act(action)
        transcript += [action, *new]
    return recorded(episode, task, transcript, policy=policy.name, seed=seed, keep_messages=keep_messages,
                    judge=judge)  # fmt: skip


def _copied(message: JSON) -> JSON:
    """A JSON copy of ``message`` (orjson's round trip, json's for what orjson refuses: integers
    past 64 bits), so that the trajectory holds nothing its caller may later change."""
    try:
        return orjson.loads(orjson.dumps(message))  # type: ignore[no-any-return]
    except TypeError:
        return json.loads(json.dumps(message))  # type: ignore[no-any-return]


def recorded(episode: EpisodeLike, task: Task, transcript: list[JSON], *, policy: str, seed: int,
             keep_messages: bool = False, judge: Judge | None = None,
             verdict: Verdict | None = None) -> Trajectory:  # fmt: skip
    """The trajectory of an ended ``episode`` whose messages were ``transcript``: its verdict
    (``verdict``, when the caller has just asked for it), tool calls and errors counted from the
    tool messages, and (with a ``judge``) its mask."""
    tools = [m for m in transcript if m.get("role") == "tool"]
    errors = sum('"error"' in str(m.get("content", ""))[:12] for m in tools)
    verdict = verdict if verdict is not None else episode.verify()
    judgement = judge.judge(task, transcript) if judge is not None else None
    return Trajectory(
        env=task.env,
        task_id=task.id,
        level=task.level,
        policy=policy,
        seed=seed,
        reward=verdict.reward,
        success=verdict.success,
        steps=episode.steps,
        tool_calls=len(tools),
        tool_errors=errors,
        masked=judgement.spoiled if judgement is not None else False,
        randomization=getattr(episode, "randomization", {}),
        reasons=verdict.reasons + (judgement.reasons if judgement is not None else ()),
        messages=tuple(_copied(m) for m in transcript) if keep_messages else (),
    )


__all__ = ["Trajectory", "recorded", "rollout"]

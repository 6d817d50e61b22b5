"""Rollouts: run any Policy through the Episode contract (plain or randomized) and record it."""

from __future__ import annotations

import json
from typing import Any

from envfactory.core import EpisodeLike, Policy
from envfactory.ir.task import Task
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

    With a ``judge``, a trajectory the user spoiled (contradicted or invented facts) is
    ``masked``: estimators and samplers leave it out."""
    opening = episode.reset(task=task, seed=seed)
    policy.begin(task, opening, episode.tools)
    transcript: list[JSON] = list(opening)
    new: list[JSON] = []
    calls = errors = 0
    while not episode.done:
        action = policy.act(new)
        new = episode.act(action)
        transcript += [action, *new]
        for message in new:
            if message["role"] == "tool":
                calls += 1
                errors += '"error"' in message["content"][:12]
    verdict = episode.verify()
    judgement = judge.judge(task, transcript) if judge is not None else None
    return Trajectory(
        env=task.env,
        task_id=task.id,
        level=task.level,
        policy=policy.name,
        seed=seed,
        reward=verdict.reward,
        success=verdict.success,
        steps=episode.steps,
        tool_calls=calls,
        tool_errors=errors,
        masked=judgement.spoiled if judgement is not None else False,
        randomization=getattr(episode, "randomization", {}),
        reasons=verdict.reasons + (judgement.reasons if judgement is not None else ()),
        messages=tuple(json.loads(json.dumps(m)) for m in transcript) if keep_messages else (),
    )


__all__ = ["Trajectory", "rollout"]

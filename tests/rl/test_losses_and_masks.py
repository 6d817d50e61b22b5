"""The loss as a pure function (hand-computed values), and user-error masks wired end to end."""

from __future__ import annotations

import copy

import pytest
import torch

from envfactory.ir.task import Task, UserProfile
from envfactory.rl.drrn import DRRN, DRRNPolicy
from envfactory.rl.losses import aggregate, clipped_surrogate
from envfactory.rl.rollout import rollout
from envfactory.rl.trainer import TrainConfig, update_batch
from envfactory.users.judge import FactJudge
from envfactory.users.scripted import ScriptedUser
from envfactory.wrappers import Randomization, randomize


def test_sequence_token_and_constant_normalizations_by_hand() -> None:
    terms = torch.tensor([1.0, 3.0, 2.0])  # rollout 0 has two decisions, rollout 1 one
    seq = torch.tensor([0, 0, 1])
    assert aggregate(terms, seq, normalization="token").item() == pytest.approx(2.0)  # (1+3+2)/3
    assert aggregate(terms, seq, normalization="sequence").item() == pytest.approx(2.0)  # ((1+3)/2 + 2)/2
    terms = torch.tensor([1.0, 3.0, 5.0])
    assert aggregate(terms, seq, normalization="token").item() == pytest.approx(3.0)
    assert aggregate(terms, seq, normalization="sequence").item() == pytest.approx(3.5)  # (2 + 5)/2
    assert aggregate(terms, seq, normalization="constant", max_length=4).item() == pytest.approx(9 / 8)


def test_clipped_surrogate_by_hand() -> None:
    old = torch.log(torch.tensor([0.5, 0.5]))
    new = torch.log(torch.tensor([0.8, 0.2]))  # ratios 1.6 and 0.4
    adv = torch.tensor([1.0, -1.0])
    loss = clipped_surrogate(new, old, adv, torch.tensor([0, 1]), clip=0.2, normalization="token")
    # decision 0: min(1.6, 1.2) * 1 = 1.2; decision 1: min(0.4 * -1, 0.8 * -1) = -0.8; loss = -(1.2 - 0.8)/2
    assert loss.item() == pytest.approx(-0.2)


def _task_with_fact() -> Task:
    return Task(env="shop", id="t1", instruction="Do it.", user=UserProfile(facts={"title": "Blue Lagoon"}))


def test_fact_judge_flags_contradictions_and_inventions_only() -> None:
    judge, task = FactJudge(), _task_with_fact()
    opening = {"role": "user", "content": "Do it."}
    clean = [opening, {"role": "user", "content": "Sure - The title is Blue Lagoon."}]
    wrong = [opening, {"role": "user", "content": "The title is Blue Lagoons."}]
    invented = [opening, {"role": "user", "content": "The colour is red."}]
    assert not judge.judge(task, clean).spoiled
    assert judge.judge(task, wrong).spoiled and "Blue Lagoons" in judge.judge(task, wrong).reasons[0]
    assert judge.judge(task, invented).spoiled


def test_a_mistaken_user_is_masked_by_the_judge(bundled_envs: dict) -> None:
    from envfactory.tasks.generate import generate_tasks

    env = bundled_envs["shop"]
    tasks = [t for t in generate_tasks(env, 40, seed=0)[0] if t.user.facts]
    assert tasks
    base = env.episode(user=ScriptedUser())
    spoiled = randomize(base, Randomization(users={"mistakes": 1.0}), seed=1)
    from envfactory.rl.policy import GoldPolicy

    clean = rollout(base, tasks[0], GoldPolicy(), judge=FactJudge())
    bad = rollout(spoiled, tasks[0], GoldPolicy(), judge=FactJudge())
    assert not clean.masked and clean.success
    assert bad.masked and any("the user said" in r for r in bad.reasons)


def test_masked_rollouts_change_nothing_in_the_update(bundled_envs: dict) -> None:
    from envfactory.tasks.generate import generate_tasks

    env = bundled_envs["shop"]
    tasks = generate_tasks(env, 6, seed=0)[0][:3]
    torch.manual_seed(0)
    model = DRRN()
    rollouts = []
    for i, task in enumerate(tasks * 2):
        policy = DRRNPolicy(model, seed=i)
        result = rollout(env.episode(user=ScriptedUser()), task, policy, seed=i)
        rollouts.append((policy.record or [], result.reward + (i % 2) * 0.5, task.id, "shop"))
    extra = [(rec, 1.0 - r, t, e) for rec, r, t, e in rollouts[:3]]  # spoiled: would move the update a lot

    def updated(batch: list, mask: list[bool], estimator: str) -> list[torch.Tensor]:
        torch.manual_seed(0)
        twin = copy.deepcopy(model)
        optimizer = torch.optim.Adam(twin.parameters(), lr=0.05)
        config = TrainConfig(estimator=estimator, dynamic_sampling=True)
        recs, rewards, ids, envs = (list(x) for x in zip(*batch, strict=True))
        update_batch(twin, optimizer, recs, rewards, ids, envs, mask, config)
        return [p.detach().clone() for p in twin.parameters()]

    for estimator in ("grpo", "dr_grpo", "rloo", "erpo"):
        without = updated(rollouts, [True] * len(rollouts), estimator)
        masked = updated(rollouts + extra, [True] * len(rollouts) + [False] * len(extra), estimator)
        unmasked = updated(rollouts + extra, [True] * (len(rollouts) + len(extra)), estimator)
        assert all(torch.equal(a, b) for a, b in zip(without, masked, strict=True)), estimator
        assert not all(torch.equal(a, b) for a, b in zip(without, unmasked, strict=True)), estimator

"""Estimators against numbers computed by hand."""

import math

import numpy as np
import pytest

from envfactory.rl.advantages import ESTIMATORS, dr_grpo, dynamic_sampling, erpo, grpo, rloo

R = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0]
TASKS = ["a", "a", "a", "b", "b", "c"]
ENVS = ["x", "x", "x", "x", "x", "y"]


def test_grpo_by_hand() -> None:
    # group a: mean 1/3, sample std sqrt(1/3); group b: all equal -> 0; group c: a single rollout -> 0
    s = math.sqrt(1 / 3)
    expected = [(2 / 3) / s, (-1 / 3) / s, (-1 / 3) / s, 0, 0, 0]
    assert np.allclose(grpo(R, TASKS, eps=0.0), expected)


def test_dr_grpo_and_rloo_by_hand() -> None:
    assert np.allclose(dr_grpo(R, TASKS), [2 / 3, -1 / 3, -1 / 3, 0, 0, 0])
    # leave-one-out: 1 - (0+0)/2 = 1; 0 - (1+0)/2 = -0.5
    assert np.allclose(rloo(R, TASKS), [1.0, -0.5, -0.5, 0, 0, 0])


def test_erpo_scales_by_the_environment_not_the_group() -> None:
    # env x rewards [1,0,0,1,1]: mean 0.6, sample var = (0.16+0.36+0.36+0.16+0.16)/4 = 0.3
    s = math.sqrt(0.3)
    expected = [(2 / 3) / s, (-1 / 3) / s, (-1 / 3) / s, 0, 0, 0]
    assert np.allclose(erpo(R, TASKS, env_ids=ENVS, eps=0.0), expected)
    with pytest.raises(ValueError, match="env_ids"):
        erpo(R, TASKS)


def test_masked_rollouts_get_zero_and_leave_the_statistics() -> None:
    mask = [True, True, False, True, True, True]  # the third rollout failed by the user's fault
    # group a is now [1, 0]: mean 0.5, sample std sqrt(0.5)
    assert np.allclose(grpo(R, TASKS, mask, eps=0.0), [0.5 / math.sqrt(0.5), -0.5 / math.sqrt(0.5), 0, 0, 0, 0])
    assert np.allclose(rloo(R, TASKS, mask), [1.0, -1.0, 0, 0, 0, 0])
    # env x is now [1, 0, 1, 1]: mean .75, var = (.0625*3 + .5625)/3 = .25 -> std .5
    assert np.allclose(erpo(R, TASKS, mask, env_ids=ENVS, eps=0.0), [1.0, -1.0, 0, 0, 0, 0])


def test_degenerate_batches() -> None:
    for name, fn in ESTIMATORS.items():
        kwargs = {"env_ids": ["x"]} if name == "erpo" else {}
        assert np.allclose(fn([1.0], ["t"], **kwargs), [0.0])
        all_masked = fn([1.0, 0.0], ["t", "t"], [False, False], **({"env_ids": ["x", "x"]} if name == "erpo" else {}))
        assert np.allclose(all_masked, [0.0, 0.0])
    assert np.all(np.isfinite(grpo([1, 1, 1], ["t"] * 3)))
    with pytest.raises(ValueError, match="mask has 1 entries for 2 rewards"):
        grpo([1, 0], ["t", "t"], [True])


def test_dynamic_sampling_drops_groups_without_signal() -> None:
    keep = dynamic_sampling(R, TASKS)
    assert keep.tolist() == [True, True, True, False, False, False]  # b all equal, c a single value
    keep = dynamic_sampling([1, 0, 1, 1], ["a", "a", "b", "b"], [True, False, True, True])
    assert keep.tolist() == [False, False, False, False]  # a's only unmasked reward is 1: no spread

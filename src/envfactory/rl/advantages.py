"""Advantage estimators as pure functions over one batch of rollouts.

Every estimator takes ``rewards`` (one per rollout), ``task_ids`` (rollouts of the same task form a
group), optional ``env_ids`` and an optional ``mask`` (False = a trajectory spoiled by a user
error: it gets advantage 0 and is left out of every statistic). Standard deviations are the
sample standard deviation (ddof=1, as in TRL's GRPO); a statistic over fewer than two rollouts is
undefined and its advantages are 0.

    GRPO     A = (R - mean(group)) / (std(group) + eps)
    Dr.GRPO  A = R - mean(group)                              (no std division: no length/scale bias)
    RLOO     A = R - mean(group without this rollout)         = n/(n-1) (R - mean(group))
    ERPO     A = (R - mean(group)) / (std(all rollouts of the group's environment) + eps)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np

from envfactory.registry import Registry

EPS = 1e-6
Array = np.ndarray
Estimator = Callable[..., Array]
ESTIMATORS: Registry[Estimator] = Registry("advantage estimator")


def _prepare(rewards: Sequence[float], mask: Sequence[bool] | None) -> tuple[Array, Array]:
    r = np.asarray(rewards, dtype=np.float64)
    m = np.ones(len(r), dtype=bool) if mask is None else np.asarray(mask, dtype=bool)
    if m.shape != r.shape:
        raise ValueError(f"mask has {m.shape[0]} entries for {r.shape[0]} rewards")
    return r, m


def _groups(keys: Sequence[Hashable], mask: Array) -> dict[Hashable, Array]:
    """Indices of the unmasked rollouts of each group."""
    out: dict[Hashable, list[int]] = {}
    for i, key in enumerate(keys):
        if mask[i]:
            out.setdefault(key, []).append(i)
    return {k: np.asarray(v) for k, v in out.items()}


def _centred(r: Array, task_ids: Sequence[Hashable], mask: Array) -> Array:
    adv = np.zeros_like(r)
    for idx in _groups(task_ids, mask).values():
        if len(idx) >= 2:
            adv[idx] = r[idx] - r[idx].mean()
    return adv


@ESTIMATORS.register("grpo")
def grpo(rewards: Sequence[float], task_ids: Sequence[Hashable], mask: Sequence[bool] | None = None,
         env_ids: Sequence[Hashable] | None = None, eps: float = EPS) -> Array:  # fmt: skip
    r, m = _prepare(rewards, mask)
    adv = np.zeros_like(r)
    for idx in _groups(task_ids, m).values():
        std = r[idx].std(ddof=1) if len(idx) >= 2 else 0.0
        if std > 0:  # an all-equal group carries no signal: its advantages stay 0
            adv[idx] = (r[idx] - r[idx].mean()) / (std + eps)
    return adv


@ESTIMATORS.register("dr_grpo")
def dr_grpo(rewards: Sequence[float], task_ids: Sequence[Hashable], mask: Sequence[bool] | None = None,
            env_ids: Sequence[Hashable] | None = None) -> Array:  # fmt: skip
    r, m = _prepare(rewards, mask)
    return _centred(r, task_ids, m)


@ESTIMATORS.register("rloo")
def rloo(rewards: Sequence[float], task_ids: Sequence[Hashable], mask: Sequence[bool] | None = None,
         env_ids: Sequence[Hashable] | None = None) -> Array:  # fmt: skip
    r, m = _prepare(rewards, mask)
    adv = np.zeros_like(r)
    for idx in _groups(task_ids, m).values():
        n = len(idx)
        if n >= 2:
            adv[idx] = r[idx] - (r[idx].sum() - r[idx]) / (n - 1)
    return adv


@ESTIMATORS.register("erpo")
def erpo(rewards: Sequence[float], task_ids: Sequence[Hashable], mask: Sequence[bool] | None = None,
         env_ids: Sequence[Hashable] | None = None, eps: float = EPS) -> Array:  # fmt: skip
    """Centre on the task's mean, scale by the spread of the task's whole environment in the batch."""
    if env_ids is None:
        raise ValueError("ERPO needs env_ids")
    r, m = _prepare(rewards, mask)
    adv = _centred(r, task_ids, m)
    for idx in _groups(env_ids, m).values():
        std = r[idx].std(ddof=1) if len(idx) >= 2 else 0.0
        adv[idx] = adv[idx] / (std + eps) if std > 0 else 0.0
    return adv


def dynamic_sampling(
    rewards: Sequence[float], task_ids: Sequence[Hashable], mask: Sequence[bool] | None = None
) -> Array:
    """Keep-mask that drops whole groups whose unmasked rewards are all equal (no learning signal)."""
    r, m = _prepare(rewards, mask)
    keep = m.copy()
    for idx in _groups(task_ids, m).values():
        if np.ptp(r[idx]) == 0:
            keep[idx] = False
    return keep

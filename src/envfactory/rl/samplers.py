"""Environment samplers over configurations (environment x task x randomization).

All share one interface — ``sample(rng)``, ``update(key, success)``, ``probabilities()`` — and
keep their state in plain Python, so they are pure, seeded and testable. The weighting rules are
exposed as functions (:func:`adversarial_weights`, :func:`group_dro_weights`, :func:`cvar_weights`)
with hand-checkable numbers.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from envfactory.tasks.curriculum import Curriculum

Key = Hashable


class Sampler(Protocol):
    def sample(self, rng: random.Random) -> Key: ...

    def update(self, key: Key, success: float) -> None: ...

    def probabilities(self) -> dict[Key, float]: ...


def _draw(probs: dict[Key, float], rng: random.Random) -> Key:
    keys = list(probs)
    return rng.choices(keys, weights=[probs[k] for k in keys])[0]


def _with_floor(weights: dict[Key, float], floor: float) -> dict[Key, float]:
    """Normalize, then mix with the uniform distribution so every key keeps ``floor`` / n."""
    total = sum(weights.values())
    n = len(weights)
    if total <= 0:
        return {k: 1 / n for k in weights}
    return {k: (1 - floor) * w / total + floor / n for k, w in weights.items()}


@dataclass
class UniformSampler:
    keys: Sequence[Key]

    def sample(self, rng: random.Random) -> Key:
        return rng.choice(list(self.keys))

    def update(self, key: Key, success: float) -> None:
        return None

    def probabilities(self) -> dict[Key, float]:
        return {k: 1 / len(self.keys) for k in self.keys}


@dataclass
class CurriculumSampler:
    """Draws a level from a :class:`Curriculum`, then a key of that level uniformly."""

    levels: dict[Key, int]
    curriculum: Curriculum = field(init=False)

    def __post_init__(self) -> None:
        self.curriculum = Curriculum(levels=sorted(set(self.levels.values())))

    def sample(self, rng: random.Random) -> Key:
        level = self.curriculum.next_level(rng)
        return rng.choice([k for k, lv in self.levels.items() if lv == level])

    def update(self, key: Key, success: float) -> None:
        self.curriculum.record(self.levels[key], success >= 0.5)

    def probabilities(self) -> dict[Key, float]:
        open_levels = self.curriculum.levels[: self.curriculum.unlocked]
        frontier = self.curriculum.frontier
        share = {lv: self.curriculum.review / max(1, len(open_levels) - 1) for lv in open_levels[:-1]}
        share[frontier] = 1.0 - sum(share.values()) if len(open_levels) > 1 else 1.0
        counts = {lv: sum(1 for v in self.levels.values() if v == lv) for lv in open_levels}
        return {k: share.get(lv, 0.0) / counts[lv] if lv in counts else 0.0 for k, lv in self.levels.items()}


def adversarial_weights(success: dict[Key, float], floor: float) -> dict[Key, float]:
    """Draw in proportion to failure (1 - success), mixed with uniform so nothing starves."""
    return _with_floor({k: 1.0 - s for k, s in success.items()}, floor)


@dataclass
class AdversarialSampler:
    """RARL-style: keeps an exponential moving average of success per key, draws where it fails."""

    keys: Sequence[Key]
    floor: float = 0.1
    alpha: float = 0.2  # EMA step
    prior: float = 0.5
    success: dict[Key, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.success = {k: self.success.get(k, self.prior) for k in self.keys}

    def sample(self, rng: random.Random) -> Key:
        return _draw(self.probabilities(), rng)

    def update(self, key: Key, success: float) -> None:
        self.success[key] += self.alpha * (success - self.success[key])

    def probabilities(self) -> dict[Key, float]:
        return adversarial_weights(self.success, self.floor)


def group_dro_weights(weights: dict[Key, float], losses: dict[Key, float], eta: float) -> dict[Key, float]:
    """One exponentiated-gradient step of group DRO: w_g <- w_g exp(eta * loss_g), normalized."""
    raised = {g: w * math.exp(eta * losses.get(g, 0.0)) for g, w in weights.items()}
    total = sum(raised.values())
    return {g: w / total for g, w in raised.items()}


def cvar_weights(losses: dict[Key, float], alpha: float) -> dict[Key, float]:
    """Uniform weight on the worst ``alpha`` share of groups (at least one), zero elsewhere."""
    if not 0 < alpha <= 1:
        raise ValueError("alpha must be in (0, 1]")
    k = max(1, math.ceil(alpha * len(losses)))
    worst = sorted(losses, key=lambda g: (-losses[g], str(g)))[:k]
    return {g: (1 / k if g in worst else 0.0) for g in losses}


@dataclass
class WorstCaseSampler:
    """Draws an environment by group-DRO or CVaR weights over per-environment loss estimates,
    then one of its keys uniformly; ``floor`` keeps every environment in play."""

    groups: dict[Key, list[Key]]  # environment -> its keys (tasks x randomizations)
    objective: str = "dro"  # "dro" or "cvar"
    eta: float = 1.0
    alpha: float = 0.3
    floor: float = 0.05
    smoothing: float = 0.2
    loss: dict[Key, float] = field(default_factory=dict)
    weights: dict[Key, float] = field(default_factory=dict)
    owner: dict[Key, Key] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.objective not in ("dro", "cvar"):
            raise ValueError(f"unknown objective {self.objective!r} (dro or cvar)")
        self.loss = {g: 0.5 for g in self.groups}
        self.weights = {g: 1 / len(self.groups) for g in self.groups}
        self.owner = {k: g for g, keys in self.groups.items() for k in keys}

    def sample(self, rng: random.Random) -> Key:
        group = _draw(self.group_probabilities(), rng)
        return rng.choice(self.groups[group])

    def update(self, key: Key, success: float) -> None:
        group = self.owner[key]
        self.loss[group] += self.smoothing * ((1.0 - success) - self.loss[group])
        if self.objective == "dro":
            self.weights = group_dro_weights(self.weights, {group: self.loss[group]}, self.eta * self.smoothing)

    def group_probabilities(self) -> dict[Key, float]:
        base = self.weights if self.objective == "dro" else cvar_weights(self.loss, self.alpha)
        return _with_floor(base, self.floor)

    def probabilities(self) -> dict[Key, float]:
        groups = self.group_probabilities()
        return {k: groups[g] / len(self.groups[g]) for g, keys in self.groups.items() for k in keys}

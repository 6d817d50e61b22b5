"""The clipped policy-gradient objective, as a pure function of per-decision tensors.

How the per-decision terms are averaged is where GRPO and its variants differ (Dr.GRPO, Liu et
al. 2025; DAPO, Yu et al. 2025):

- ``"sequence"`` (GRPO): average the terms of each rollout (the 1/|o_i| factor), then average
  over rollouts; a long rollout's decisions each weigh less.
- ``"token"`` (DAPO): one average over every decision of the batch.
- ``"constant"`` (Dr.GRPO): sum every decision's term and divide by a constant (rollouts x the
  longest allowed rollout), so that no length bias enters the gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import torch

Normalization = Literal["sequence", "token", "constant"]
NORMALIZATIONS: tuple[str, ...] = ("sequence", "token", "constant")


def clipped_surrogate(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    sequence: torch.Tensor,
    *,
    clip: float,
    normalization: Normalization = "token",
    max_length: int = 1,
) -> torch.Tensor:
    """The loss to minimize: ``-min(ratio * A, clip(ratio) * A)`` per decision, then averaged.

    ``logp``/``old_logp``: log-probabilities of the chosen actions under the current and the
    behaviour policy; ``advantages``: the advantage of each decision's rollout; ``sequence``: the
    rollout index of each decision (integers; rollouts need not be contiguous).
    """
    ratio = torch.exp(logp - old_logp)
    terms = -torch.min(ratio * advantages, torch.clamp(ratio, 1 - clip, 1 + clip) * advantages)
    return aggregate(terms, sequence, normalization=normalization, max_length=max_length)


def aggregate(
    terms: torch.Tensor, sequence: torch.Tensor, *, normalization: Normalization, max_length: int = 1
) -> torch.Tensor:
    """Average per-decision ``terms`` the way ``normalization`` says (see the module docstring)."""
    if terms.numel() == 0:
        return terms.sum()
    if normalization == "token":
        return terms.mean()
    ids, index = torch.unique(sequence, return_inverse=True)
    if normalization == "sequence":
        sums = torch.zeros(len(ids), dtype=terms.dtype).index_add(0, index, terms)
        counts = torch.zeros(len(ids), dtype=terms.dtype).index_add(0, index, torch.ones_like(terms))
        return (sums / counts).mean()
    if normalization == "constant":
        return terms.sum() / (len(ids) * max(1, max_length))
    raise ValueError(f"unknown normalization {normalization!r}; choose from {NORMALIZATIONS}")


def mean_kl(old_logp: Sequence[torch.Tensor], new_logp: Sequence[torch.Tensor]) -> float:
    """The mean over decisions of KL(old || new), each decision's log-probabilities over its own
    candidates: ``sum(p_old * (log p_old - log p_new))``; 0 for no decisions."""
    if not old_logp:
        return 0.0
    terms = [(old.exp() * (old - new)).sum() for old, new in zip(old_logp, new_logp, strict=True)]
    return float(torch.stack(terms).mean())


__all__ = ["NORMALIZATIONS", "Normalization", "aggregate", "clipped_surrogate", "mean_kl"]

"""Losses over token ids, and one optimizer step over a batch of them.

A sample is a conversation's ids, the mask of the ids the model wrote, and a weight: 1 for a
supervised demonstration, the rollout's advantage for RL. Only the masked positions are scored
(the model's logits are computed there alone). With one update per batch of fresh rollouts the
policy-gradient loss needs no importance ratio: its gradient is the on-policy one.

    supervised   L = - mean over masked tokens of log p(token)
    sequence     L = - A * (sum of masked log p) / (masked tokens)      (GRPO, RLOO, ERPO)
    constant     L = - A * (sum of masked log p) / C                    (Dr.GRPO: no length bias)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Norm = Literal["sequence", "constant"]
LENGTH_NORMS: dict[str, Norm] = {"dr_grpo": "constant"}  # the estimators that drop the length division


@dataclass(frozen=True)
class Sample:
    ids: tuple[int, ...]
    mask: tuple[int, ...]
    weight: float = 1.0
    key: str = ""  # the task (and environment) the conversation came from


def masked_logprobs(model: Any, sample: Sample) -> Any:
    """log p of each id the model wrote, given everything before it (a 1-d tensor)."""
    import torch

    from envfactory.rl.lm.model import device_of

    device = device_of(model)
    ids = torch.tensor([sample.ids], device=device)
    targets = [t for t in range(1, len(sample.ids)) if sample.mask[t]]
    if not targets:
        return torch.zeros(0, device=device)
    positions = torch.tensor([t - 1 for t in targets], device=device)
    logits = model(input_ids=ids, attention_mask=torch.ones_like(ids), logits_to_keep=positions).logits[0]
    chosen = torch.tensor([sample.ids[t] for t in targets], device=device)
    return torch.log_softmax(logits.float(), dim=-1).gather(1, chosen[:, None])[:, 0]


def sample_loss(model: Any, sample: Sample, kind: Literal["supervised", "sequence", "constant"],
                constant: float = 256.0) -> Any:  # fmt: skip
    logp = masked_logprobs(model, sample)
    if logp.numel() == 0:
        return logp.sum()
    if kind == "supervised":
        return -logp.mean() * sample.weight
    denom = logp.numel() if kind == "sequence" else constant
    return -sample.weight * logp.sum() / denom


def step(model: Any, optimizer: Any, samples: Sequence[Sample], kind: Literal["supervised", "sequence", "constant"],
         *, constant: float = 256.0, clip: float = 1.0) -> float:  # fmt: skip
    """One optimizer step on the mean loss of ``samples`` (accumulated one conversation at a time);
    returns that mean loss. Samples of weight 0 cost nothing and are skipped."""
    import torch

    live = [s for s in samples if s.weight != 0.0 and any(s.mask)]
    if not live:
        return 0.0
    model.train()
    optimizer.zero_grad()
    total = 0.0
    for sample in live:
        loss = sample_loss(model, sample, kind, constant) / len(live)
        loss.backward()
        total += float(loss.detach())
    params = [p for p in model.parameters() if p.requires_grad]
    torch.nn.utils.clip_grad_norm_(params, clip)
    optimizer.step()
    model.eval()
    return total


def mean_loss(model: Any, samples: Sequence[Sample]) -> float:
    """The supervised loss of ``samples`` without a step (to watch it fall)."""
    import torch

    if not samples:
        return 0.0
    with torch.no_grad():
        return sum(float(sample_loss(model, s, "supervised")) for s in samples) / len(samples)


__all__ = ["LENGTH_NORMS", "Sample", "masked_logprobs", "mean_loss", "sample_loss", "step"]

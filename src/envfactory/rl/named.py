"""Policies by name, so that a process (a CLI command, a Ray worker) can build one from a string:
``random``, ``noop``, ``gold``, a run folder or ``checkpoint.pt`` of the DRRN policy, a run folder
of a trained language model (``envfactory train --model``), or a language model
(``model:local``, ``model:openai:NAME@URL``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from envfactory.core import Policy
from envfactory.errors import EnvFactoryError

PolicyFactory = Callable[[int], Policy]
NAMED = ("random", "noop", "gold")


def policy_factory(spec: str, *, model: str | None = None, sample: bool = False) -> PolicyFactory:
    """A function from an episode seed to a fresh policy; for a trained language model's run,
    ``model`` is the base model its adapter goes on (else the one it was trained on) and
    ``sample`` samples its turns (seeded per episode) instead of taking the likeliest."""
    from envfactory.rl.policy import GoldPolicy, NoopPolicy, RandomPolicy

    if spec == "random":
        return lambda s: RandomPolicy(s)
    if spec == "noop":
        return lambda s: NoopPolicy()
    if spec == "gold":
        return lambda s: GoldPolicy()
    if spec.startswith("model:"):
        from envfactory.llm import make_client
        from envfactory.llm.agent import LLMAgent

        name, _, base_url = spec.removeprefix("model:").partition("@")
        client = make_client(name, base_url=base_url or None)
        return lambda s: LLMAgent(client, seed=s)
    path = Path(spec)
    from envfactory.rl.lm.recipe import is_run

    if is_run(path):  # a trained language model: its adapter on its base model
        from envfactory.rl.lm.recipe import trained_policy

        return trained_policy(path, model, sample=sample)
    checkpoint = path / "checkpoint.pt" if path.is_dir() else path
    if not checkpoint.is_file():
        raise EnvFactoryError(
            f"policy {spec!r}: not one of {', '.join(NAMED)}, not model:NAME, and no checkpoint at {checkpoint}"
        )
    from envfactory.rl.drrn import DRRNPolicy
    from envfactory.rl.trainer import load_model

    network = load_model(checkpoint)
    return lambda s: DRRNPolicy(network, seed=s, greedy=True)


__all__ = ["NAMED", "PolicyFactory", "policy_factory"]

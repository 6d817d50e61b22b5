"""Policy-gradient training of the DRRN policy: group rollouts, any advantage estimator, a
clipped (PPO-style) objective, metrics as JSON lines, checkpoints and resume."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Hashable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, NamedTuple, cast

import numpy as np
import torch

from envfactory.ir.task import Task
from envfactory.rl.advantages import ESTIMATORS, dynamic_sampling
from envfactory.rl.drrn import DRRN, DRRNPolicy
from envfactory.rl.held_out import HELD_OUT_FILE, HeldOut, eval_points, held_out_success
from envfactory.rl.imitation import clone, demonstrations
from envfactory.rl.losses import NORMALIZATIONS, Normalization, aggregate, clipped_surrogate, mean_kl
from envfactory.rl.rollout import rollout
from envfactory.runtime.environment import Environment
from envfactory.seeding import derive_seed
from envfactory.users.judge import make_judge
from envfactory.users.scripted import ScriptedUser
from envfactory.wrappers import Randomization, randomize

JSON = dict[str, Any]
# GRPO averages within each rollout (its 1/|o| term); Dr.GRPO removes that length bias; the
# others keep the batch-wide mean over decisions they were measured with.
DEFAULT_NORMALIZATION = {"grpo": "sequence", "dr_grpo": "constant"}


@dataclass
class TrainConfig:
    iterations: int = 80
    tasks_per_batch: int = 12
    group: int = 4
    lr: float = 0.02
    clip: float = 0.2
    epochs: int = 2
    entropy: float = 0.01
    estimator: str = "erpo"
    dynamic_sampling: bool = True
    randomization: JSON | None = None  # a Randomization as JSON; None trains on clean environments
    randomize_fraction: float = 0.5  # share of rollouts that are randomized (the rest see the nominal environment)
    sampler: str = "uniform"  # uniform | curriculum | adversarial | dro | cvar (over environment x task)
    seed: int = 0
    checkpoint_every: int = 20
    warm_start: int = 0  # epochs of cloning the gold plans' decisions before RL (0: RL from scratch)
    warm_start_lr: float = 0.02
    finetune_lr: float = 0.005  # the RL learning rate after a warm start: fine-tune a cloned policy gently
    judge: str | None = "facts"  # flags rollouts the user spoiled (masked out of the update): facts, local, openai:NAME
    judge_base_url: str | None = None  # the endpoint of an openai: judge
    loss_normalization: str | None = None  # "sequence" | "token" | "constant"; None: the estimator's own
    max_decisions: int = 50  # the "constant" normalization's longest rollout


def train(
    envs: dict[str, Environment],
    tasks: dict[str, list[Task]],
    config: TrainConfig,
    run_dir: str | Path | None = None,
    *,
    resume: bool = False,
    progress: Callable[[int, JSON], None] | None = None,
    held_out: HeldOut | None = None,
) -> DRRN:
    """Train from scratch (or resume from ``run_dir/checkpoint.pt``); returns the model.

    ``held_out``: splits whose greedy success is measured at a few points along training
    (``run_dir/held_out.jsonl``, TensorBoard ``held_out/<split>``); it never changes the training."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the network is tiny: threads only add overhead (and fight other processes)
    try:
        return _train(envs, tasks, config, run_dir, resume=resume, progress=progress, held_out=held_out)
    finally:
        torch.set_num_threads(threads)


def _train(
    envs: dict[str, Environment],
    tasks: dict[str, list[Task]],
    config: TrainConfig,
    run_dir: str | Path | None,
    *,
    resume: bool,
    progress: Callable[[int, JSON], None] | None,
    held_out: HeldOut | None,
) -> DRRN:
    if config.estimator not in ESTIMATORS:
        raise ValueError(f"unknown estimator {config.estimator!r}; choose from {list(ESTIMATORS)}")
    torch.manual_seed(config.seed)
    model = DRRN()
    optimizer = torch.optim.Adam(model.parameters(), lr=config.finetune_lr if config.warm_start else config.lr)
    start = 0
    run = Path(run_dir) if run_dir is not None else None
    if run is not None:
        run.mkdir(parents=True, exist_ok=True)
        (run / "config.json").write_text(json.dumps(asdict(config), indent=2))
        checkpoint = run / "checkpoint.pt"
        if resume and checkpoint.is_file():
            state = torch.load(checkpoint, weights_only=True)
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])
            start = state["iteration"]
        if start == 0:  # a fresh run replaces an earlier run's curve instead of appending to it
            (run / "metrics.jsonl").unlink(missing_ok=True)
            (run / HELD_OUT_FILE).unlink(missing_ok=True)
    randomization = Randomization.model_validate(config.randomization) if config.randomization else None
    if config.warm_start and start == 0:
        demos = demonstrations(envs, tasks, config.seed, randomization, config.randomize_fraction)
        losses = clone(model, demos, config.warm_start, lr=config.warm_start_lr, seed=config.seed)
        if run is not None:
            record = {"warm_start": {"decisions": len(demos), "loss_by_epoch": losses}}
            (run / "warm_start.json").write_text(json.dumps(record, indent=2))
    bases = {name: env.episode(user=ScriptedUser()) for name, env in envs.items()}
    judge = make_judge(config.judge, base_url=config.judge_base_url)
    by_key = {(name, task.id): (name, task) for name, ts in tasks.items() for task in ts}
    sampler = make_sampler(config.sampler, by_key)
    writer = _tensorboard(run)
    points = set(eval_points(config.iterations, held_out.every)) if held_out is not None else set()
    if start == 0 and 0 in points and held_out is not None:
        _record_held_out(held_out_success(model, held_out, 0), run, writer)
    for iteration in range(start, config.iterations):
        began = time.perf_counter()
        rng = random.Random(derive_seed(config.seed, "batch", iteration))
        batch = [by_key[sampler.sample(rng)] for _ in range(min(config.tasks_per_batch, len(by_key)))]
        records, rewards, task_ids, env_ids, mask = [], [], [], [], []
        for name, task in batch:
            for g in range(config.group):
                seed = derive_seed(config.seed, iteration, task.id, g) % 2**31
                randomized = randomization is not None and rng.random() < config.randomize_fraction
                episode = randomize(bases[name], randomization, seed) if randomized and randomization else bases[name]
                policy = DRRNPolicy(model, seed=seed)
                result = rollout(episode, task, policy, seed=seed, judge=judge)
                records.append(policy.record or [])
                rewards.append(result.reward)
                mask.append(not result.masked)
                if not result.masked:  # a user's mistake says nothing about how hard the task is
                    sampler.update((name, task.id), result.reward)
                task_ids.append(task.id)
                env_ids.append(name)
        loss, entropy, kl, keep = update_batch(model, optimizer, records, rewards, task_ids, env_ids, mask, config)
        metrics: JSON = {
            "iteration": iteration + 1,
            "reward": float(np.mean(rewards)),
            "success_by_env": {
                n: float(np.mean([r for r, e in zip(rewards, env_ids, strict=True) if e == n]))
                for n in sorted(set(env_ids))
            },
            "kept_fraction": float(keep.mean()),
            "masked_fraction": 1.0 - float(np.mean(mask)),
            "loss": loss,
            "entropy": entropy,
            "kl": kl,
            "seconds": time.perf_counter() - began,
        }
        if run is not None:
            with (run / "metrics.jsonl").open("a") as f:
                f.write(json.dumps(metrics) + "\n")
            if (iteration + 1) % config.checkpoint_every == 0 or iteration + 1 == config.iterations:
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "iteration": iteration + 1}, run / "checkpoint.pt")  # fmt: skip
        if writer is not None:
            writer.add_scalar("train/success", metrics["reward"], iteration + 1)
            writer.add_scalar("train/loss", loss, iteration + 1)
            writer.add_scalar("train/entropy", entropy, iteration + 1)
            writer.add_scalar("train/kl", kl, iteration + 1)
            for env_name, value in metrics["success_by_env"].items():
                writer.add_scalar(f"success/{env_name}", value, iteration + 1)
        if iteration + 1 in points and held_out is not None:
            _record_held_out(held_out_success(model, held_out, iteration + 1), run, writer)
        if progress is not None:
            progress(iteration + 1, metrics)
    if writer is not None:
        writer.close()
    return model


def _record_held_out(rows: list[JSON], run: Path | None, writer: Any) -> None:
    if run is not None:
        with (run / HELD_OUT_FILE).open("a") as f:
            f.writelines(json.dumps(row) + "\n" for row in rows)
    if writer is not None:
        for row in rows:
            writer.add_scalar(f"held_out/{row['split']}", row["success"], row["iteration"])


def make_sampler(name: str, keys: dict[tuple[str, str], tuple[str, Task]]) -> Any:
    """An environment sampler over (environment, task) keys (see ``rl.samplers``)."""
    from envfactory.rl.samplers import AdversarialSampler, CurriculumSampler, UniformSampler, WorstCaseSampler

    groups: dict[Hashable, list[Hashable]] = {}
    for key in keys:
        groups.setdefault(key[0], []).append(key)
    makers = {
        "uniform": lambda: UniformSampler(list(keys)),
        "curriculum": lambda: CurriculumSampler({k: t.level for k, (_, t) in keys.items()}),
        "adversarial": lambda: AdversarialSampler(list(keys)),
        "dro": lambda: WorstCaseSampler(groups, objective="dro"),
        "cvar": lambda: WorstCaseSampler(groups, objective="cvar"),
    }
    if name not in makers:
        raise ValueError(f"unknown sampler {name!r}; choose from {list(makers)}")
    return makers[name]()


def _tensorboard(run: Path | None) -> Any:
    if run is None:
        return None
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:  # TensorBoard is optional; metrics.jsonl is always written
        return None
    return SummaryWriter(log_dir=str(run / "tensorboard"))


def normalization_of(config: TrainConfig) -> Normalization:
    """How the loss averages decisions: the config's choice, else the estimator's own."""
    chosen = config.loss_normalization or DEFAULT_NORMALIZATION.get(config.estimator, "token")
    if chosen not in NORMALIZATIONS:
        raise ValueError(f"unknown loss normalization {chosen!r}; choose from {NORMALIZATIONS}")
    return cast(Normalization, chosen)


class Update(NamedTuple):
    loss: float
    entropy: float
    kl: float  # mean KL(before || after the update) over the decisions it learned from
    keep: np.ndarray


def update_batch(
    model: DRRN,
    optimizer: torch.optim.Optimizer,
    records: list,
    rewards: list[float],
    task_ids: list[str],
    env_ids: list[str],
    mask: list[bool],
    config: TrainConfig,
) -> Update:
    """One policy update from a batch of rollouts; ``mask`` False marks rollouts a user spoiled,
    which the estimator, dynamic sampling and the loss all leave out."""
    advantages = ESTIMATORS[config.estimator](rewards, task_ids, mask, env_ids=env_ids)
    keep = dynamic_sampling(rewards, task_ids, mask) if config.dynamic_sampling else np.asarray(mask, bool)
    loss, entropy, kl = _update(model, optimizer, records, advantages, keep, config)
    return Update(loss, entropy, kl, keep)


def _update(
    model: DRRN,
    optimizer: torch.optim.Optimizer,
    records: list,
    advantages: np.ndarray,
    keep: np.ndarray,
    config: TrainConfig,
) -> tuple[float, float, float]:
    decisions = [
        (seq, d, float(a))
        for seq, (rec, a, k) in enumerate(zip(records, advantages, keep, strict=True))
        if k and a != 0
        for d in rec
    ]
    if not decisions:
        return 0.0, 0.0, 0.0
    normalization = normalization_of(config)
    sequence = torch.tensor([seq for seq, _, _ in decisions])
    old_logp = torch.tensor([float(d[3]) for _, d, _ in decisions])
    adv = torch.tensor([a for _, _, a in decisions])
    total_loss = total_entropy = 0.0
    before: list[torch.Tensor] = []  # the policy's distributions before this update (its first pass)
    for epoch in range(config.epochs):
        optimizer.zero_grad()
        chosen, entropies = [], []
        for _, (state, actions, index, _), _ in decisions:
            logp = torch.log_softmax(model(state, actions), 0)
            if epoch == 0:
                before.append(logp.detach())
            chosen.append(logp[index])
            entropies.append(-(logp.exp() * logp).sum())
        entropy = torch.stack(entropies)
        surrogate = clipped_surrogate(torch.stack(chosen), old_logp, adv, sequence, clip=config.clip,
                                      normalization=normalization, max_length=config.max_decisions)  # fmt: skip
        bonus = aggregate(entropy, sequence, normalization=normalization, max_length=config.max_decisions)
        loss = surrogate - config.entropy * bonus
        loss.backward()
        optimizer.step()
        total_loss += float(loss.detach())
        total_entropy += float(entropy.detach().sum())
    with torch.no_grad():
        after = [torch.log_softmax(model(state, actions), 0) for _, (state, actions, _, _), _ in decisions]
    kl = mean_kl(before, after) if before else 0.0
    return total_loss / config.epochs, total_entropy / (config.epochs * len(decisions)), kl


def load_model(path: str | Path) -> DRRN:
    model = DRRN()
    model.load_state_dict(torch.load(Path(path), weights_only=True)["model"])
    return model

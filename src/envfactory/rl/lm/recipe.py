"""The recipe: a supervised warm start on gold runs, then RL on the model's own rollouts.

    run = train_lm(envs, tasks, LMConfig(), Path("runs/lm"))

1. **Warm start.** Every task's gold run (clarifying questions, the gold calls, the report) is
   played through its environment and kept as token ids when it succeeds; ``sft_epochs`` passes
   of supervised steps over them, the loss on the model's turns only.
2. **RL.** Each iteration draws ``tasks_per_batch`` tasks with the sampler (uniform, curriculum,
   adversarial, DRO...), runs ``group`` sampled episodes of each — all side by side, their turns
   decoded ``decode_rows`` at a time in one batch — under domain randomization when
   it is set, with the scripted user and a judge (the fact judge unless told), whose masks leave spoiled
   episodes out — turns rewards into advantages with a registered estimator (GRPO, Dr.GRPO,
   RLOO, ERPO), and takes one policy-gradient step. Groups whose rewards are all equal carry no
   signal and cost no compute; with ``draws`` above 1 the iteration draws more batches, up to that
   many, until ``tasks_per_batch`` groups carry one (DAPO's dynamic sampling), and steps on those.

After every epoch and iteration the LoRA adapter, the optimizer and the position are saved in
``out`` (``resume=True`` carries on from there: the same batches for the uniform sampler, whose
draws are seeded per iteration; an adaptive sampler starts its statistics afresh); every step
appends a line to ``metrics.jsonl`` and, where TensorBoard is installed, to ``out/tensorboard``.
Dr.GRPO's constant is the most ids an episode can write (``max_new_tokens x max_turns``).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from envfactory.eval.runner import evaluate, play
from envfactory.ir.task import Task
from envfactory.ir.trajectory import Trajectory
from envfactory.rl.advantages import ESTIMATORS
from envfactory.rl.lm.lockstep import Lockstep
from envfactory.rl.lm.model import base_model, load_trained, save_adapter, with_lora
from envfactory.rl.lm.policy import LMPolicy, Prefixes, TeacherPolicy
from envfactory.rl.lm.update import LENGTH_NORMS, Sample, step
from envfactory.runtime.environment import Environment
from envfactory.seeding import derive_seed
from envfactory.wrappers import Randomization

JSON = dict[str, Any]
T = TypeVar("T")
STATE = "lm_state.json"


class LMConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = "local"
    seed: int = 0
    sft_epochs: int = 3
    sft_lr: float = 1e-3
    sft_batch: int = 4
    rl_iterations: int = 4
    rl_lr: float = 2e-4
    tasks_per_batch: int = 4
    group: int = 4
    estimator: str = "grpo"
    sampler: str = "uniform"
    decode_rows: int = Field(default=16, ge=1)  # episodes whose turns are decoded as one batch (1: one at a time)
    draws: int = 1  # dynamic sampling: batches an RL iteration may draw until ``tasks_per_batch`` groups carry a signal
    temperature: float = 0.7
    max_new_tokens: int = 96
    max_turns: int = 8
    max_context: int = 3072
    observe_chars: int = 600
    lora_rank: int = 16
    randomization: Randomization | None = None
    judge: str | None = "facts"  # who masks episodes the user spoiled: facts, local, openai:NAME, none (None)
    judge_base_url: str | None = None


Progress = Callable[[str, int, int, JSON], None]  # stage, step, of, metrics


def demonstrations(envs: dict[str, Environment], tasks: Mapping[str, Sequence[Task]], tokenizer: Any,
                   config: LMConfig) -> list[Sample]:  # fmt: skip
    """Each task's gold run as ids, kept when the run succeeds in its environment."""
    out = []
    for name, env in envs.items():
        teachers: list[TeacherPolicy] = []
        trajectories = evaluate(env, tasks[name], partial(_teacher, teachers, tokenizer, config), seed=config.seed)
        for trajectory, policy in zip(trajectories, teachers, strict=True):
            if trajectory.success:
                out.append(Sample(tuple(policy.chat.ids), tuple(policy.chat.mask), 1.0, f"{name}/{trajectory.task_id}"))
    return out


def _teacher(kept: list[TeacherPolicy], tokenizer: Any, config: LMConfig, _seed: int) -> TeacherPolicy:
    kept.append(TeacherPolicy(tokenizer, observe_chars=config.observe_chars))
    return kept[-1]


class LMPolicies:
    """``make_policy`` for the runner: a seeded LM policy per episode. The episodes share the
    caches of the prompts they read (``prefixes``; a new store by default), so the model's weights
    must not change while they run, and :meth:`play` plays them side by side, ``config.decode_rows``
    at a time, their turns decoded as one batch (:class:`~envfactory.rl.lm.lockstep.Lockstep`)."""

    def __init__(self, model: Any, tokenizer: Any, config: LMConfig, *, sample: bool,
                 prefixes: Prefixes | None = None) -> None:  # fmt: skip
        self.model, self.tokenizer, self.config, self.sample = model, tokenizer, config, sample
        self.prefixes = prefixes if prefixes is not None else Prefixes()
        self.lockstep = Lockstep(model, max_new_tokens=config.max_new_tokens, eos=tokenizer.eos_token_id,
                                 rows=config.decode_rows)  # fmt: skip

    def __call__(self, seed: int) -> LMPolicy:
        config = self.config
        return LMPolicy(self.model, self.tokenizer, seed=seed, sample=self.sample, temperature=config.temperature,
                        max_new_tokens=config.max_new_tokens, max_context=config.max_context,
                        max_turns=config.max_turns, observe_chars=config.observe_chars, prefixes=self.prefixes,
                        lockstep=self.lockstep)  # fmt: skip

    def play(self, jobs: Sequence[Callable[[], T]], progress: Callable[[int], None] | None = None) -> list[T]:
        return self.lockstep.run(jobs, progress)


def policy_maker(model: Any, tokenizer: Any, config: LMConfig, *, sample: bool,
                 prefixes: Prefixes | None = None) -> LMPolicies:  # fmt: skip
    """The seeded LM policies of ``config`` on ``model`` (see :class:`LMPolicies`)."""
    return LMPolicies(model, tokenizer, config, sample=sample, prefixes=prefixes)


def rollouts(model: Any, tokenizer: Any, envs: dict[str, Environment], batch: Sequence[tuple[str, Task]],
             config: LMConfig, seed: int) -> tuple[list[Sample], list[Trajectory], int]:  # fmt: skip
    """``group`` sampled episodes of each task in ``batch``, with their advantages as weights, the
    trajectories and the number of ids generated. All of them are played side by side, their turns
    decoded in batches of ``config.decode_rows``."""
    from envfactory.users.judge import make_judge

    judge = make_judge(config.judge if config.judge != "none" else None, base_url=config.judge_base_url)
    policies = policy_maker(model, tokenizer, config, sample=True)  # the weights are fixed until the step
    made: list[list[LMPolicy]] = []
    jobs = []
    for name, task in batch:
        for trial in range(config.group):
            made.append([])
            jobs.append(partial(play, envs[name], task, trial, partial(_made, made[-1], policies), seed=seed,
                                randomization=config.randomization, judge=judge))  # fmt: skip
    trajectories = policies.play(jobs)
    names = [name for name, _ in batch for _ in range(config.group)]
    kept = [m[0] for m in made]
    advantages = ESTIMATORS[config.estimator](
        [t.reward for t in trajectories], [f"{n}/{t.task_id}" for n, t in zip(names, trajectories, strict=True)],
        mask=[not t.masked for t in trajectories], env_ids=names)  # fmt: skip
    weighted = [Sample(tuple(p.chat.ids), tuple(p.chat.mask), float(a), f"{n}/{t.task_id}")
                for p, t, n, a in zip(kept, trajectories, names, advantages, strict=True)]  # fmt: skip
    return weighted, trajectories, sum(p.generated for p in kept)


def _made(box: list[LMPolicy], policies: LMPolicies, seed: int) -> LMPolicy:
    box.append(policies(seed))
    return box[-1]


class _Record:
    """Each step's metrics: a line of ``metrics.jsonl``, TensorBoard scalars, the progress call."""

    def __init__(self, out: Path, config: LMConfig, progress: Progress | None) -> None:
        from envfactory.rl.trainer import _tensorboard

        self.out, self.config, self.progress = out, config, progress
        self.writer = _tensorboard(out)
        self.lines: list[JSON] = []

    def __call__(self, line: JSON) -> None:
        self.lines.append(line)
        with (self.out / "metrics.jsonl").open("a") as f:
            f.write(json.dumps(line) + "\n")
        if self.writer is not None:
            for key, value in line.items():
                if isinstance(value, int | float) and key != "step":
                    self.writer.add_scalar(f"{line['stage']}/{key}", value, line["step"])
            self.writer.flush()
        if self.progress is not None:
            total = self.config.sft_epochs if line["stage"] == "sft" else self.config.rl_iterations
            self.progress(line["stage"], line["step"], total, line)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


def train_lm(envs: dict[str, Environment], tasks: Mapping[str, Sequence[Task]], config: LMConfig, out: Path, *,
             resume: bool = False, progress: Progress | None = None) -> list[JSON]:  # fmt: skip
    """Warm start, then RL; returns the metrics lines (also in ``out/metrics.jsonl``)."""
    import torch

    out.mkdir(parents=True, exist_ok=True)
    position: JSON = _position(out) if resume else {"stage": "sft", "step": 0}
    if resume and position["step"] == 0 and position["stage"] == "sft":
        resume = False
    if resume:
        tokenizer, model = load_trained(out, config.model)
        model.train()
    else:
        tokenizer, base = base_model(config.model)
        model = with_lora(base, rank=config.lora_rank, seed=config.seed)
        (out / "metrics.jsonl").write_text("")
    (out / "lm_config.json").write_text(config.model_dump_json(indent=2))
    torch.manual_seed(config.seed)
    record = _Record(out, config, progress)
    if position["stage"] == "sft" and config.sft_epochs > position["step"]:
        _warm_start(model, tokenizer, envs, tasks, config, out, record, done=position["step"], resume=resume)
        position, resume = {"stage": "rl", "step": 0}, False
    if config.rl_iterations:
        in_rl = position["stage"] == "rl"  # else the warm start ended a run that had no RL (yet)
        _reinforce(model, tokenizer, envs, tasks, config, out, record, done=position["step"] if in_rl else 0,
                   resume=resume and in_rl)  # fmt: skip
    record.close()
    return record.lines


def _warm_start(model: Any, tokenizer: Any, envs: dict[str, Environment], tasks: Mapping[str, Sequence[Task]],
                config: LMConfig, out: Path, record: _Record, *, done: int, resume: bool) -> None:  # fmt: skip
    """Supervised epochs over the gold runs, from epoch ``done`` on (the shuffles replayed)."""
    demos = demonstrations(envs, tasks, tokenizer, config)
    optimizer = _optimizer(_trainable(model), config.sft_lr, out if resume else None)
    rng = random.Random(derive_seed(config.seed, "sft"))
    order = list(range(len(demos)))
    for epoch in range(config.sft_epochs):
        rng.shuffle(order)
        if epoch < done:
            continue
        start = time.perf_counter()
        losses = [step(model, optimizer, [demos[i] for i in order[k : k + config.sft_batch]], "supervised")
                  for k in range(0, len(order), config.sft_batch)]  # fmt: skip
        record({"stage": "sft", "step": epoch + 1, "loss": sum(losses) / max(1, len(losses)),
                "demonstrations": len(demos), "seconds": round(time.perf_counter() - start, 1)})  # fmt: skip
        _save(model, optimizer, out, {"stage": "sft", "step": epoch + 1})


def _reinforce(model: Any, tokenizer: Any, envs: dict[str, Environment], tasks: Mapping[str, Sequence[Task]],
               config: LMConfig, out: Path, record: _Record, *, done: int, resume: bool) -> None:  # fmt: skip
    """RL iterations from iteration ``done`` on: rollouts, advantages, one step each."""
    from envfactory.rl.trainer import make_sampler

    optimizer = _optimizer(_trainable(model), config.rl_lr, out if resume else None)
    keys = {(name, t.id): (name, t) for name, ts in tasks.items() for t in ts}
    sampler = make_sampler(config.sampler, keys)
    kind = LENGTH_NORMS.get(config.estimator, "sequence")
    for iteration in range(done, config.rl_iterations):
        start = time.perf_counter()
        kept: list[Sample] = []
        trajectories: list[Trajectory] = []
        generated, rolled, draws = 0, 0.0, 0
        while draws < max(1, config.draws) and signalled(kept, config.group) < config.tasks_per_batch:
            tail = (iteration,) if draws == 0 else (iteration, draws)  # the first draw as without dynamic sampling
            rng = random.Random(derive_seed(config.seed, "rl", *tail))
            batch = [keys[sampler.sample(rng)] for _ in range(min(config.tasks_per_batch, len(keys)))]
            began = time.perf_counter()
            samples, drawn, made = rollouts(model, tokenizer, envs, batch, config,
                                            derive_seed(config.seed, "episodes", *tail))  # fmt: skip
            rolled, generated, draws = rolled + time.perf_counter() - began, generated + made, draws + 1
            trajectories += drawn
            for (name, task), group in zip(batch, _chunks(drawn, config.group), strict=True):
                for trajectory in group:
                    sampler.update((name, task.id), trajectory.reward)
            for group in _chunks(samples, config.group):
                if signalled(kept, config.group) < config.tasks_per_batch and signalled(group, config.group):
                    kept += group
        loss = step(model, optimizer, kept, kind, constant=float(config.max_new_tokens * config.max_turns))
        record({"stage": "rl", "step": iteration + 1, "loss": loss,
                "reward": sum(t.reward for t in trajectories) / max(1, len(trajectories)),
                "masked": sum(t.masked for t in trajectories),
                "learned_from": sum(s.weight != 0.0 for s in kept), "episodes": len(trajectories), "draws": draws,
                "tokens_per_s": round(generated / max(rolled, 1e-9), 1),
                "seconds": round(time.perf_counter() - start, 1)})  # fmt: skip
        _save(model, optimizer, out, {"stage": "rl", "step": iteration + 1})


def signalled(samples: Sequence[Sample], group: int) -> int:
    """How many of the groups ``samples`` holds (``group`` consecutive samples each) carry a signal:
    some advantage not 0, which a group of equal rewards never has."""
    return sum(any(s.weight != 0.0 for s in chunk) for chunk in _chunks(samples, group))


def _trainable(model: Any) -> list[Any]:
    return [p for p in model.parameters() if p.requires_grad]


def _chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _optimizer(params: list[Any], lr: float, folder: Path | None) -> Any:
    import torch

    optimizer = torch.optim.AdamW(params, lr=lr, weight_decay=0.0)
    saved = folder / "optimizer.pt" if folder is not None else None
    if saved is not None and saved.is_file():
        optimizer.load_state_dict(torch.load(saved))
    return optimizer


def _save(model: Any, optimizer: Any, out: Path, position: JSON) -> None:
    import torch

    save_adapter(model, out)
    torch.save(optimizer.state_dict(), out / "optimizer.pt")
    (out / STATE).write_text(json.dumps(position))


def _position(out: Path) -> JSON:
    path = out / STATE
    return json.loads(path.read_text()) if path.is_file() else {"stage": "sft", "step": 0}


def is_run(folder: str | Path) -> bool:
    """Whether ``folder`` is a trained language-model run (it holds an adapter)."""
    from envfactory.rl.lm.model import ADAPTER

    return (Path(folder) / ADAPTER / "adapter_config.json").is_file()


def trained_policy(folder: str | Path, model: str | None = None, *, sample: bool = False) -> LMPolicies:
    """``make_policy`` for a trained run: its adapter on its base model (``model`` overrides the
    run's own), decoding greedily unless ``sample``, with the run's decoding settings."""
    root = Path(folder)
    saved = root / "lm_config.json"
    config = LMConfig.model_validate_json(saved.read_text()) if saved.is_file() else LMConfig()
    tokenizer, trained = load_trained(root, model or config.model)
    return policy_maker(trained, tokenizer, config, sample=sample)


__all__ = [
    "LMConfig",
    "LMPolicies",
    "demonstrations",
    "is_run",
    "policy_maker",
    "rollouts",
    "signalled",
    "train_lm",
    "trained_policy",
]

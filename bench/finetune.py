"""Does RL improve on the warm start? Held-out success along training, greedy and sampled.

    cd bench && python finetune.py [--iterations 40] [--seeds 2]

The demo's training-rollout success falls after the warm start (about 0.9 to 0.6-0.7 by
iteration 40). Training rollouts are *sampled*; the demo evaluates *greedy*. This script trains
without randomization (to isolate the optimizer) from the same warm start under a few settings
and measures held-out success (tasks up to level 3, the demo's split) with the greedy policy and
with the sampled one, at iteration 0 (the warm start alone), 10, 20 and the end.
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from statistics import mean

from common import arguments, setup
from rich.console import Console
from rich.table import Table

from envfactory.demo import TRAIN_LEVEL
from envfactory.eval.metrics import summarize
from envfactory.eval.runner import evaluate
from envfactory.rl.drrn import DRRN, DRRNPolicy
from envfactory.rl.trainer import TrainConfig, load_model, train

SETTINGS = {
    "as in the demo (lr 0.005, entropy bonus 0.01)": {},
    "no entropy bonus": {"entropy": 0.0},
    "lr 0.001, no entropy bonus": {"entropy": 0.0, "finetune_lr": 0.001},
}


def success(envs: dict, tests: dict, names: list[str], model: DRRN, greedy: bool, seed: int) -> float:
    trajs = [
        t
        for n in names
        for t in evaluate(envs[n], tests[n], lambda s: DRRNPolicy(model, seed=s, greedy=greedy), seed=seed)
    ]
    return float(summarize(trajs)["success"])


def main() -> None:
    args = arguments(__doc__, seeds=2, iterations=40)
    checkpoints = sorted({0, 10, 20, args.iterations})
    rows: dict[str, dict[int, list[tuple[float, float]]]] = {k: {c: [] for c in checkpoints} for k in SETTINGS}
    for seed in range(args.seeds):
        envs, train_tasks, test_tasks, names = setup(seed=seed, max_level=TRAIN_LEVEL)
        for label, change in SETTINGS.items():
            base = replace(TrainConfig(estimator="erpo", seed=seed, warm_start=8), **change)
            with tempfile.TemporaryDirectory() as tmp:
                for point in checkpoints:
                    config = replace(base, iterations=point, checkpoint_every=10)
                    model = train({n: envs[n] for n in names}, {n: train_tasks[n] for n in names}, config, tmp,
                                  resume=point > 0)  # fmt: skip
                    if point > 0:
                        model = load_model(Path(tmp) / "checkpoint.pt")
                    rows[label][point].append(
                        (success(envs, test_tasks, names, model, True, seed),
                         success(envs, test_tasks, names, model, False, seed))
                    )  # fmt: skip
    table = Table(title=f"Held-out success (level <= {TRAIN_LEVEL}) along RL after the warm start, "
                        f"{args.seeds} seeds: greedy / sampled")  # fmt: skip
    table.add_column("setting")
    for point in checkpoints:
        table.add_column(f"iteration {point}", justify="right")
    for label, by_point in rows.items():
        cells = [f"{mean(g for g, _ in v):.1%} / {mean(s for _, s in v):.1%}" for v in by_point.values()]
        table.add_row(label, *cells)
    Console(width=160).print(table)


if __name__ == "__main__":
    main()

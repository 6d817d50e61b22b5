"""ERPO vs GRPO vs RLOO (and Dr.GRPO) on the same budget across heterogeneous environments.

    python bench/advantages.py [--seeds 3] [--iterations 60]

Same tasks, same iterations, same seeds; only the advantage estimator changes. Reported: final
success on held-out tasks of the training environments and on the held-out environments
(mean ± std over seeds), and the spread of success across the training environments.
"""

from __future__ import annotations

import json
from pathlib import Path
from statistics import pstdev

from common import arguments, mean_std, setup
from rich.console import Console
from rich.table import Table

from envfactory.demo import HELD_OUT
from envfactory.eval.metrics import breakdown, summarize
from envfactory.eval.runner import evaluate
from envfactory.rl.drrn import DRRNPolicy
from envfactory.rl.trainer import TrainConfig, train

ESTIMATORS = ("erpo", "grpo", "rloo", "dr_grpo")


def main() -> None:
    args = arguments(__doc__)
    envs, train_tasks, test_tasks, names = setup()
    results: dict[str, dict[str, list[float]]] = {
        e: {"train_envs": [], "held_out_envs": [], "spread": []} for e in ESTIMATORS
    }
    for seed in range(args.seeds):
        for estimator in ESTIMATORS:
            config = TrainConfig(iterations=args.iterations, estimator=estimator, seed=seed)
            model = train({n: envs[n] for n in names}, {n: train_tasks[n] for n in names}, config)
            policy = lambda s, m=model: DRRNPolicy(m, seed=s, greedy=True)  # noqa: E731
            inside = [t for n in names for t in evaluate(envs[n], test_tasks[n], policy, seed=seed)]
            outside = [
                t for n in HELD_OUT for t in evaluate(envs[n], test_tasks[n] + train_tasks[n], policy, seed=seed)
            ]
            per_env = [m["success"] for m in breakdown(inside, lambda t: t.env).values()]
            results[estimator]["train_envs"].append(summarize(inside)["success"])
            results[estimator]["held_out_envs"].append(summarize(outside)["success"])
            results[estimator]["spread"].append(pstdev(per_env))
            print(f"seed {seed} {estimator}: {results[estimator]['train_envs'][-1]:.0%} / "
                  f"{results[estimator]['held_out_envs'][-1]:.0%}", flush=True)  # fmt: skip
    table = Table(title=f"Advantage estimators, same budget ({args.seeds} seeds x {args.iterations} iterations)")
    for col in ("estimator", "held-out tasks, training envs", "held-out envs", "std across training envs"):
        table.add_column(col, justify="right")
    for estimator, r in results.items():
        table.add_row(estimator, mean_std(r["train_envs"]), mean_std(r["held_out_envs"]), mean_std(r["spread"]))
    Console(width=160).print(table)
    Path("out").mkdir(exist_ok=True)
    Path("out/bench_advantages.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()

"""Does training under domain randomization make the policy lose less when tools behave differently?

    python bench/robustness.py [--seeds 3] [--iterations 60]

For each seed, the DRRN policy is trained with ERPO twice on the same tasks — with randomization
(all families) and without — and both are evaluated on held-out tasks of the training
environments, clean and under each randomization family. Reported: success and the drop from
clean success, mean ± std over seeds.
"""

from __future__ import annotations

import json
from pathlib import Path

from common import arguments, mean_std, setup
from rich.console import Console
from rich.table import Table

from envfactory.eval.metrics import summarize
from envfactory.eval.runner import evaluate
from envfactory.rl.demo import ALL_RANDOM
from envfactory.rl.drrn import DRRNPolicy
from envfactory.rl.trainer import TrainConfig, train
from envfactory.wrappers import FAMILIES, Randomization


def main() -> None:
    args = arguments(__doc__)
    envs, train_tasks, test_tasks, names = setup()
    families = ["none", *FAMILIES]
    success: dict[str, dict[str, list[float]]] = {p: {f: [] for f in families} for p in ("randomized", "clean")}
    for seed in range(args.seeds):
        for label, randomization in (("randomized", ALL_RANDOM), ("clean", None)):
            config = TrainConfig(iterations=args.iterations, randomization=randomization, seed=seed)
            model = train({n: envs[n] for n in names}, {n: train_tasks[n] for n in names}, config)
            for family in families:
                rnd = None if family == "none" else Randomization(**{family: "random"})
                policy = lambda s, m=model: DRRNPolicy(m, seed=s, greedy=True)  # noqa: E731
                trajs = [
                    t
                    for n in names
                    for t in evaluate(envs[n], test_tasks[n], policy, seed=100 + seed, randomization=rnd)
                ]
                success[label][family].append(summarize(trajs)["success"])
            print(
                f"seed {seed} {label}: " + ", ".join(f"{f} {success[label][f][-1]:.0%}" for f in families), flush=True
            )
    table = Table(
        title=f"Success on held-out tasks of the training envs ({args.seeds} seeds, {args.iterations} iterations)"
    )
    for col in ("family", "trained with randomization", "drop", "trained without", "drop", "randomized loses less"):
        table.add_column(col, justify="right")
    for family in families:
        drops = {p: [c - r for c, r in zip(success[p]["none"], success[p][family], strict=True)] for p in success}
        ours, theirs = (sum(drops[p]) / len(drops[p]) for p in ("randomized", "clean"))
        verdict = "-" if family == "none" else "yes" if ours < theirs else "equal" if ours == theirs else "no"
        cells = [mean_std(success["randomized"][family]), mean_std(drops["randomized"])]
        table.add_row(family, *cells, mean_std(success["clean"][family]), mean_std(drops["clean"]), verdict)
    Console(width=160).print(table)
    Path("out").mkdir(exist_ok=True)
    Path("out/bench_robustness.json").write_text(json.dumps(success, indent=2))


if __name__ == "__main__":
    main()

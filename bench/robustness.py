"""Does training under domain randomization make the policy lose less when tools behave differently?

    python bench/robustness.py [--seeds 5] [--iterations 40] [--tasks 300] [--max-level 3]
                               [--warm-start 8] [--repeats 2] [--workers 2]

For each seed, the DRRN policy is trained twice on the same tasks — with randomization (all
families, half of the episodes) and without: ``--warm-start`` epochs of cloning the gold plans'
decisions (in randomized episodes for the first), then ``--iterations`` of ERPO. Tasks go up to
``--max-level`` (3 includes tasks that must read a list: look a row up, take an extreme), leaving
out tasks that must state a computed fact. Both policies are evaluated on held-out tasks of the
training environments: clean, under each family drawn at random (the training distribution), and
under each family's stress setting (every perturbation at once), each task ``--repeats`` times.
Reported: success and the drop from clean success, mean ± std over seeds, and whether the
randomized policy loses less. ``--warm-start 0 --max-level 2`` is RL from scratch on the
write-only tasks.
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from statistics import mean

from common import arguments, mean_std, setup
from rich.console import Console
from rich.table import Table

from envfactory.demo import ALL_RANDOM
from envfactory.eval.metrics import summarize
from envfactory.eval.runner import evaluate
from envfactory.rl.drrn import DRRNPolicy
from envfactory.rl.trainer import TrainConfig, train
from envfactory.wrappers import condition, conditions

CONDITIONS = conditions()
_DATA: tuple = ()


def _load(n_tasks: int, max_level: int) -> None:
    global _DATA
    _DATA = setup(n_tasks, max_level=max_level)


def _job(seed: int, randomized: bool, iterations: int, warm_start: int, repeats: int) -> dict[str, float]:
    """Train one policy and evaluate it under every condition: condition -> success."""
    envs, train_tasks, test_tasks, names = _DATA
    config = TrainConfig(
        iterations=iterations,
        randomization=ALL_RANDOM if randomized else None,
        seed=seed,
        warm_start=warm_start,
    )
    model = train({n: envs[n] for n in names}, {n: train_tasks[n] for n in names}, config)
    out = {}
    for name in CONDITIONS:
        trajs = [
            t
            for r in range(repeats)
            for n in names
            for t in evaluate(
                envs[n],
                test_tasks[n],
                lambda s, m=model: DRRNPolicy(m, seed=s, greedy=True),
                seed=1000 * (seed + 1) + r,
                randomization=condition(name),
            )
        ]
        out[name] = summarize(trajs)["success"]
    return out


def main() -> None:
    args = arguments(__doc__, seeds=5, iterations=40, tasks=300, max_level=3, warm_start=8, repeats=2, workers=2)
    jobs = [(seed, randomized) for seed in range(args.seeds) for randomized in (True, False)]
    with ProcessPoolExecutor(args.workers, initializer=_load, initargs=(args.tasks, args.max_level)) as pool:
        futures = {job: pool.submit(_job, *job, args.iterations, args.warm_start, args.repeats) for job in jobs}
        results = {job: f.result() for job, f in futures.items()}
    success = {
        label: {c: [results[(s, randomized)][c] for s in range(args.seeds)] for c in CONDITIONS}
        for label, randomized in (("randomized", True), ("clean", False))
    }
    _, _, test_tasks, names = setup(args.tasks, max_level=args.max_level)
    table = Table(
        title=f"Success on {sum(len(test_tasks[n]) for n in names)} held-out tasks (level <= {args.max_level}) of the "
        f"training envs x {args.repeats} ({args.seeds} seeds, warm start {args.warm_start} epochs, "
        f"{args.iterations} RL iterations)"
    )
    columns = ("condition", "trained with randomization", "drop", "trained without", "drop", "randomized loses less",
               "seeds where it does")  # fmt: skip
    for col in columns:
        table.add_column(col, justify="right")
    for setting in CONDITIONS:
        drops = {p: [c - r for c, r in zip(success[p]["none"], success[p][setting], strict=True)] for p in success}
        ours, theirs = mean(drops["randomized"]), mean(drops["clean"])
        verdict = "-" if setting == "none" else "yes" if ours < theirs else "equal" if ours == theirs else "no"
        wins = sum(a < b for a, b in zip(drops["randomized"], drops["clean"], strict=True))
        paired = "-" if setting == "none" else f"{wins} of {args.seeds}"
        ours_cells = [mean_std(success["randomized"][setting]), mean_std(drops["randomized"])]
        theirs_cells = [mean_std(success["clean"][setting]), mean_std(drops["clean"])]
        table.add_row(setting, *ours_cells, *theirs_cells, verdict, paired)
    Console(width=160).print(table)
    Path("out").mkdir(exist_ok=True)
    Path("out/bench_robustness.json").write_text(json.dumps({"args": vars(args), "success": success}, indent=2))


if __name__ == "__main__":
    main()

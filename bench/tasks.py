"""Task synthesis throughput and verify() latency, per bundled environment.

    python bench/tasks.py [-n 500]

Targets (one core): >= 200 kept tasks/s including the verifier self-test; verify() <= 1 ms
median. Also the acceptance table: distinct tasks from `-n`, and the success of the no-op,
read-only and random agents. Baseline for verify: comparing fully materialized states.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from envfactory.bundled import BUNDLED, bundled_specs_dir
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.agents import gold
from envfactory.tasks.generate import baselines, generate_tasks
from envfactory.tasks.taskset import task_line
from envfactory.users.scripted import ScriptedUser


def verify_latency(env: Environment, tasks: list) -> tuple[float, float]:
    episode = env.episode(max_steps=10_000, user=ScriptedUser())
    ours, naive = [], []
    for task in tasks[:200]:
        episode.reset(task=task)
        gold(task).run(episode, task)
        start = time.perf_counter_ns()
        verdict = episode.verify()
        ours.append((time.perf_counter_ns() - start) / 1000)
        assert verdict.success
        target = episode.state()
        start = time.perf_counter_ns()
        _ = json.dumps(episode.state(), sort_keys=True) == json.dumps(target, sort_keys=True)
        naive.append((time.perf_counter_ns() - start) / 1000)
    return statistics.median(ours), statistics.median(naive)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    console = Console(width=170)
    table = Table(title=f"Task synthesis, -n {args.n} per environment (one core)")
    cols = ["env", "kept", "distinct", "attempts", "kept tasks/s", "L1", "L2", "L3", "L4", "L5", "no-op",
            "read-only", "random", "verify µs (median)", "baseline: full-state compare µs"]  # fmt: skip
    for col in cols:
        table.add_column(col, justify="right")
    results = {}
    for name, file in BUNDLED.items():
        env = Environment(synthesize(bundled_specs_dir() / file, name=name, trust_code=True))
        start = time.perf_counter()
        tasks, report = generate_tasks(env, args.n, seed=args.seed)
        elapsed = time.perf_counter() - start
        rates = baselines(env, tasks, seed=args.seed)
        ours, naive = verify_latency(env, tasks)
        distinct = len({task_line(t) for t in tasks})
        levels = [report.levels.get(level, 0) for level in range(1, 6)]
        results[name] = {"kept": len(tasks), "distinct": distinct, "attempts": report.attempts,
                         "tasks_per_s": len(tasks) / elapsed, "levels": levels, "baselines": rates,
                         "verify_us": ours, "naive_verify_us": naive}  # fmt: skip
        speed = f"{results[name]['tasks_per_s']:.0f}"
        shares = [f"{rates[k]:.1%}" for k in ("no-op", "read-only", "random")]
        cells = [
            name,
            str(len(tasks)),
            str(distinct),
            str(report.attempts),
            speed,
            *map(str, levels),
            *shares,
        ]
        table.add_row(*cells, f"{ours:.1f}", f"{naive:.1f}")
    console.print(table)
    slowest = min(r["tasks_per_s"] for r in results.values())
    worst_verify = max(r["verify_us"] for r in results.values())
    console.print(
        f"slowest environment: {slowest:.0f} kept tasks/s (target >= 200); "
        f"worst median verify: {worst_verify:.1f} µs (target <= 1000 µs)"
    )
    out = Path("out") / "bench_tasks.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    console.print(f"raw numbers: {out}")


if __name__ == "__main__":
    main()

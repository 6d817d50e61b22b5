"""Rollouts on Ray actors in local mode, beside the same episodes in-process.

    python bench/ray_scale.py [--episodes 600] [--policy random]

Episodes/s in-process (one core), then on 1 and 2 Ray actors on this machine (the coordinator
shares the cores), the overhead per episode of going through Ray, and a projection for N
machines. The episodes and their seeds are the same everywhere (the trajectories are equal).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import ray
from rich.console import Console
from rich.table import Table

from envfactory.bundled import bundled_environment
from envfactory.eval.runner import evaluate
from envfactory.rl.distributed import ray_rollouts
from envfactory.rl.named import policy_factory
from envfactory.tasks.generate import generate_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=600)
    parser.add_argument("--policy", default="random")
    args = parser.parse_args()
    env = bundled_environment("shop")
    tasks = generate_tasks(env, 60, seed=0)[0]
    trials = max(1, args.episodes // len(tasks))
    env_dir = env.spec.save(Path(tempfile.mkdtemp()) / "shop")
    evaluate(env, tasks[:5], policy_factory(args.policy))  # warm up
    start = time.perf_counter()
    local = evaluate(env, tasks, policy_factory(args.policy), trials=trials)
    local_rate = len(local) / (time.perf_counter() - start)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    table = Table(title=f"{len(local)} shop episodes, policy {args.policy}")
    for col in ("where", "episodes/s", "overhead per episode", "same trajectories"):
        table.add_column(col)
    table.add_row("in-process", f"{local_rate:.0f}", "-", "-")
    for workers in (1, 2):
        ray_rollouts(env_dir, tasks[:4], args.policy, workers=workers)  # start the actors once
        start = time.perf_counter()
        remote = ray_rollouts(env_dir, tasks, args.policy, workers=workers, trials=trials, in_flight=8)
        seconds = time.perf_counter() - start
        rate = len(remote) / seconds
        overhead = seconds / len(remote) * workers - 1 / local_rate
        same = [t.model_dump(exclude={"messages"}) for t in remote] == [
            t.model_dump(exclude={"messages"}) for t in local
        ]
        table.add_row(f"Ray, {workers} actor{'s' * (workers > 1)}", f"{rate:.0f}", f"{overhead * 1000:.2f} ms",
                      "yes" if same else "NO")  # fmt: skip
    ray.shutdown()
    Console(width=120).print(table)
    print(
        "Projection: each actor adds about one core's worth of episodes while an episode costs more than the "
        "Ray overhead above; with N machines of C cores and the coordinator on its own core, throughput "
        "approaches N x C x (the in-process rate) for episodes longer than that overhead, and is bounded by "
        "the coordinator's per-episode cost for shorter ones."
    )


if __name__ == "__main__":
    main()

"""Shared set-up for the RL benches: bundled environments, their tasks, the demo's splits."""

from __future__ import annotations

import argparse
from statistics import mean, pstdev

from envfactory.bundled import BUNDLED, bundled_specs_dir
from envfactory.demo import HELD_OUT, MAX_LEVEL, split_for_demo
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.generate import generate_tasks


def setup(n_tasks: int = 150, seed: int = 0, max_level: int = MAX_LEVEL) -> tuple[dict, dict, dict, list[str]]:
    envs = {
        name: Environment(synthesize(bundled_specs_dir() / file, name=name, trust_code=True))
        for name, file in BUNDLED.items()
    }
    tasks = {name: generate_tasks(env, n_tasks, seed=seed)[0] for name, env in envs.items()}
    train_tasks, test_tasks = split_for_demo(tasks, seed, max_level)
    return envs, train_tasks, test_tasks, [n for n in envs if n not in HELD_OUT]


def mean_std(values: list[float]) -> str:
    return f"{mean(values):.1%} ± {pstdev(values):.1%}"


def arguments(doc: str | None, **defaults: int) -> argparse.Namespace:
    """``--seeds`` and ``--iterations``, plus an integer option for each of ``defaults``."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=defaults.pop("seeds", 3))
    parser.add_argument("--iterations", type=int, default=defaults.pop("iterations", 60))
    for name, default in defaults.items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=int, default=default)
    return parser.parse_args()

"""Rollouts on Ray actors (local mode): the same trajectories as in-process, and a killed worker's
episodes are played again elsewhere."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import ray

from envfactory.eval.runner import evaluate
from envfactory.rl.distributed import ray_rollouts
from envfactory.rl.named import policy_factory
from envfactory.runtime.environment import Environment
from envfactory.tasks.generate import generate_tasks


@pytest.fixture(scope="module")
def local_ray() -> Any:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_ray_workers_give_the_in_process_trajectories_and_survive_a_killed_worker(
    local_ray: Any, bundled_envs: dict[str, Environment], tmp_path: Path
) -> None:
    shop = bundled_envs["shop"]
    env_dir = shop.spec.save(tmp_path / "shop")
    tasks = generate_tasks(shop, 6, seed=0)[0]
    local = evaluate(shop, tasks, policy_factory("random"), trials=2, seed=4)
    remote = ray_rollouts(env_dir, tasks, "random", workers=2, trials=2, seed=4)
    strip = lambda ts: [t.model_dump(exclude={"messages"}) for t in ts]  # noqa: E731
    assert strip(remote) == strip(local)

    killed: list[int] = []

    def chaos(done: int, actors: list[Any]) -> None:
        if done == 3 and not killed:
            ray.kill(actors[0])
            killed.append(done)

    again = ray_rollouts(env_dir, tasks, "gold", workers=2, trials=2, chaos=chaos)
    assert killed and len(again) == 12 and all(t.success for t in again)  # every episode, once each

"""Rollouts on Ray when one machine is not enough (the ``ray`` extra).

``ray_rollouts(env_dir, tasks, policy)`` starts ``workers`` Ray actors, each loading the
environment once and building the policy from its name (``envfactory.rl.named``), and a
coordinator that keeps at most ``in_flight`` episodes queued per worker (backpressure), collects
trajectories as they finish, and, when a worker dies, starts a new one and gives its episodes to
the others again (up to ``max_retries`` times each). Episode seeds are those of the in-process
evaluator, so a trajectory is the same wherever it ran. ``address=None`` runs Ray locally on this
machine; ``address="ray://host:10001"`` or ``"auto"`` joins a cluster.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from envfactory.errors import EnvFactoryError
from envfactory.ir.task import Task
from envfactory.ir.trajectory import Trajectory
from envfactory.seeding import derive_seed

JSON = dict[str, Any]


class EpisodeWorker:
    """One environment and one policy factory; plays the episodes it is given."""

    def __init__(self, env_dir: str, policy: str, trust_code: bool = False) -> None:
        from envfactory.rl.named import policy_factory
        from envfactory.runtime.environment import Environment

        self.env = Environment.load(Path(env_dir), trust_code=trust_code)
        self.make = policy_factory(policy)

    def run(self, task_json: str, seed: int) -> JSON:
        from envfactory.rl.rollout import rollout
        from envfactory.users.judge import FactJudge
        from envfactory.users.scripted import ScriptedUser

        task = Task.model_validate_json(task_json)
        episode = self.env.episode(user=ScriptedUser())
        return rollout(episode, task, self.make(seed), seed=seed, judge=FactJudge()).model_dump(mode="json")

    def ping(self) -> bool:
        return True


def ray_rollouts(
    env_dir: Path,
    tasks: list[Task],
    policy: str,
    *,
    workers: int = 2,
    address: str | None = None,
    trials: int = 1,
    seed: int = 0,
    in_flight: int = 2,
    max_retries: int = 2,
    trust_code: bool = False,
    progress: Callable[[int], None] | None = None,
    chaos: Callable[[int, list[Any]], None] | None = None,
) -> list[Trajectory]:
    """Trajectories for every (task, trial), in that order (see the module docstring). ``chaos`` is
    called after each finished episode with the count and the live actors (tests kill one there)."""
    import ray
    from ray.exceptions import RayActorError

    if not ray.is_initialized():
        try:
            ray.init(address=address, num_cpus=None if address else workers, include_dashboard=False,
                     log_to_driver=False, ignore_reinit_error=True)  # fmt: skip
        except ConnectionError as err:  # `--address auto` (or an address) with no cluster there
            raise EnvFactoryError(
                f"no Ray cluster at --address {address}: start one (`ray start --head`) or leave --address out "
                f"to run a local one ({' '.join(str(err).split())[:200]})"
            ) from None
    remote_worker = ray.remote(num_cpus=1)(EpisodeWorker)

    def spawn() -> Any:
        return remote_worker.options(max_restarts=0, max_task_retries=0).remote(str(env_dir), policy, trust_code)

    actors = [spawn() for _ in range(workers)]
    jobs: deque[tuple[int, str, int, int]] = deque()  # (index, task json, seed, attempt)
    for task in tasks:
        for trial in range(trials):
            jobs.append((len(jobs), task.model_dump_json(), derive_seed(seed, task.id, trial) % 2**31, 0))
    results: list[JSON | None] = [None] * len(jobs)
    pending: dict[Any, tuple[tuple[int, str, int, int], int]] = {}  # ref -> (job, actor slot)
    load = [0] * workers
    done = 0
    while jobs or pending:
        for slot in range(workers):  # backpressure: at most `in_flight` episodes queued per worker
            while jobs and load[slot] < in_flight:
                job = jobs.popleft()
                pending[actors[slot].run.remote(job[1], job[2])] = (job, slot)
                load[slot] += 1
        ready, _ = ray.wait(list(pending), num_returns=1)
        job, slot = pending.pop(ready[0])
        load[slot] -= 1
        try:
            results[job[0]] = ray.get(ready[0])
        except RayActorError:
            if job[3] >= max_retries:
                raise RuntimeError(f"episode {job[0]} lost its worker {max_retries + 1} times") from None
            jobs.appendleft((job[0], job[1], job[2], job[3] + 1))
            if _dead(actors[slot]):
                actors[slot] = spawn()  # the lost worker's other episodes come back through the same path
            continue
        done += 1
        if progress is not None:
            progress(done)
        if chaos is not None:
            chaos(done, actors)
    return [Trajectory.model_validate(r) for r in results]


def _dead(actor: Any) -> bool:
    import ray
    from ray.exceptions import RayActorError

    try:
        ray.get(actor.ping.remote(), timeout=10)
    except (RayActorError, ray.exceptions.GetTimeoutError):
        return True
    return False


__all__ = ["EpisodeWorker", "ray_rollouts"]

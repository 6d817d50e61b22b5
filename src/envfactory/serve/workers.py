"""``envfactory serve --workers N``: one OpenEnv server process per core, sessions pinned to one.

uvicorn's own supervisor runs the workers: it binds the port once, starts N processes that share
it (the kernel hands each new connection to one of them) and restarts one that dies. A WebSocket
session lives on the worker that accepted its connection, with its episode, for as long as the
connection lasts, so nothing is shared between workers but the port and the trajectory file,
which every worker appends to whole lines at a time (one ``write`` each on a file opened for
appending). Each worker holds ``ceil(max_sessions / N)`` sessions and answers ``/metrics`` for
itself.

A worker is a fresh process (uvicorn spawns them), so it builds its app from
:class:`WorkerSettings`, which the command puts in the environment variable :data:`SETTINGS`
before uvicorn starts them; the bearer token travels as ``ENVFACTORY_TOKEN``, as the command
reads it.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

SETTINGS = "ENVFACTORY_SERVE_WORKER"
TOKEN = "ENVFACTORY_TOKEN"


class WorkerSettings(BaseModel):
    """What every worker builds its app from (``make_app``'s arguments, the sessions per worker)."""

    model_config = ConfigDict(frozen=True)

    env_dir: Path
    tasks_file: Path | None = None
    max_sessions: int
    trust_code: bool = False
    max_body: int
    idle_s: float
    trajectories: Path
    step_timeout_s: float


def per_worker(max_sessions: int, workers: int) -> int:
    """The sessions each of ``workers`` holds so that together they hold ``max_sessions``."""
    return max(1, math.ceil(max_sessions / max(1, workers)))


def app() -> Any:
    """The app of one worker (uvicorn calls it in each worker process: ``factory=True``)."""
    from envfactory.integrations.openenv import make_app
    from envfactory.serve.guard import quiet_gc
    from envfactory.tasks.taskset import TaskSet

    raw = os.environ.get(SETTINGS)
    if raw is None:
        raise RuntimeError(f"{SETTINGS} is not set: workers are started by `envfactory serve --workers N`")
    settings = WorkerSettings.model_validate_json(raw)
    tasks = {t.id: t for t in TaskSet(settings.tasks_file)} if settings.tasks_file is not None else {}
    built = make_app(settings.env_dir, tasks, max_sessions=settings.max_sessions, trust_code=settings.trust_code,
                     token=os.environ.get(TOKEN) or None, max_body=settings.max_body, idle_s=settings.idle_s,
                     trajectories=settings.trajectories, step_timeout_s=settings.step_timeout_s)  # fmt: skip
    quiet_gc()
    return built


__all__ = ["SETTINGS", "WorkerSettings", "app", "per_worker"]

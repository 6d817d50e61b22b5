"""A task file written as tasks are proven: one line appended (and flushed) per kept task, a resume
point read back from what an interrupted run left, and the progress line (kept / tried / rate / ETA)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from pydantic import ValidationError

from envfactory.errors import TaskSetError
from envfactory.ir.task import Task
from envfactory.tasks.taskset import task_line


@dataclass(frozen=True)
class Resume:
    """Where a run continues: the tasks already kept (in file order) and the next attempt to try."""

    tasks: tuple[Task, ...] = ()
    next_attempt: int = 0


def read_resume(path: Path, env: str, seed: int) -> Resume:
    """The tasks an earlier run of ``(env, seed)`` wrote to ``path``. A last line cut short by an
    interruption (no newline) is dropped from the file; any other line that is not a task of this
    environment and seed is an error naming the file and the line."""
    if not path.exists():
        return Resume()
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) != len(data):
        with path.open("r+b") as f:  # the half-written line of an interrupted run
            f.truncate(len(complete))
    tasks: list[Task] = []
    for number, raw in enumerate(complete.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            task = Task.model_validate_json(raw)
        except ValidationError as err:
            why = err.errors()[0]["msg"]
            raise TaskSetError(f"{path}: line {number} is not a task ({why}); cannot resume") from None
        if task.env != env or task.origin is None or task.origin.seed != seed:
            origin = f"seed {task.origin.seed}" if task.origin is not None else "no origin"
            raise TaskSetError(
                f"{path}: line {number} is a task of env {task.env!r} ({origin}), not of {env!r} with seed {seed}; "
                "cannot resume it (use another --out, or the seed it was made with)"
            )
        tasks.append(task)
    last = max((t.origin.attempt for t in tasks if t.origin is not None), default=-1)
    return Resume(tasks=tuple(tasks), next_attempt=last + 1)


class TaskWriter:
    """Appends one JSON line per task and flushes it to the disk, so what was kept survives a kill."""

    def __init__(self, path: Path, *, append: bool) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file = path.open("a" if append else "w", encoding="utf-8")

    def write(self, task: Task) -> None:
        self._file.write(task_line(task) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> TaskWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def progress_line(kept: int, n: int, tried: int, elapsed_s: float, resumed: int = 0) -> str:
    """``kept 12/50 · tried 40 · 3.0 tasks/min · ETA 12m40s``; the rate counts only this run's tasks
    (``resumed`` were in the file before it started)."""
    made = kept - resumed
    rate = made / elapsed_s * 60 if elapsed_s > 0 else 0.0
    eta = _duration((n - kept) / rate * 60) if rate > 0 else "?"
    return f"kept {kept}/{n} · tried {tried} · {rate:.1f} tasks/min · ETA {eta}"


def _duration(seconds: float) -> str:
    total = round(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"

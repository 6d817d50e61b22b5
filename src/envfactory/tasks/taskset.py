"""TaskSet: tasks as JSON lines, one per line, with random access by index; and splits."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import ValidationError

from envfactory.errors import TaskSetError
from envfactory.ir.task import Task
from envfactory.seeding import derive_seed


def task_line(task: Task) -> str:
    return task.model_dump_json()


def write_tasks(path: str | Path, tasks: Iterable[Task]) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for task in tasks:
            out.write(task_line(task) + "\n")
    return path


class TaskSet:
    """A task file opened for random access: line offsets are indexed once, lines parsed on demand."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            raise TaskSetError(f"{self.path}: task file not found") from None
        self._offsets: list[int] = []
        start = 0
        while start < len(data):
            end = data.find(b"\n", start)
            end = len(data) if end == -1 else end
            if data[start:end].strip():
                self._offsets.append(start)
            start = end + 1

    def __len__(self) -> int:
        return len(self._offsets)

    def line(self, index: int) -> str:
        if not -len(self) <= index < len(self):
            raise TaskSetError(f"{self.path}: no task {index} (the file has {len(self)})")
        with self.path.open("rb") as f:
            f.seek(self._offsets[index])
            return f.readline().decode("utf-8").rstrip("\n")

    def __getitem__(self, index: int) -> Task:
        try:
            return Task.model_validate_json(self.line(index))
        except ValidationError as err:
            raise TaskSetError(f"{self.path}: line {index + 1} is not a task: {err.errors()[0]['msg']}") from None

    def __iter__(self) -> Iterator[Task]:
        for i in range(len(self)):
            yield self[i]


def split_tasks(
    tasks: Iterable[Task], *, test_fraction: float = 0.2, heldout_tools: Iterable[str] = (), seed: int = 0
) -> dict[str, list[str]]:
    """Task ids per split: ``heldout`` (uses a held-out tool), then ``test`` / ``train`` by a stable hash."""
    held = set(heldout_tools)
    out: dict[str, list[str]] = {"train": [], "test": [], "heldout": []}
    for task in tasks:
        tools = {c.tool for c in task.gold}
        if task.blueprint is not None:
            tools |= {n.tool for n in task.blueprint.calls if n.tool}
        if tools & held:
            out["heldout"].append(task.id)
        elif derive_seed(seed, "split", task.id) / 2**63 < test_fraction:
            out["test"].append(task.id)
        else:
            out["train"].append(task.id)
    return out

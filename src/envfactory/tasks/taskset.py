"""TaskSet: tasks as JSON lines, one per line, with random access by index; and splits."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import ValidationError

from envfactory.errors import TaskSetError
from envfactory.ir.env import EnvSpec
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
        number = (index % len(self) + 1) if len(self) else index + 1
        try:
            return Task.model_validate_json(self.line(index))
        except UnicodeDecodeError:
            raise TaskSetError(f"{self.path}: line {number} is not UTF-8 text") from None
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise TaskSetError(f"{self.path}: line {number} is not a task: {where}: {first['msg']}") from None

    def __iter__(self) -> Iterator[Task]:
        for i in range(len(self)):
            yield self[i]

    def find(self, ref: str | int) -> Task:
        """A task by its id (``shop-0-1``) or by its 0-based line index (``7``, ``-1``)."""
        if isinstance(ref, int) or ref.lstrip("-").isdigit():
            return self[int(ref)]
        for i in range(len(self)):  # parse only the lines that hold the id at all
            if ref in self.line(i) and self[i].id == ref:
                return self[i]
        raise TaskSetError(f"{self.path}: no task with id {ref!r} (give an id or a 0-based index)")


def task_problems(task: Task, spec: EnvSpec) -> list[str]:
    """Why ``task`` cannot run in the environment ``spec`` ([] when it can)."""
    problems = []
    if task.env != spec.name:
        problems.append(f"task is for environment {task.env!r}, not {spec.name!r}")
    tools = {t.name for t in spec.tools.tools}
    missing = sorted({c.tool for c in task.gold if c.tool not in tools})
    if missing:
        problems.append(f"the gold plan calls tools the environment lacks: {', '.join(missing)}")
    entities = [e for e in task.goal.rows if e not in spec.state_schema]
    if entities:
        problems.append(f"the goal names entities the environment lacks: {', '.join(sorted(entities))}")
    return problems


def check_task(task: Task, spec: EnvSpec, where: str = "") -> Task:
    """``task``, or a :class:`TaskSetError` naming every reason it cannot run in ``spec``."""
    problems = task_problems(task, spec)
    if problems:
        raise TaskSetError(f"{where or task.id}: " + "; ".join(problems))
    return task


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

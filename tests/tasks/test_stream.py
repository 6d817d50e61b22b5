"""The task file is written as tasks are proven; an interrupted run resumed makes the same file."""

from pathlib import Path

import pytest
from tests.cli.test_cli import run
from tests.conftest import SPECS

from envfactory.errors import TaskSetError
from envfactory.tasks import stream
from envfactory.tasks.stream import progress_line, read_resume
from envfactory.tasks.taskset import TaskSet


def test_progress_line_states_kept_tried_rate_and_eta() -> None:
    # 10 tasks in 120 s is 5 a minute; 40 left take 8 minutes
    assert progress_line(10, 50, 31, 120.0) == "kept 10/50 · tried 31 · 5.0 tasks/min · ETA 8m00s"
    # 6 were in the file before: 4 made in 60 s is 4 a minute, 40 left take 10 minutes
    assert progress_line(10, 50, 12, 60.0, resumed=6) == "kept 10/50 · tried 12 · 4.0 tasks/min · ETA 10m00s"
    assert progress_line(0, 50, 3, 5.0) == "kept 0/50 · tried 3 · 0.0 tasks/min · ETA ?"
    assert progress_line(1, 3601, 1, 1.0).endswith("ETA 1h00m")


def test_interrupted_run_keeps_its_tasks_and_resume_gives_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("synth", str(SPECS / "shop.yaml"), "-o", str(tmp_path), "--no-check").exit_code == 0
    env = tmp_path / "shop"
    whole = tmp_path / "whole.jsonl"
    assert run("tasks", str(env), "-n", "12", "--seed", "3", "-o", str(whole), "--no-baselines").exit_code == 0

    cut = tmp_path / "cut.jsonl"
    write = stream.TaskWriter.write
    written: list[int] = []

    def interrupted(self: stream.TaskWriter, task: object) -> None:
        if len(written) == 5:
            self._file.write('{"env": "shop", "id": "half a li')  # killed while writing the sixth
            self._file.flush()
            raise KeyboardInterrupt
        written.append(1)
        write(self, task)  # type: ignore[arg-type]

    monkeypatch.setattr(stream.TaskWriter, "write", interrupted)
    stopped = run("tasks", str(env), "-n", "12", "--seed", "3", "-o", str(cut), "--no-baselines")
    assert stopped.exit_code == 130 and "interrupted: 5 tasks kept" in stopped.output
    assert len(TaskSet(cut)) == 5  # each task was on the disk as soon as it was kept
    monkeypatch.setattr(stream.TaskWriter, "write", write)

    resumed = run("tasks", str(env), "-n", "12", "--seed", "3", "-o", str(cut), "--no-baselines", "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "resuming: 5 tasks" in resumed.output
    assert cut.read_bytes() == whole.read_bytes()
    assert cut.with_suffix(".splits.json").read_bytes() == whole.with_suffix(".splits.json").read_bytes()


def test_resume_refuses_a_file_of_another_seed(tmp_path: Path) -> None:
    run("synth", str(SPECS / "shop.yaml"), "-o", str(tmp_path), "--no-check")
    out = tmp_path / "t.jsonl"
    made = run("tasks", str(tmp_path / "shop"), "-n", "2", "--seed", "1", "-o", str(out), "--no-baselines")
    assert made.exit_code == 0
    again = run("tasks", str(tmp_path / "shop"), "-n", "4", "--seed", "2", "-o", str(out), "--resume")
    assert again.exit_code == 2 and "line 1 is a task of env 'shop' (seed 1), not of 'shop' with seed 2" in again.output
    out.write_text("not json\n")
    with pytest.raises(TaskSetError, match="line 1 is not a task"):
        read_resume(out, "shop", 2)
    assert read_resume(tmp_path / "none.jsonl", "shop", 2).tasks == ()

import json
from pathlib import Path

from tests.cli.test_cli import run
from tests.conftest import SPECS

from envfactory.tasks.taskset import TaskSet


def test_tasks_show_task_solve_and_graph(tmp_path: Path) -> None:
    assert run("synth", str(SPECS / "shop.yaml"), "-o", str(tmp_path), "--no-check").exit_code == 0
    env = tmp_path / "shop"
    out = tmp_path / "shop.jsonl"
    made = run("tasks", str(env), "-n", "30", "--seed", "2", "-o", str(out), "--heldout-tool", "refund_order")
    assert made.exit_code == 0, made.output
    assert "tasks kept" in made.output and "success of the random agent" in made.output
    assert len(TaskSet(out)) == 30
    report = json.loads(out.with_suffix(".report.json").read_text())
    assert report["kept"] == 30 and report["baselines"]["no-op"] == 0.0
    splits = json.loads(out.with_suffix(".splits.json").read_text())
    assert sum(len(v) for v in splits.values()) == 30
    again = tmp_path / "again.jsonl"
    run("tasks", str(env), "-n", "30", "--seed", "2", "-o", str(again), "--no-baselines")
    assert again.read_bytes() == out.read_bytes()  # same seed, same bytes

    shown = run("show-task", str(out), "4")
    assert shown.exit_code == 0 and "Gold plan" in shown.output and "Blueprint" in shown.output
    solved = run("solve", str(env), str(out), "4")
    assert solved.exit_code == 0 and "reward 1.0" in solved.output and "agent →" in solved.output
    lazy = run("solve", str(env), str(out), "4", "--agent", "noop")
    assert "reward 0.0" in lazy.output
    assert run("solve", str(env), str(out), "4", "--agent", "oracle").exit_code == 2
    assert "no task 99" in run("show-task", str(out), "99").output
    by_id = run("solve", str(env), str(out), TaskSet(out)[4].id)  # a task id does as well as an index
    assert by_id.exit_code == 0 and by_id.output == solved.output
    assert TaskSet(out)[4].id in run("show-task", str(out), TaskSet(out)[4].id).output
    missing = run("solve", str(env), str(out), "shop-no-such")
    assert missing.exit_code == 2 and "no task with id 'shop-no-such'" in missing.output

    drawn = run("graph", str(env))
    assert drawn.exit_code == 0 and (env / "graph.png").is_file() and "[write] cancel_order" in drawn.output


def test_tasks_errors_are_clear(tmp_path: Path) -> None:
    run("synth", str(SPECS / "petstore.yaml"), "-o", str(tmp_path), "--no-check")
    bad = run(
        "tasks",
        str(tmp_path / "petstore"),
        "-n",
        "5",
        "--heldout-tool",
        "nope",
        "-o",
        str(tmp_path / "t.jsonl"),
    )
    assert bad.exit_code == 2 and "unknown held-out tools ['nope']" in bad.output
    assert "task file not found" in run("show-task", str(tmp_path / "missing.jsonl")).output


def test_tasks_walk_first_walks_a_synthesized_environment(tmp_path: Path) -> None:
    assert run("synth", str(SPECS / "shop.yaml"), "-o", str(tmp_path), "--no-check").exit_code == 0
    out = tmp_path / "walked.jsonl"
    made = run("tasks", str(tmp_path / "shop"), "-n", "6", "-o", str(out), "--no-baselines", "--walk-first")
    assert made.exit_code == 0, made.output
    origins = [json.loads(line)["origin"]["generator"] for line in out.read_text().splitlines()]
    assert len(origins) == 6 and "real-first/1" in origins

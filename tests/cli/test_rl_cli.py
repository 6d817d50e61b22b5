import json
from pathlib import Path

from tests.cli.test_cli import run
from tests.conftest import SPECS


def test_train_eval_report(tmp_path: Path) -> None:
    run("synth", str(SPECS / "library.json"), "-o", str(tmp_path / "envs"), "--no-check")
    env, tasks = tmp_path / "envs" / "library", tmp_path / "library.jsonl"
    run("tasks", str(env), "-n", "30", "-o", str(tasks), "--no-baselines")
    trained = run("train", str(env), "--tasks", str(tasks), "-o", str(tmp_path / "run"), "--iterations", "2",
                  "--warm-start", "2", "--held-out-every", "1")  # fmt: skip
    assert trained.exit_code == 0, trained.output
    points = [json.loads(line) for line in (tmp_path / "run" / "held_out.jsonl").read_text().splitlines()]
    train_ids = set(json.loads((tmp_path / "library.splits.json").read_text())["train"])
    rows = [json.loads(line) for line in tasks.read_text().splitlines()]
    held = [r for r in rows if r["id"] not in train_ids and r["level"] <= 2]  # --max-level 2
    assert [p["iteration"] for p in points] == [0, 1, 2] and {p["episodes"] for p in points} == {min(len(held), 30)}
    assert (tmp_path / "run" / "checkpoint.pt").is_file() and (tmp_path / "run" / "warm_start.json").is_file()
    out = tmp_path / "run" / "eval.json"
    evaluated = run("eval", str(env), "--tasks", str(tasks), "--policy", str(tmp_path / "run"), "--trials", "2",
                    "--randomize", "output", "-o", str(out))  # fmt: skip
    assert evaluated.exit_code == 0, evaluated.output
    assert "pass^2" in evaluated.output and "By level" in evaluated.output
    assert set(json.loads(out.read_text())) == {"none", "output"}
    gold = run("eval", str(env), "--tasks", str(tasks), "--policy", "gold")
    assert "100.0%" in gold.output
    reported = run("report", str(tmp_path / "run"))
    page = (tmp_path / "run" / "report.html").read_text()
    assert reported.exit_code == 0 and "Held-out success along training" in page


def test_rl_commands_explain_bad_input(tmp_path: Path) -> None:
    run("synth", str(SPECS / "library.json"), "-o", str(tmp_path), "--no-check")
    env = tmp_path / "library"
    mismatch = run("eval", str(env), str(env), "--tasks", str(tmp_path / "x.jsonl"))
    assert mismatch.exit_code == 2 and "one task file per environment" in mismatch.output
    run("tasks", str(env), "-n", "5", "-o", str(tmp_path / "t.jsonl"), "--no-baselines")
    unknown = run("eval", str(env), "--tasks", str(tmp_path / "t.jsonl"), "--policy", "nowhere")
    assert unknown.exit_code == 2 and "no checkpoint" in unknown.output
    family = run("eval", str(env), "--tasks", str(tmp_path / "t.jsonl"), "--randomize", "weather")
    assert family.exit_code == 2 and "unknown randomization families" in family.output
    assert "no results.json or metrics.jsonl" in run("report", str(tmp_path)).output
    (tmp_path / "bare.jsonl").write_text((tmp_path / "t.jsonl").read_text())
    unsplit = run("train", str(env), "--tasks", str(tmp_path / "bare.jsonl"), "--held-out-every", "5")
    assert unsplit.exit_code != 0 and "no bare.splits.json beside it" in unsplit.output


def test_rollout_with_address_auto_and_no_cluster_is_one_clear_line(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    run("synth", str(SPECS / "library.json"), "-o", str(tmp_path), "--no-check")
    run("tasks", str(tmp_path / "library"), "-n", "3", "-o", str(tmp_path / "t.jsonl"), "--no-baselines")
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}  # in its own process: Ray not yet started
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2] / "src")  # this checkout's code
    proc = subprocess.run([sys.executable, "-m", "envfactory.cli.main", "rollout", str(tmp_path / "library"),
                           "--tasks", str(tmp_path / "t.jsonl"), "--address", "auto", "-o", str(tmp_path / "r.jsonl")],
                          capture_output=True, text=True, env=env, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("error: no Ray cluster at --address auto") and "Traceback" not in proc.stderr

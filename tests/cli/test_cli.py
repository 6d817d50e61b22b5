import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import SPECS, wild
from typer.testing import CliRunner

from envfactory.cli.main import app
from envfactory.cli.play import parse_args

runner = CliRunner()


def run(*args: str, stdin: str | None = None):
    return runner.invoke(app, list(args), input=stdin, env={"COLUMNS": "200"})


def test_synth_inspect_check_round_trip(tmp_path: Path) -> None:
    out = tmp_path / "envs"
    result = run("synth", str(SPECS / "shop.yaml"), str(SPECS / "notes.mcp.json"), "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "shop" in result.output and "notes" in result.output and "ok 38/38" in result.output
    assert "enum ['red', 'green', 'blue', 'yellow'] read from the description" in result.output  # a warning
    fidelity = json.loads((out / "shop" / "fidelity.json").read_text())
    assert fidelity["passed"] and fidelity["counts"]["fail"] == 0
    inspected = run("inspect", str(out / "shop"))
    assert inspected.exit_code == 0
    assert "customer_id→customer" in inspected.output and "ship_order" in inspected.output
    checked = run("check", str(out / "notes"))
    assert checked.exit_code == 0 and "deterministic replay: yes" in checked.output


def test_errors_are_one_line_with_a_nonzero_exit(tmp_path: Path) -> None:
    missing = run("synth", str(tmp_path / "nope.yaml"), "-o", str(tmp_path))
    assert missing.exit_code == 1 and "file not found" in missing.output and "Traceback" not in missing.output
    dangling = run("synth", str(wild("oai-petstore-separate-v2/spec")), "-o", str(tmp_path))
    assert dangling.exit_code == 1 and "cannot resolve $ref 'Pet.yaml'" in dangling.output
    assert run("inspect", str(tmp_path)).exit_code == 2
    assert "not an environment directory" in run("check", str(tmp_path)).output
    both = run("synth", str(SPECS / "shop.yaml"), str(SPECS / "library.json"), "--name", "x")
    assert both.exit_code == 2 and "--name needs exactly one spec" in both.output


def test_one_bad_spec_does_not_stop_the_others(tmp_path: Path) -> None:
    result = run("synth", str(tmp_path / "nope.yaml"), str(SPECS / "petstore.yaml"), "-o", str(tmp_path))
    assert result.exit_code == 1 and (tmp_path / "petstore" / "env.json").is_file()


def test_play_calls_tools_shows_state_and_undoes(tmp_path: Path) -> None:
    run("synth", str(SPECS / "petstore.yaml"), "-o", str(tmp_path), "--no-check")
    script = "\n".join(
        [
            "help",
            "tools",
            'addPet {"name": "Rex", "species": "dog"}',
            "getPet petId=13",
            "diff",
            "undo",
            "getPet petId=13",
            "state order",
            "hash",
            "cancelOrder orderId=999",
            "frobnicate",
            "addPet {broken",
            "quit",
        ]
    )
    result = run("play", str(tmp_path / "petstore"), stdin=script)
    out = result.output
    assert result.exit_code == 0, out
    assert '"name": "Rex"' in out and "pet 13:" in out and "undone" in out
    assert "pet 13 not found" in out and "order 999 not found" in out
    assert "order (12 rows)" in out and "unknown command or tool 'frobnicate'" in out
    assert "not valid JSON" in out


def test_parse_args_reads_json_and_key_values() -> None:
    assert parse_args('{"a": 1}') == {"a": 1}
    assert parse_args("a=1 b=hello c='two words' d=[1,2]") == {
        "a": 1,
        "b": "hello",
        "c": "two words",
        "d": [1, 2],
    }
    assert parse_args("oops") == "expected arg=value, got 'oops'"


def test_demo_end_to_end_through_the_installed_command(tmp_path: Path) -> None:
    # the real demo clones for 8 epochs and trains for 40 iterations; 1 and 2 keep this test short
    cmd = [sys.executable, "-m", "envfactory.cli.main", "demo", "--out", str(tmp_path), "--iterations", "2",
           "--warm-start", "1", "--figures", str(tmp_path / "figures.json")]  # fmt: skip
    src = str(Path(__file__).resolve().parents[2] / "src")  # this checkout's code
    proc = subprocess.run(cmd, capture_output=True, text=True, env={"COLUMNS": "200", "PATH": "", "PYTHONPATH": src})
    assert proc.returncode == 0, proc.stderr
    for name in ("petstore", "library", "shop", "notes", "calendar", "banking", "travel"):
        assert name in proc.stdout and (tmp_path / "envs" / name / "fidelity.json").is_file()
        assert (tmp_path / "envs" / name / "tasks.jsonl").is_file()
    assert "FAIL" not in proc.stdout and "Robustness" in proc.stdout
    report = (tmp_path / "run" / "report.html").read_text()
    assert "Learning curve" in report and "data:image/svg+xml;base64," in report and "held-out environments" in report
    figures = json.loads((tmp_path / "figures.json").read_text())  # what make demo commits and the README quotes
    assert figures["iterations"] == 2 and set(figures["success"]) == {"ERPO + randomization", "ERPO, no randomization",
                                                                      "random"}  # fmt: skip
    assert 0 <= figures["success"]["random"]["held-out tasks"]["all"] <= 100 and "faults:stress" in str(figures)


def test_two_specs_with_one_env_name_do_not_overwrite_each_other(tmp_path: Path) -> None:
    first = tmp_path / "a"
    first.mkdir()
    (first / "api.yaml").write_text((SPECS / "shop.yaml").read_text())  # another file, the same API title
    out = tmp_path / "envs"
    result = run("synth", str(first / "api.yaml"), str(SPECS / "shop.yaml"), "-o", str(out), "--no-check")
    assert result.exit_code == 1 and "is taken by" in result.output
    assert len([p for p in out.iterdir() if p.is_dir()]) == 1


def test_python_specs_need_trust_code_on_the_command_line(tmp_path: Path) -> None:
    refused = run("synth", str(SPECS / "travel.py"), "-o", str(tmp_path))
    assert refused.exit_code == 1 and "--trust-code" in refused.output and not (tmp_path / "travel_agency").exists()
    trusted = run("synth", str(SPECS / "travel.py"), "-o", str(tmp_path), "--trust-code")
    assert trusted.exit_code == 0, trusted.output

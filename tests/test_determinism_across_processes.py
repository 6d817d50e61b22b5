"""Same seed, same bytes — also across processes with different hash seeds (set order, module names)."""

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import SPECS


def cli(args: list[str], hash_seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "COLUMNS": "200"}
    proc = subprocess.run([sys.executable, "-m", "envfactory.cli.main", *args], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_synth_and_tasks_are_byte_identical_across_processes(tmp_path: Path) -> None:
    for run, hash_seed in (("a", "1"), ("b", "2")):
        cli(
            [
                "synth",
                str(SPECS / "travel.py"),
                str(SPECS / "shop.yaml"),
                "-o",
                str(tmp_path / run),
                "--no-check",
                "--trust-code",
            ],
            hash_seed,
        )
        cli(
            [
                "tasks",
                str(tmp_path / run / "shop"),
                "-n",
                "40",
                "-o",
                str(tmp_path / run / "shop.jsonl"),
                "--no-baselines",
            ],
            hash_seed,
        )
    for file in sorted((tmp_path / "a").rglob("*.json*")):
        twin = tmp_path / "b" / file.relative_to(tmp_path / "a")
        assert file.read_bytes() == twin.read_bytes(), file.name

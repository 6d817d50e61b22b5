"""The README runs as written: every bash and Python block, in order, in a fresh folder that holds
what a fresh clone holds (the specs, the examples, `.venv/bin/envfactory`). Blocks that need what
this machine lacks say so in a mark before the fence (see ``tests/readme_blocks.py``) and are
checked as far as they can be: commands and options exist, Python compiles and its imports resolve.
The demo's figures the README quotes are the ones in ``docs/demo-figures.json`` (``make demo``
rewrites that file)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from tests.readme_blocks import Block, blocks, commands, envfactory_calls, port, readme

from envfactory.cli.main import app
from envfactory.demo_figures import readme_region, render

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
CLONED = ("specs", "examples", "tests/trainers/verifiers/python")  # what a clone holds that the README uses


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ENVFACTORY_CACHE", "RAY_ADDRESS")}
    return {**env, "PYTHONPATH": str(SRC), "COLUMNS": "200", "HF_HUB_OFFLINE": "1", "TRL_EXPERIMENTAL_SILENCE": "1"}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh folder shaped like a clone after `make`: the README's relative paths resolve in it."""
    folder = tmp_path_factory.mktemp("readme")
    for name in CLONED:
        if (ROOT / name).exists():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).symlink_to(ROOT / name)
    bin_dir = folder / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for name, run in (("envfactory", "-m envfactory.cli.main"), ("python", "")):
        shim = bin_dir / name  # this checkout's code, whatever the shared environment has installed
        shim.write_text(f'#!/bin/sh\nPYTHONPATH="{SRC}" exec "{sys.executable}" {run} "$@"\n')
        shim.chmod(0o755)
    return folder


def _run_bash(block: Block, cwd: Path) -> None:
    proc = subprocess.run(["bash", "-euo", "pipefail", "-c", block.code], cwd=cwd, env=_environment(),
                          capture_output=True, text=True, stdin=subprocess.DEVNULL)  # fmt: skip
    output = f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    assert proc.returncode == 0, f"{block.where} failed ({proc.returncode}):\n{output}"


def _run_python(block: Block, cwd: Path) -> None:
    script = cwd / f"readme_block_{block.line}.py"
    script.write_text(block.code)
    python = str(ROOT / block.argument) if block.mark == "python" else sys.executable
    proc = subprocess.run([python, script.name], cwd=cwd, env=_environment(), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL)  # fmt: skip
    assert proc.returncode == 0, f"{block.where} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"


def _listening(number: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", number)) == 0


def _start(block: Block, cwd: Path, started: list[subprocess.Popen[bytes]]) -> None:
    for words in commands(block.code):
        assert not _listening(port(words)), f"{block.where}: port {port(words)} is taken by another process"
        log = open(cwd / f"background_{block.line}_{len(started)}.log", "wb")  # noqa: SIM115 - the server's, kept open
        proc = subprocess.Popen(words, cwd=cwd, env=_environment(), stdout=log, stderr=subprocess.STDOUT)
        started.append(proc)
        while not _listening(port(words)):  # no clock: it either listens or dies
            if proc.poll() is not None:
                raise AssertionError(f"{block.where}: {' '.join(words)} exited:\n{log.name}")
            _pause(proc)


def _pause(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(0.2)


def _cli() -> Any:
    group = typer.main.get_command(app)
    assert hasattr(group, "commands")  # a command group (typer's click)
    return group


def _check(block: Block) -> None:
    """What can be checked of a block that does not run here."""
    if block.lang == "bash":
        parsed = subprocess.run(["bash", "-n", "-c", block.code], capture_output=True, text=True)
        assert parsed.returncode == 0, f"{block.where}: {parsed.stderr}"
        group = _cli()
        for sub, options in envfactory_calls(block.code):
            assert sub in group.commands, f"{block.where}: no command `envfactory {sub}`"
            known = {o for p in group.commands[sub].params for o in (*p.opts, *p.secondary_opts)}
            assert set(options) <= known | {"--help"}, f"{block.where}: {sub} has no {set(options) - known}"
        for words in commands(block.code):
            if words[0] == "make":
                targets = (ROOT / "Makefile").read_text()
                assert all(f"\n{t}:" in targets for t in words[1:]), f"{block.where}: no make target {words[1:]}"
        return
    compile(block.code, block.where, "exec")
    imports = [line.strip() for line in block.code.splitlines() if line.startswith(("from ", "import "))]
    probe = "\n".join(imports) + "\n"
    python = str(ROOT / block.argument) if block.mark == "python" else sys.executable
    proc = subprocess.run([python, "-c", probe], env=_environment(), capture_output=True, text=True)
    assert proc.returncode == 0, f"{block.where}: its imports do not resolve:\n{proc.stderr[-2000:]}"


@pytest.fixture
def servers() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        proc.terminate()
        proc.wait()


def test_every_readme_block_runs_in_order_in_a_fresh_folder(project: Path, servers: list) -> None:
    found = blocks(readme(ROOT))
    assert len(found) >= 20 and sum(b.mark == "run" for b in found) >= 12
    for block in found:
        start = time.perf_counter()
        if block.mark == "check-only":
            _check(block)
        elif block.mark == "background":
            _start(block, project, servers)
        elif block.lang == "bash":
            _run_bash(block, project)
        else:
            _run_python(block, project)
        print(f"{block.where}: {time.perf_counter() - start:.1f} s")  # where the test's time goes (pytest -s)


def test_blocks_that_cannot_run_here_say_why_and_name_what_exists() -> None:
    found = blocks(readme(ROOT))
    skipped = [b for b in found if b.mark == "check-only"]
    assert skipped and all(len(b.argument.split()) >= 2 for b in skipped)  # a reason, not a bare flag
    for block in found:
        if block.lang == "bash" and block.mark != "check-only":
            _check(block)  # the running blocks' commands and options exist too (a clearer failure first)
    with pytest.raises(ValueError, match="unknown shape"):
        blocks("<!-- readme-test: skip -->\n```bash\nls\n```\n")


def test_the_readme_quotes_the_committed_demo_figures() -> None:
    figures = json.loads((ROOT / "docs" / "demo-figures.json").read_text())
    quoted = readme_region(readme(ROOT))
    assert quoted is not None, "README.md has no demo-figures region"
    assert quoted == render(figures), "README's demo figures differ from docs/demo-figures.json:\n" + render(figures)
    assert figures["iterations"] == 40 and figures["warm_start"] == 8 and figures["seed"] == 0  # make demo's own
    makefile = (ROOT / "Makefile").read_text()
    assert "demo --out out/demo --figures docs/demo-figures.json" in makefile  # make demo rewrites the file

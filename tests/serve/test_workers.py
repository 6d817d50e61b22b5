"""``envfactory serve --workers 2``: two server processes on one port, every session played to the
end on one of them, every finished trajectory a whole line of the one file, and a stop ends them
all. Local addresses only; every wait has a deadline (a guard against a hang, not a speed limit)."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from envfactory.integrations.openenv import EnvfactoryClient, ToolCallAction
from envfactory.ir.task import Task
from envfactory.ir.trajectory import Trajectory
from envfactory.runtime.environment import Environment
from envfactory.serve.workers import per_worker
from envfactory.tasks.agents import report
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.taskset import write_tasks

DEADLINE_S = 600.0


def _call(tool: str, args: dict) -> dict:
    return {"id": "c", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}


def _children(pid: int) -> list[str]:
    """The command lines of ``pid``'s child processes."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "stat").read_text().rsplit(")", 1)[1].split()[1] == str(pid):
                found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:  # gone meanwhile
            continue
    return found


def _until(check: object, what: str) -> None:
    end = time.monotonic() + DEADLINE_S
    while not check():  # type: ignore[operator]
        if time.monotonic() > end:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.1)


def _healthy(url: str, proc: subprocess.Popen) -> bool:
    if proc.poll() is not None:
        raise AssertionError(f"the server exited with {proc.returncode}")
    try:
        return httpx.get(f"{url}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


async def _play(url: str, tasks: list[Task]) -> list[float]:
    """Every task on its own session, all at once: each episode's final reward."""

    async def one(task: Task) -> float:
        async with EnvfactoryClient(base_url=url, message_timeout_s=DEADLINE_S) as env:
            await env.reset(task_id=task.id)
            for c in task.gold:
                await env.step(ToolCallAction(tool_calls=[_call(c.tool, c.args)]))
            result = await env.step(ToolCallAction(content=report(task)))
            return float(result.reward or 0.0)

    return list(await asyncio.gather(*(one(t) for t in tasks)))


def test_two_workers_share_the_port_and_the_trajectory_file(shop: Environment, tmp_path: Path) -> None:
    tasks = [t for t in generate_tasks(shop, 30, seed=0)[0] if not t.user.facts][:12]
    assert len(tasks) == 12
    env_dir, saved = Path(shop.spec.save(tmp_path / "shop")), tmp_path / "t.jsonl"
    write_tasks(tmp_path / "tasks.jsonl", tasks)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    argv = [sys.executable, "-m", "envfactory.cli.main", "serve", str(env_dir), "--tasks",
            str(tmp_path / "tasks.jsonl"), "--port", str(port), "--workers", "2", "--max-sessions", "64",
            "--trajectories", str(saved)]  # fmt: skip
    log = tmp_path / "server.log"
    proc = subprocess.Popen(argv, stdout=log.open("ab"), stderr=subprocess.STDOUT)
    try:
        _until(lambda: _healthy(url, proc), "the workers to start")
        _until(lambda: sum("spawn_main" in c for c in _children(proc.pid)) == 2, "two worker processes")
        rewards = asyncio.run(_play(url, tasks))
        assert rewards == [1.0] * len(tasks)
        lines = saved.read_text().splitlines()
        assert len(lines) == len(tasks)  # whole lines, none interleaved
        assert sorted(Trajectory.model_validate_json(line).task_id for line in lines) == sorted(t.id for t in tasks)
    finally:
        proc.terminate()
        proc.wait(DEADLINE_S)
    assert proc.returncode == 0 and not _children(proc.pid)
    said = " ".join(log.read_text().split())  # the console wraps its lines
    assert "serving shop (OpenEnv protocol)" in said and "2 worker processes, 32 sessions each" in said


def test_workers_share_out_the_session_limit() -> None:
    assert [per_worker(64, n) for n in (1, 2, 3, 64, 100)] == [64, 32, 22, 1, 1]


def test_workers_serve_the_openenv_protocol_only(shop: Environment, tmp_path: Path) -> None:
    env_dir = Path(shop.spec.save(tmp_path / "shop"))
    argv = [sys.executable, "-m", "envfactory.cli.main", "serve", str(env_dir), "--mcp", "--workers", "2"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=DEADLINE_S)
    assert done.returncode != 0 and "--workers" in done.stderr + done.stdout


@pytest.fixture
def shop(bundled_envs: dict[str, Environment]) -> Environment:
    return bundled_envs["shop"]

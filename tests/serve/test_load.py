"""A served environment under a bounded load of good and bad clients (issue #12's load test):
concurrent full episodes, malformed requests and messages, oversized bodies, abandoned and
dropped sessions, then the server killed (``kill -9``) mid-load and started again. Nothing
crashes, no session leaks, and every episode a client saw finish is in the trajectory file.

Local addresses only; bounded in count (a few dozen episodes and requests) and in time (every
wait has a deadline)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from envfactory.integrations.openenv import EnvfactoryClient, ToolCallAction
from envfactory.ir.trajectory import Trajectory
from envfactory.runtime.environment import Environment
from envfactory.tasks.agents import report
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.taskset import write_tasks

DEADLINE_S = 600.0  # a guard against a hang, not a speed limit: a loaded machine starts the server slowly
UPGRADE = (b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")  # fmt: skip


def _call(tool: str, args: dict) -> dict:
    return {"id": "c", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}


class Server:
    """``envfactory serve`` in its own process on a loopback port."""

    def __init__(self, env_dir: Path, tasks: Path, saved: Path, log: Path) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        argv = [sys.executable, "-m", "envfactory.cli.main", "serve", str(env_dir), "--tasks", str(tasks),
                "--port", str(self.port), "--idle", "1", "--max-body", "4096", "--max-sessions", "32",
                "--trajectories", str(saved)]  # fmt: skip
        self.proc = subprocess.Popen(argv, stdout=log.open("ab"), stderr=subprocess.STDOUT)
        _until(lambda: self._healthy(), "the server to start")

    def _healthy(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"the server exited with {self.proc.returncode}")
        try:
            return httpx.get(f"{self.url}/health", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    def metrics(self) -> dict:
        return httpx.get(f"{self.url}/metrics", timeout=5).json()

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # a graceful shutdown, as Ctrl-C
            self.proc.wait(30)


def _until(condition: object, what: str) -> None:
    end = time.monotonic() + DEADLINE_S
    while time.monotonic() < end:
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


@pytest.fixture
def setup(bundled_envs: dict[str, Environment], tmp_path: Path) -> Iterator[tuple[Path, Path, list, Path]]:
    shop = bundled_envs["shop"]
    env_dir = Path(shop.spec.save(tmp_path / "shop"))
    tasks = [t for t in generate_tasks(shop, 12, seed=0)[0] if not t.user.facts]
    write_tasks(tmp_path / "tasks.jsonl", tasks)
    yield env_dir, tmp_path / "tasks.jsonl", tasks, tmp_path


def _play(url: str, tasks: list, finished: list[str], lock: threading.Lock, stop: threading.Event) -> None:
    """Full episodes, one after another, until ``stop`` or the server goes away."""
    try:
        with EnvfactoryClient(base_url=url).sync() as env:
            for task in tasks:
                if stop.is_set():
                    return
                env.reset(task_id=task.id)
                for call in task.gold:
                    env.step(ToolCallAction(tool_calls=[_call(call.tool, call.args)]))
                last = env.step(ToolCallAction(content=report(task)))
                if last.done:
                    with lock:
                        finished.append(task.id)
    except Exception:  # the server was killed under us: what finished before counts
        return


def _saved(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_bad_clients_do_not_crash_leak_or_lose_trajectories(setup: tuple) -> None:
    env_dir, tasks_file, tasks, tmp = setup
    saved, log = tmp / "trajectories.jsonl", tmp / "server.log"
    server = Server(env_dir, tasks_file, saved, log)
    try:
        url = server.url
        # malformed HTTP: bad JSON, wrong types, unknown task, unknown path; oversized bodies
        assert httpx.post(f"{url}/step", content=b"{not json", timeout=5).status_code == 422
        assert httpx.post(f"{url}/reset", json={"seed": "seven"}, timeout=5).status_code == 422
        unknown = httpx.post(f"{url}/reset", json={"task_id": "no-such-task"}, timeout=5)
        assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "bad_request"
        assert httpx.get(f"{url}/no/such/path", timeout=5).status_code == 404
        assert httpx.post(f"{url}/reset", content=b"{" + b" " * 8192 + b"}", timeout=5).status_code == 413
        # malformed WebSocket messages are answered, and the session goes on
        with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
            for bad in ("not json", json.dumps({"type": "warp"}), json.dumps({"type": "step", "data": 5})):
                ws.send(bad)
                assert json.loads(ws.recv(timeout=10))["type"] == "error"
            ws.send(json.dumps({"type": "reset", "data": {"task_id": tasks[0].id}}))
            assert json.loads(ws.recv(timeout=10))["type"] == "observation"
            call = _call(tasks[0].gold[0].tool, {"not": "its arguments"})
            ws.send(json.dumps({"type": "step", "data": {"tool_calls": [call, {"garbage": True}]}}))
            assert json.loads(ws.recv(timeout=10))["type"] == "observation"  # tool errors, not a dead session
        # abandoned sessions: one silent mid-episode (the idle limit ends it), one dropped without a close
        silent = connect(f"ws://127.0.0.1:{server.port}/ws", legacy=True)
        silent.send(json.dumps({"type": "reset", "data": {"task_id": tasks[1].id}}))
        silent.recv(timeout=10)
        silent.send(
            json.dumps({"type": "step", "data": {"tool_calls": [_call(tasks[1].gold[0].tool, tasks[1].gold[0].args)]}})
        )
        silent.recv(timeout=10)
        dropped = socket.create_connection(("127.0.0.1", server.port))
        dropped.sendall(UPGRADE)
        dropped.recv(1024)
        dropped.close()
        # good clients, concurrently
        finished: list[str] = []
        lock, stop = threading.Lock(), threading.Event()
        players = [threading.Thread(target=_play, args=(url, tasks, finished, lock, stop)) for _ in range(6)]
        for player in players:
            player.start()
        for player in players:
            player.join(DEADLINE_S * 2)
        assert len(finished) == 6 * len(tasks)
        _until(lambda: server.metrics()["sessions_open"] == 0, "every session to close")  # none leaked
        metrics = server.metrics()
        assert metrics["trajectories_saved"] == len(finished) and metrics["episodes_abandoned"] >= 1
        assert metrics["refused"].get("size") == 1 and metrics["refused"].get("idle", 0) >= 1
        silent.close()
        assert len(_saved(saved)) == len(finished)
        # the worker killed mid-load: every episode a client saw finish is on disk
        stop.clear()
        before = len(finished)
        players = [threading.Thread(target=_play, args=(url, tasks * 20, finished, lock, stop)) for _ in range(4)]
        for player in players:
            player.start()
        _until(lambda: len(finished) >= before + 8, "episodes under load")
        server.kill()
        stop.set()
        for player in players:
            player.join(DEADLINE_S)
        rows = _saved(saved)
        assert len(rows) >= len(finished)  # nothing a client saw finish is missing (one may end unanswered)
        assert {r["task_id"] for r in rows} >= set(finished) and all(r["messages"] for r in rows)
        assert all(Trajectory.model_validate(r).reward == 1.0 for r in rows)  # what `envfactory export` reads
        # started again on the same file: it appends
        server = Server(env_dir, tasks_file, saved, log)
        again: list[str] = []
        _play(server.url, tasks[:2], again, lock, threading.Event())
        assert len(again) == 2 and len(_saved(saved)) == len(rows) + 2
    finally:
        server.stop()
    assert server.proc.returncode is not None and b"Traceback" not in log.read_bytes()

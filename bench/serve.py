"""An envfactory server under concurrent sessions, beside the same episodes in-process.

    python bench/serve.py [--episodes 256] [--sessions 1 16 64] [--repeats 5]

Starts `envfactory serve` (the OpenEnv protocol over WebSocket) in its own process on a
loopback port, then plays the shop tasks' gold plans through N concurrent openenv-core client
sessions: episodes/s and the p50/p99 round trip of one step, at each N. The in-process row plays
the same episodes on a local Episode in this process (the same statistic, no network). Target
(issue #12): p99 step <= 5 ms at 16 sessions. Both processes share this machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import quantiles

from rich.console import Console
from rich.table import Table

from envfactory.bundled import bundled_environment
from envfactory.integrations.openenv import EnvfactoryClient, ToolCallAction
from envfactory.tasks.agents import report
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.taskset import write_tasks


def _call(tool: str, args: dict) -> dict:
    return {"id": "c", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}


def p(values: list[float], q: int) -> float:
    return quantiles(values, n=100)[q - 1] * 1000 if len(values) > 1 else values[0] * 1000


async def session(url: str, tasks: list, steps: list[float]) -> int:
    done = 0
    async with EnvfactoryClient(base_url=url) as env:
        for task in tasks:
            await env.reset(task_id=task.id)
            for action in [ToolCallAction(tool_calls=[_call(c.tool, c.args)]) for c in task.gold] + [
                ToolCallAction(content=report(task))
            ]:
                start = time.perf_counter()
                result = await env.step(action)
                steps.append(time.perf_counter() - start)
            done += bool(result.done and result.reward == 1.0)
    return done


async def remote(url: str, tasks: list, n: int) -> tuple[float, list[float], int]:
    steps: list[float] = []
    shares = [tasks[i::n] for i in range(n)]
    start = time.perf_counter()
    solved = await asyncio.gather(*(session(url, share, steps) for share in shares if share))
    return len(tasks) / (time.perf_counter() - start), steps, sum(solved)


def local(env, tasks: list) -> tuple[float, list[float], int]:
    steps, solved = [], 0
    episode = env.episode()
    start = time.perf_counter()
    for task in tasks:
        episode.reset(task=task)
        for message in [{"role": "assistant", "tool_calls": [_call(c.tool, c.args)]} for c in task.gold] + [
            {"role": "assistant", "content": report(task)}
        ]:
            t0 = time.perf_counter()
            episode.act(message)
            steps.append(time.perf_counter() - t0)
        solved += episode.verify().success
    return len(tasks) / (time.perf_counter() - start), steps, solved


def row(where: str, sessions: int, runs: list[tuple[float, list[float], int]], episodes: int, table: Table) -> None:
    """The run with the median p99 (a shared machine's runs vary by a factor of two), and the range."""
    tails = sorted((p(steps, 99), i) for i, (_, steps, _) in enumerate(runs))
    rate, steps, solved = runs[tails[len(tails) // 2][1]]
    digits = 3 if where.startswith("in-process") else 2
    table.add_row(where, str(sessions), f"{rate:.0f}", f"{p(steps, 50):.{digits}f}", f"{p(steps, 99):.{digits}f}",
                  f"{tails[0][0]:.{digits}f}–{tails[-1][0]:.{digits}f}", f"{solved}/{episodes}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=256)
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--repeats", type=int, default=5, help="runs per row (the median run is shown)")
    args = parser.parse_args()
    env = bundled_environment("shop")
    pool = [t for t in generate_tasks(env, 40, seed=0)[0] if not t.user.facts]
    tasks = [pool[i % len(pool)] for i in range(args.episodes)]
    folder = Path(tempfile.mkdtemp())
    env_dir = env.spec.save(folder / "shop")
    write_tasks(folder / "tasks.jsonl", pool)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "envfactory.cli.main", "serve", str(env_dir), "--tasks",
                               str(folder / "tasks.jsonl"), "--port", str(port), "--max-sessions", "128"],
                              stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        asyncio.run(remote(url, tasks[:4], 1))  # warm up the server and the client
        local(env, tasks[:4])
        gc.collect()
        gc.freeze()  # the client's start-up heap, as the server's: no full collections over it mid-run
        title = (f"{args.episodes} shop episodes (gold plans), OpenEnv protocol over loopback WebSocket; "
                 f"the median of {args.repeats} runs by p99, and the p99's range over them")  # fmt: skip
        table = Table(title=title)
        for col in ("where", "sessions", "episodes/s", "step p50 (ms)", "step p99 (ms)", "p99 range (ms)", "solved"):
            table.add_column(col)
        row("in-process Episode", 1, [local(env, tasks) for _ in range(args.repeats)], len(tasks), table)
        for n in args.sessions:
            row("server", n, [asyncio.run(remote(url, tasks, n)) for _ in range(args.repeats)], len(tasks), table)
        Console(width=160).print(table)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()

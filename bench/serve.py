"""An envfactory server under 1 to 1,024 concurrent sessions, beside the same episodes in-process.

    python bench/serve.py [--episodes 256] [--sessions 1 16 64 256 1024] [--repeats 5] [--batch 256]
                          [--groups 1 8]

Starts `envfactory serve` (the OpenEnv protocol over WebSocket) in its own process on a loopback
port, pinned to core 0, while this process (the load: openenv-core's own client) is pinned to core
1, so that the client's work never hides the server's. First the largest N sessions are opened on
the fresh server and closed again: its resident memory before and after, per session, is the
memory of an idle session. At each N, N sessions are opened (not timed), then
max(--episodes, N) shop episodes are played by their gold plans, shared out over the N sessions:
episodes/s, the p50/p99 round trip of one step, and each process's CPU time per step (from
/proc/PID/stat and this process's own clock). The "batched" rows play the --batch episodes with
the batched step (one message carries every live episode's action, answers in order), in the
same run as the single-step rows: split into G groups (--groups), each on its own connection,
stepped side by side, as a trainer steps several groups at once. The in-process row plays the
same episodes on a local Episode in this process (the same statistic, no network). Every episode
must be solved (reward 1.0); a run that does not finish within --deadline seconds fails the bench.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from statistics import median, quantiles
from typing import Any

from rich.console import Console
from rich.table import Table

from envfactory.bundled import bundled_environment
from envfactory.integrations.openenv import EnvfactoryClient, ToolCallAction
from envfactory.tasks.agents import report
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.taskset import write_tasks

TICK = os.sysconf("SC_CLK_TCK")
SERVER_CORE, CLIENT_CORE = 0, 1


@dataclass
class Run:
    rate: float  # episodes/s
    steps: list[float]  # seconds per step round trip
    solved: int
    episodes: int
    server_cpu: float  # seconds of the server's CPU over the timed part
    client_cpu: float
    wall: float
    step_count: int  # episode steps (a batched message steps many)


def _call(tool: str, args: dict) -> dict:
    return {"id": "c", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}


def actions(task: Any) -> list[ToolCallAction]:
    return [ToolCallAction(tool_calls=[_call(c.tool, c.args)]) for c in task.gold] + [
        ToolCallAction(content=report(task))
    ]


def p(values: list[float], q: int) -> float:
    return quantiles(values, n=100)[q - 1] * 1000 if len(values) > 1 else values[0] * 1000


def cpu_s(pid: int) -> float:
    """user + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def play(env: EnvfactoryClient, tasks: list, steps: list[float]) -> int:
    done = 0
    for task in tasks:
        await env.reset(task_id=task.id)
        for action in actions(task):
            start = time.perf_counter()
            result = await env.step(action)
            steps.append(time.perf_counter() - start)
        done += bool(result.done and result.reward == 1.0)
    return done


async def opened(url: str, n: int) -> list[EnvfactoryClient]:
    clients = [EnvfactoryClient(base_url=url, message_timeout_s=120) for _ in range(n)]
    for i in range(0, n, 64):  # a burst of 1,024 handshakes at once only measures the listen backlog
        await asyncio.gather(*(c.connect() for c in clients[i : i + 64]))
    return clients


async def idle_memory(url: str, pid: int, n: int) -> float:
    """KB of the server's resident memory per idle session: ``n`` sessions opened on a server
    that has held none yet (later, freed memory is reused and the difference says nothing)."""
    base = rss_kb(pid)
    clients = await opened(url, n)
    await asyncio.sleep(0.2)
    grown = rss_kb(pid) - base
    for i in range(0, n, 256):
        await asyncio.gather(*(c.close() for c in clients[i : i + 256]))
    return grown / n


async def remote(url: str, pid: int, tasks: list, n: int, deadline: float) -> Run:
    clients = await opened(url, n)
    steps: list[float] = []
    shares = [tasks[i::n] for i in range(n)]
    try:
        s0, c0, start = cpu_s(pid), time.process_time(), time.perf_counter()
        async with asyncio.timeout(deadline):
            solved = await asyncio.gather(*(play(c, share, steps) for c, share in zip(clients, shares, strict=True)))
        wall = time.perf_counter() - start
        server, client = cpu_s(pid) - s0, time.process_time() - c0
    finally:
        for i in range(0, n, 256):
            await asyncio.gather(*(c.close() for c in clients[i : i + 256]))
    return Run(len(tasks) / wall, steps, sum(solved), len(tasks), server, client, wall, len(steps))


async def group(env: EnvfactoryClient, tasks: list, steps: list[float]) -> int:
    """``tasks`` on one connection: reset them all in one message, then step every live episode in
    one message per round until all are done; how many were solved."""
    plans = [actions(t) for t in tasks]
    await env.reset_batch([{"task_id": t.id} for t in tasks])
    live, turn, solved = list(range(len(tasks))), 0, 0
    while live:
        t0 = time.perf_counter()
        results = await env.step_batch([(i, plans[i][turn]) for i in live])
        steps.append(time.perf_counter() - t0)
        turn += 1
        solved += sum(bool(r.done and r.reward == 1.0) for i, r in zip(live, results, strict=True)
                      if turn == len(plans[i]))  # fmt: skip
        live = [i for i in live if turn < len(plans[i])]
    return solved


async def batched(url: str, pid: int, tasks: list, groups: int, deadline: float) -> Run:
    """The tasks in ``groups`` groups, each on its own connection, stepped side by side (a trainer
    steps several groups at once: while the server steps one, the client reads another)."""
    clients = [EnvfactoryClient(base_url=url, message_timeout_s=120) for _ in range(groups)]
    await asyncio.gather(*(c.connect() for c in clients))
    steps: list[float] = []
    try:
        s0, c0, start = cpu_s(pid), time.process_time(), time.perf_counter()
        async with asyncio.timeout(deadline):
            solved = await asyncio.gather(*(group(c, tasks[i::groups], steps) for i, c in enumerate(clients)))
        wall = time.perf_counter() - start
        server, client = cpu_s(pid) - s0, time.process_time() - c0
    finally:
        await asyncio.gather(*(c.close() for c in clients))
    count = sum(len(actions(t)) for t in tasks)
    return Run(len(tasks) / wall, steps, sum(solved), len(tasks), server, client, wall, count)


def local(env: Any, tasks: list) -> Run:
    steps, solved = [], 0
    episode = env.episode()
    c0, start = time.process_time(), time.perf_counter()
    for task in tasks:
        episode.reset(task=task)
        for message in [{"role": "assistant", "tool_calls": [_call(c.tool, c.args)]} for c in task.gold] + [
            {"role": "assistant", "content": report(task)}
        ]:
            t0 = time.perf_counter()
            episode.act(message)
            steps.append(time.perf_counter() - t0)
        solved += episode.verify().success
    wall = time.perf_counter() - start
    return Run(len(tasks) / wall, steps, solved, len(tasks), 0.0, time.process_time() - c0, wall, len(steps))


def row(where: str, sessions: str, runs: list[Run], table: Table) -> Run:
    """The run with the median p99 (a shared machine's runs vary by a factor of two), the range of
    the p99 and of episodes/s over the runs."""
    tails = sorted((p(r.steps, 99), i) for i, r in enumerate(runs))
    run = runs[tails[len(tails) // 2][1]]
    rates = sorted(r.rate for r in runs)
    digits = 3 if where.startswith("in-process") else 2
    server_us = f"{run.server_cpu / run.step_count * 1e6:.0f}" if run.server_cpu else "–"
    client_us = f"{run.client_cpu / run.step_count * 1e6:.0f}"
    table.add_row(where, sessions, f"{median(rates):.0f}", f"{rates[0]:.0f}–{rates[-1]:.0f}",
                  f"{p(run.steps, 50):.{digits}f}", f"{p(run.steps, 99):.{digits}f}",
                  f"{tails[0][0]:.{digits}f}–{tails[-1][0]:.{digits}f}", server_us, client_us,
                  f"{run.server_cpu / run.wall:.0%}" if run.server_cpu else "–", f"{run.client_cpu / run.wall:.0%}",
                  f"{min(r.solved for r in runs)}/{run.episodes}")  # fmt: skip
    return run


def start_server(env_dir: Path, tasks_file: Path, port: int, max_sessions: int, trajectories: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "envfactory.cli.main", "serve", str(env_dir), "--tasks", str(tasks_file),
               "--port", str(port), "--max-sessions", str(max_sessions),
               "--trajectories", str(trajectories)]  # fmt: skip
    return subprocess.Popen(
        command, stderr=subprocess.DEVNULL, preexec_fn=lambda: os.sched_setaffinity(0, {SERVER_CORE})
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=256, help="episodes per row (at least one per session)")
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 16, 64, 256, 1024])
    parser.add_argument("--batch", type=int, default=256, help="episodes of the batched-step rows (0: none)")
    parser.add_argument("--groups", type=int, nargs="+", default=[1, 8],
                        help="batched rows: the episodes in G groups, a connection each")  # fmt: skip
    parser.add_argument("--repeats", type=int, default=5, help="runs per row (the median run is shown)")
    parser.add_argument("--deadline", type=float, default=120.0, help="seconds one run may take")
    args = parser.parse_args()
    os.sched_setaffinity(0, {CLIENT_CORE})
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * max(args.sessions) + 256)), hard))
    env = bundled_environment("shop")
    pool = [t for t in generate_tasks(env, 40, seed=0)[0] if not t.user.facts]
    count = max([args.episodes, args.batch, *args.sessions])
    tasks = [pool[i % len(pool)] for i in range(count)]
    folder = Path(tempfile.mkdtemp())
    env_dir = env.spec.save(folder / "shop")
    write_tasks(folder / "tasks.jsonl", pool)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = start_server(env_dir, folder / "tasks.jsonl", port, max(args.sessions) + 16, folder / "t.jsonl")
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        idle_kb = asyncio.run(idle_memory(url, server.pid, max(args.sessions)))
        asyncio.run(remote(url, server.pid, tasks[:4], 1, args.deadline))  # warm up the server and the client
        if args.batch:
            asyncio.run(batched(url, server.pid, tasks[:4], 2, args.deadline))
        local(env, tasks[:4])
        gc.collect()
        gc.freeze()  # the client's start-up heap, as the server's: no full collections over it mid-run
        load = os.getloadavg()
        title = (f"shop episodes (gold plans), OpenEnv protocol over loopback WebSocket; server on core {SERVER_CORE}, "
                 f"client on core {CLIENT_CORE}; the median of {args.repeats} runs (by p99) and the ranges; "
                 f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the start")  # fmt: skip
        table = Table(title=title)
        for col in ("where", "sessions", "episodes/s", "eps/s range", "step p50 (ms)", "step p99 (ms)",
                    "p99 range (ms)", "server CPU/step (µs)", "client CPU/step (µs)", "server busy",
                    "client busy", "solved"):  # fmt: skip
            table.add_column(col)
        row("in-process Episode", "1", [local(env, tasks[: args.episodes]) for _ in range(args.repeats)], table)
        for n in args.sessions:
            mine = tasks[: max(args.episodes, n)]
            runs = [asyncio.run(remote(url, server.pid, mine, n, args.deadline)) for _ in range(args.repeats)]
            row("server, one step a message", str(n), runs, table)
        if args.batch:
            for groups in args.groups:
                runs = [asyncio.run(batched(url, server.pid, tasks[: args.batch], groups, args.deadline))
                        for _ in range(args.repeats)]  # fmt: skip
                row("server, batched step", f"{args.batch} on {groups}", runs, table)
        Console(width=220).print(table)
        print(f"server memory per idle session: {idle_kb:.1f} KB ({max(args.sessions)} sessions opened on a fresh "
              "server, resident memory before and after)")  # fmt: skip
        end = os.getloadavg()
        print(f"load average at the end: {end[0]:.2f} {end[1]:.2f} {end[2]:.2f}")
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()

"""An envfactory server under 1 to 1,024 concurrent sessions, beside the same episodes in-process
and beside the floor of the serving stack.

    python bench/serve.py [--episodes 2048] [--sessions 1 16 64 256 1024] [--repeats 5] [--batch 256]
                          [--groups 1 8] [--openenv-sessions 16 256] [--no-floor]

Starts `envfactory serve` (the OpenEnv protocol over WebSocket) in its own process on a loopback
port, pinned to core 0, while this process (the load) is pinned to core 1, so that the client's
work never hides the server's; both run uvloop where it is installed. First the largest N
sessions are opened on the fresh server and closed again: its resident memory before and after,
per session, is the memory of an idle session.

At each N, N sessions are opened (not timed), then max(--episodes, N) shop episodes are played by
their gold plans, shared out over the N sessions: episodes/s, the p50/p99 round trip of one step,
and each process's CPU time per step (from /proc/PID/stat and this process's own clock). The load
is a lean client (:class:`LeanSession`: websockets' sans-I/O protocol over a bare transport, each
task's messages encoded once), about half the CPU of openenv's client per message; the rows "openenv's
own client" play the same episodes with it (--openenv-sessions).

The "floor" rows play the same load at each N against a server that answers every message with
one fixed step reply, with envfactory's uvicorn settings and its inline WebSocket path but no
episode: what the serving stack itself costs, the least a served step can cost here. By Little's
law a step's mean round trip at N sessions is at least N times the larger of the two processes'
CPU per step.

The "batched" rows play the same episodes with the batched step (one message carries every live
episode's action, answers in order), --batch episodes live at once, split into G groups
(--groups), each on its own connection, stepped side by side as a trainer steps several groups.
The in-process row plays the same episodes on a local Episode in this process (the same
statistic, no network). Every episode must be solved (reward 1.0); a run that does not finish
within --deadline seconds fails the bench.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
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

import orjson
from rich.console import Console
from rich.table import Table
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.protocol import State
from websockets.uri import parse_uri

from envfactory.bundled import bundled_environment
from envfactory.integrations.openenv import EnvfactoryClient, ToolCallAction
from envfactory.serve.guard import quiet_gc, server_options
from envfactory.serve.inline import ANSWER
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


_PLANS: dict[str, list[ToolCallAction]] = {}


def actions(task: Any) -> list[ToolCallAction]:
    """The task's gold plan as actions, made once per task: the load's own work is not the server's."""
    plan = _PLANS.get(task.id)
    if plan is None:
        plan = _PLANS[task.id] = [ToolCallAction(tool_calls=[_call(c.tool, c.args)]) for c in task.gold] + [
            ToolCallAction(content=report(task))
        ]
    return plan


def run(coroutine: Any) -> Any:
    """``coroutine`` to completion on uvloop (the server's loop too) where it is installed."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    return uvloop.run(coroutine)


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


class LeanSession(asyncio.Protocol):
    """One WebSocket session as lean as a Python client gets: websockets' sans-I/O protocol over a
    bare transport, messages encoded once per task (:func:`lean_messages`), a reply read as text
    and parsed only where the load needs it (the episode's last). openenv's client spends about
    twice the CPU on a message (pydantic models, its queues and timeouts), so that at hundreds of
    sessions the load, not the server, would set the round trip (the floor rows show it)."""

    def __init__(self, url: str) -> None:
        self.ws = ClientProtocol(parse_uri(url.replace("http", "ws", 1) + "/ws"), max_size=None)
        self.waiter: asyncio.Future[bytes] | None = None
        self.early: list[bytes] = []  # what came while nothing waited (the handshake's response)
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.ws.send_request(self.ws.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        self.ws.receive_data(data)
        for event in self.ws.events_received():
            if isinstance(event, Frame) and event.opcode is Opcode.TEXT:
                self._deliver(bytes(event.data))
            elif not isinstance(event, Frame):  # the handshake's response
                self._deliver(b"")
        self._flush()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(ConnectionError("the server closed the session"))

    def _deliver(self, data: bytes) -> None:
        waiter, self.waiter = self.waiter, None
        if waiter is None:
            self.early.append(data)
        elif not waiter.done():
            waiter.set_result(data)

    def _flush(self) -> None:
        assert self.transport is not None
        self.transport.write(b"".join(self.ws.data_to_send()))

    def _wait(self) -> asyncio.Future[bytes]:
        future = asyncio.get_running_loop().create_future()
        if self.early:
            future.set_result(self.early.pop(0))
        else:
            self.waiter = future
        return future

    async def open(self) -> None:
        await self._wait()
        if self.ws.state is not State.OPEN:
            raise ConnectionError(f"the WebSocket handshake failed: {self.ws.handshake_exc}")

    async def ask(self, message: bytes) -> bytes:
        reply = self._wait()
        self.ws.send_text(message)
        self._flush()
        return await reply

    async def close(self) -> None:
        if self.ws.state is State.OPEN:
            self.ws.send_close(1000)
            self._flush()
        if self.transport is not None:
            self.transport.close()


_LEAN: dict[str, list[bytes]] = {}


def lean_messages(task: Any) -> list[bytes]:
    """The task's reset and its gold plan's steps, as the messages openenv's client sends."""
    made = _LEAN.get(task.id)
    if made is None:
        steps = [{"type": "step", "data": orjson.Fragment(a)} for a in lean_actions(task)]
        made = _LEAN[task.id] = [orjson.dumps(m) for m in [{"type": "reset", "data": {"task_id": task.id}}, *steps]]
    return made


async def play_lean(session: LeanSession, tasks: list, steps: list[float]) -> int:
    done = 0
    for task in tasks:
        reset, *moves = lean_messages(task)
        await session.ask(reset)
        for move in moves:
            start = time.perf_counter()
            reply = await session.ask(move)
            steps.append(time.perf_counter() - start)
        data = orjson.loads(reply).get("data", {})
        done += bool(data.get("done") and data.get("reward") == 1.0)
    return done


def _same(session: LeanSession) -> LeanSession:
    return session


async def opened_lean(url: str, n: int) -> list[LeanSession]:
    loop = asyncio.get_running_loop()
    host, port = url.rsplit("/", 1)[1].rsplit(":", 1)
    sessions = [LeanSession(url) for _ in range(n)]
    for i in range(0, n, 64):
        await asyncio.gather(*(loop.create_connection(functools.partial(_same, s), host, int(port))
                               for s in sessions[i : i + 64]))  # fmt: skip
        await asyncio.gather(*(s.open() for s in sessions[i : i + 64]))
    return sessions


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


async def remote(url: str, pid: int, tasks: list, n: int, deadline: float, lean: bool = True) -> Run:
    """The tasks shared out over ``n`` sessions, each played in turn; ``lean``: by
    :class:`LeanSession` s, else by openenv's client."""
    clients: list[Any] = await (opened_lean(url, n) if lean else opened(url, n))
    player: Any = play_lean if lean else play
    steps: list[float] = []
    shares = [tasks[i::n] for i in range(n)]
    try:
        s0, c0, start = cpu_s(pid), time.process_time(), time.perf_counter()
        async with asyncio.timeout(deadline):
            solved = await asyncio.gather(*(player(c, share, steps) for c, share in zip(clients, shares, strict=True)))
        wall = time.perf_counter() - start
        server, client = cpu_s(pid) - s0, time.process_time() - c0
    finally:
        for i in range(0, n, 256):
            await asyncio.gather(*(c.close() for c in clients[i : i + 256]))
    return Run(len(tasks) / wall, steps, sum(solved), len(tasks), server, client, wall, len(steps))


_ACTIONS: dict[str, list[bytes]] = {}


def lean_actions(task: Any) -> list[bytes]:
    """The task's gold plan's actions as JSON, made once per task."""
    made = _ACTIONS.get(task.id)
    if made is None:
        made = _ACTIONS[task.id] = [orjson.dumps(a.model_dump(exclude={"metadata"})) for a in actions(task)]
    return made


async def group(session: LeanSession, tasks: list, slots: int, steps: list[float]) -> int:
    """``tasks`` on one connection, ``slots`` episodes at a time: a wave's episodes reset in one
    message, then every live episode stepped in one message per round until the wave is done;
    how many were solved."""
    solved = 0
    for first in range(0, len(tasks), slots):
        wave = tasks[first : first + slots]
        plans = [lean_actions(t) for t in wave]
        resets = [{"task_id": t.id, "slot": k} for k, t in enumerate(wave)]
        await session.ask(orjson.dumps({"type": "reset_batch", "data": {"resets": resets}}))
        live, turn = list(range(len(wave))), 0
        while live:
            items = [{"slot": i, "action": orjson.Fragment(plans[i][turn])} for i in live]
            message = orjson.dumps({"type": "step_batch", "data": {"steps": items}})
            t0 = time.perf_counter()
            reply = await session.ask(message)
            steps.append(time.perf_counter() - t0)
            turn += 1
            ended = [k for k, i in enumerate(live) if turn == len(plans[i])]
            if ended:
                results = orjson.loads(reply)["data"]["results"]
                solved += sum(bool(results[k].get("done") and results[k].get("reward") == 1.0) for k in ended)
            live = [i for i in live if turn < len(plans[i])]
    return solved


async def batched(url: str, pid: int, tasks: list, groups: int, live: int, deadline: float) -> Run:
    """The tasks in ``groups`` groups, each on its own connection, ``live`` episodes at a time over
    all groups, the groups stepped side by side (a trainer steps several groups at once: while the
    server steps one, the client reads another)."""
    sessions = await opened_lean(url, groups)
    steps: list[float] = []
    try:
        s0, c0, start = cpu_s(pid), time.process_time(), time.perf_counter()
        async with asyncio.timeout(deadline):
            solved = await asyncio.gather(*(group(s, tasks[i::groups], max(1, live // groups), steps)
                                            for i, s in enumerate(sessions)))  # fmt: skip
        wall = time.perf_counter() - start
        server, client = cpu_s(pid) - s0, time.process_time() - c0
    finally:
        await asyncio.gather(*(s.close() for s in sessions))
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
                  "–" if where.startswith("floor") else f"{min(r.solved for r in runs)}/{run.episodes}")  # fmt: skip
    return run


def start_server(env_dir: Path, tasks_file: Path, port: int, max_sessions: int, trajectories: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "envfactory.cli.main", "serve", str(env_dir), "--tasks", str(tasks_file),
               "--port", str(port), "--max-sessions", str(max_sessions),
               "--trajectories", str(trajectories)]  # fmt: skip
    return subprocess.Popen(
        command, stderr=subprocess.DEVNULL, preexec_fn=lambda: os.sched_setaffinity(0, {SERVER_CORE})
    )


def typical_reply(env: Any, task: Any) -> str:
    """The server's reply to a task's first gold step, as the floor server answers every message."""
    episode = env.episode()
    episode.reset(task=task)
    messages = episode.act({"role": "assistant", "tool_calls": [_call(c.tool, c.args) for c in task.gold[:1]]})
    observation = {"messages": messages, "tools": [], "verdict": None}
    return json.dumps({"type": "observation", "data": {"observation": observation, "reward": 0.0, "done": False}})


def floor_app(reply: str) -> Any:
    """An ASGI app whose WebSocket sessions answer every message with ``reply``, where it is read
    (the inline path the server's sessions take), doing nothing else: the serving stack's own cost
    (uvicorn, websockets, the event loop, the sockets), the floor under a served step."""

    def answer(text: str) -> str | None:
        return None if len(text) < 40 and '"close"' in text else reply  # close is the app's to answer

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while True:
            scope[ANSWER] = answer
            message = await receive()
            scope.pop(ANSWER, None)
            if message["type"] != "websocket.receive" or answer(message.get("text") or "") is None:
                await send({"type": "websocket.close", "code": 1000})
                return
            await send({"type": "websocket.send", "text": reply})

    return app


def serve_floor(port: int, reply_file: Path, max_sessions: int) -> None:
    """Run :func:`floor_app` as ``envfactory serve`` runs its app (the same uvicorn settings)."""
    import uvicorn

    quiet_gc()
    uvicorn.run(floor_app(reply_file.read_text()), host="127.0.0.1", port=port, log_level="error", lifespan="off",
                ws_per_message_deflate=False, **server_options(max_sessions=max_sessions))  # fmt: skip


def start_floor(port: int, reply_file: Path, max_sessions: int) -> subprocess.Popen:
    command = [sys.executable, __file__, "--floor-server", str(port), str(reply_file), str(max_sessions)]
    return subprocess.Popen(
        command, stderr=subprocess.DEVNULL, preexec_fn=lambda: os.sched_setaffinity(0, {SERVER_CORE})
    )


def wait_for(port: int) -> None:
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    if sys.argv[1:2] == ["--floor-server"]:
        serve_floor(int(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=2048,
                        help="episodes per run (at least one per session; a run lasts long enough for the "
                             "processes' CPU clocks, which tick every 10 ms)")  # fmt: skip
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 16, 64, 256, 1024])
    parser.add_argument("--batch", type=int, default=256,
                        help="batched rows: the episodes live at once, over all groups (0: none)")  # fmt: skip
    parser.add_argument("--groups", type=int, nargs="+", default=[1, 8],
                        help="batched rows: the episodes in G groups, a connection each")  # fmt: skip
    parser.add_argument("--repeats", type=int, default=5, help="runs per row (the median run is shown)")
    parser.add_argument("--deadline", type=float, default=120.0, help="seconds one run may take")
    parser.add_argument("--openenv-sessions", type=int, nargs="*", default=[16, 256],
                        help="sessions of the rows whose load is openenv's own client")  # fmt: skip
    parser.add_argument("--no-floor", dest="floor", action="store_false",
                        help="no floor rows (the same load on a server answering a fixed reply)")  # fmt: skip
    args = parser.parse_args()
    os.sched_setaffinity(0, {CLIENT_CORE})
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(
        resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * max([*args.sessions, *args.openenv_sessions]) + 256)), hard)
    )
    env = bundled_environment("shop")
    pool = [t for t in generate_tasks(env, 40, seed=0)[0] if not t.user.facts]
    count = max([args.episodes, args.batch, *args.sessions, *args.openenv_sessions])
    tasks = [pool[i % len(pool)] for i in range(count)]
    folder = Path(tempfile.mkdtemp())
    env_dir = env.spec.save(folder / "shop")
    write_tasks(folder / "tasks.jsonl", pool)
    (folder / "reply.json").write_text(typical_reply(env, pool[0]))
    port, floor_port = free_port(), free_port()
    most = max([*args.sessions, *args.openenv_sessions])
    server = start_server(env_dir, folder / "tasks.jsonl", port, most + 16, folder / "t.jsonl")
    floor = start_floor(floor_port, folder / "reply.json", most + 16) if args.floor else None
    url, floor_url = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{floor_port}"
    try:
        wait_for(port)
        if floor is not None:
            wait_for(floor_port)
            run(remote(floor_url, floor.pid, tasks[:4], 1, args.deadline))
        idle_kb = run(idle_memory(url, server.pid, max(args.sessions)))
        run(remote(url, server.pid, tasks[:4], 1, args.deadline))  # warm up the server and the clients
        run(remote(url, server.pid, tasks[:4], 1, args.deadline, lean=False))
        if args.batch:
            run(batched(url, server.pid, tasks[:4], 2, 4, args.deadline))
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
            runs = [run(remote(url, server.pid, mine, n, args.deadline)) for _ in range(args.repeats)]
            row("server, one step a message", str(n), runs, table)
            if floor is not None:
                runs = [run(remote(floor_url, floor.pid, mine, n, args.deadline)) for _ in range(args.repeats)]
                row("floor: the stack, a fixed reply", str(n), runs, table)
        for n in args.openenv_sessions:
            mine = tasks[: max(args.episodes, n)]
            runs = [run(remote(url, server.pid, mine, n, args.deadline, lean=False)) for _ in range(args.repeats)]
            row("server, openenv's own client", str(n), runs, table)
        if args.batch:
            for groups in args.groups:
                runs = [run(batched(url, server.pid, tasks[: args.episodes], groups, args.batch, args.deadline))
                        for _ in range(args.repeats)]  # fmt: skip
                row("server, batched step", f"{args.batch} on {groups}", runs, table)
        Console(width=220).print(table)
        print(f"server memory per idle session: {idle_kb:.1f} KB ({max(args.sessions)} sessions opened on a fresh "
              "server, resident memory before and after)")  # fmt: skip
        end = os.getloadavg()
        print(f"load average at the end: {end[0]:.2f} {end[1]:.2f} {end[2]:.2f}")
    finally:
        for process in (server, floor):
            if process is not None:
                process.terminate()
                process.wait(10)


if __name__ == "__main__":
    main()

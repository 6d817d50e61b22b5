"""A live MCP server as the environment: what an episode costs, with spare servers and without.

    python bench/served.py [--episodes 30] [--calls 6] [--tasks 12]

The published memory server (TypeScript, ``tests/mcp-servers``) answers every tool (``synth
mcp+stdio:CMD --bind``). Each episode resets (a fresh server), makes ``--calls`` writes and reads,
and hashes its state (the server's ``read_graph``). Baselines in the same run: the same episodes
with no spare server (every reset starts a process and waits for it: the cold start) and on the
environment synthesized from the same tool list (in-process, no server). Reset latency is the
median and p90 over the episodes after a warm-up; calls are the median per call.

Then ``--tasks`` tasks on the served environment, every fresh server set up with five entities and
three relations (``--scenario``): planned on the synthesized model, proven on the server, with the
trivial agents' success on the same tasks.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from envfactory.ingest import load
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.generate import baselines, generate_tasks
from envfactory.testing.foreign import FOREIGN_MCP, ensure_installed

ROOT = Path(__file__).resolve().parent.parent


def _calls(n: int, episode_no: int) -> list[tuple[str, dict]]:
    name = f"Person {episode_no}"
    calls: list[tuple[str, dict]] = [
        ("create_entities", {"entities": [{"name": name, "entityType": "person", "observations": ["new"]}]})
    ]
    for i in range(n - 1):
        if i % 2:
            calls.append(("open_nodes", {"names": [name]}))
        else:
            calls.append(("add_observations", {"observations": [{"entityName": name, "contents": [f"note {i}"]}]}))
    return calls


def _run(env: Environment, episodes: int, calls: int) -> tuple[list[float], list[float], int]:
    resets, per_call, ok = [], [], 0
    episode = env.episode(max_steps=10_000)
    for n in range(episodes + 2):  # two warm-up episodes
        start = time.perf_counter()
        episode.reset()
        reset = time.perf_counter() - start
        for tool, args in _calls(calls, n):
            start = time.perf_counter()
            ok += episode.call_tool(tool, args).ok
            per_call.append(time.perf_counter() - start)
        episode.state_hash()
        if n >= 2:
            resets.append(reset)
        time.sleep(0.25)  # an agent thinks between episodes (a model's turn takes longer); spares start meanwhile
    return resets, per_call, ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--calls", type=int, default=6)
    parser.add_argument("--tasks", type=int, default=12)
    args = parser.parse_args()
    ensure_installed(ROOT)
    server = FOREIGN_MCP["memory"]
    target = server.target(ROOT)
    served = synthesize(target, bind=True, server_env=dict(server.env))
    model = synthesize(load(target, server_env=dict(server.env)), state="empty")
    table = Table(title=f"memory server as the environment: {args.episodes} episodes x {args.calls} calls")
    for col in ("environment", "reset median", "reset p90", "call median", "calls ok"):
        table.add_column(col)
    settings = (("served, 1 spare server", Environment(served, trust_code=True, spare_servers=1)),
                ("served, no spare (cold start)", Environment(served, trust_code=True, spare_servers=0)),
                ("synthesized model, in-process", Environment(model)))  # fmt: skip
    for label, env in settings:
        resets, per_call, ok = _run(env, args.episodes, args.calls)
        p90 = statistics.quantiles(resets, n=10)[-1]
        table.add_row(label, f"{statistics.median(resets) * 1000:.1f} ms", f"{p90 * 1000:.1f} ms",
                      f"{statistics.median(per_call) * 1000:.2f} ms", f"{ok}/{len(per_call)}")  # fmt: skip
    Console(width=120).print(table)
    _tasks(target, dict(server.env), args.tasks)


def _tasks(target: str, server_env: dict[str, str], n: int) -> None:
    people = [{"name": who, "entityType": kind, "observations": [f"{who} joined in {year}"]}
              for who, kind, year in (("Ada", "person", 2019), ("Bo", "person", 2021), ("Cy", "robot", 2020),
                                      ("Dee", "person", 2022), ("Acme", "company", 2001))]  # fmt: skip
    links = [{"from": a, "to": b, "relationType": r} for a, b, r in
             (("Ada", "Acme", "works_at"), ("Bo", "Acme", "works_at"), ("Cy", "Ada", "assists"))]  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        setup = Path(folder) / "setup.json"
        setup.write_text(json.dumps([{"tool": "create_entities", "arguments": {"entities": people}},
                                     {"tool": "create_relations", "arguments": {"relations": links}}]))  # fmt: skip
        env = Environment(synthesize(target, bind=True, server_env=server_env, scenario=str(setup)), trust_code=True)
        start = time.perf_counter()
        tasks, report = generate_tasks(env, n, seed=0)
        seconds = time.perf_counter() - start
        trivial = baselines(env, tasks)
    kinds = ", ".join(f"{tool} {k}" for tool, k in Counter(t.gold[-1].tool for t in tasks).most_common())
    print(f"tasks on the served environment: {report.kept} kept of {report.attempts} attempts in {seconds:.1f} s "
          f"({kinds}); success of " + ", ".join(f"{a} {v:.0%}" for a, v in trivial.items()))  # fmt: skip


if __name__ == "__main__":
    main()

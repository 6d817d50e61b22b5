"""Tasks on the real implementation: published tool classes bound with about 1 MB of state each.

    python bench/real_tasks.py [--n 50] [--seed 0] [--only TicketAPI,...]

The BFCL multi-turn API classes (``bfcl-eval``, pinned in ``bench/bfcl/requirements.txt`` and
installed into ``bench/bfcl/python`` when missing, as ``bench/fidelity.py --bfcl`` does; nothing
of BFCL's is committed) are copied into the git-ignored ``build/real_tasks`` and bound with their
own ``_load_scenario``, given scenarios enlarged to at least 0.5 MB of state (seeded records of the
shape the class's own default state has, written beside them). For each: ``tasks -n N`` as the CLI makes them
(real-first walks, self-tested on the implementation), the share of tasks with at least three
calls and a write conditioned on a read, the trivial agents' success on the implementation, the
wall time (target: <= 2 minutes a set); and the time of one bound episode (reset + gold + verify)
beside the synthesized environment's (the same descriptions, no binding) and the implementation's
own loop (a fresh object from the scenario, the gold calls as method calls, its state read
whole), all in this run.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from envfactory.ir.task import Task
from envfactory.runtime.environment import Environment
from envfactory.runtime.owner import owner_digest
from envfactory.synth import synthesize
from envfactory.tasks.generate import TaskFactory, baselines, generate_tasks
from envfactory.words import says

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from bfcl import manifest as bfcl  # noqa: E402

JSON = dict[str, Any]
BUILD = ROOT / "build" / "real_tasks"  # git-ignored
WORDS = ("login", "billing", "export", "sync", "printer", "vpn", "email", "laptop", "badge", "portal",
         "invoice", "backup", "monitor", "wifi", "license", "calendar", "database", "payroll")  # fmt: skip


def tickets(rng: random.Random, n: int) -> JSON:
    users = [f"user{i}" for i in range(40)]
    queue = [{"id": 1000 + i, "title": f"{rng.choice(WORDS)} issue {i}",
              "description": " ".join(rng.choice(WORDS) for _ in range(20)),
              "status": rng.choice(["open", "open", "in progress", "closed"]), "priority": rng.randint(1, 5) * 100 + i,
              "created_by": rng.choice(users) if i % 4 else "user0"} for i in range(n)]  # fmt: skip
    return {"ticket_queue": queue, "ticket_counter": 1000 + n, "current_user": "user0"}


def tweets(rng: random.Random, n: int) -> JSON:
    users = ["analyst_pro"] + [f"writer{i}" for i in range(30)]
    authors = [users[min(int(rng.expovariate(0.12)), len(users) - 1)] for _ in range(n)]  # some write more
    posts = {str(i): {"id": i, "username": authors[i], "content": f"note {i} on {rng.choice(WORDS)}",
                      "tags": [f"#{rng.choice(WORDS)}" for _ in range(6)],
                      "mentions": [rng.choice(users) for _ in range(4)]}
             for i in range(n)}  # fmt: skip
    comments = {str(i): [{"username": rng.choice(users), "content": " ".join(rng.choice(WORDS) for _ in range(12))}
                         for _ in range(3)] for i in range(n)}  # fmt: skip
    return {"username": "analyst_pro", "password": "Kj8#mP9$vL2", "authenticated": True, "tweets": posts,
            "comments": comments, "retweets": {}, "following_list": users[1:11], "tweet_counter": n}  # fmt: skip


def trading(rng: random.Random, n: int) -> JSON:
    symbols = [f"S{i:04d}" for i in range(n // 4)]
    stocks = {s: {"price": round(rng.uniform(5, 900), 2), "percent_change": round(rng.uniform(-3, 3), 2),
                  "volume": round(rng.uniform(0.1, 9), 3), "MA(5)": round(rng.uniform(5, 900), 2),
                  "MA(20)": round(rng.uniform(5, 900), 2)} for s in symbols}  # fmt: skip
    orders = {str(5000 + i): {"id": 5000 + i, "order_type": rng.choice(["Buy", "Sell"]), "symbol": rng.choice(symbols),
                              "price": round(rng.uniform(5, 900), 2), "amount": rng.randint(1, 400) * 3 + i % 3,
                              "status": rng.choice(["Open", "Pending", "Completed"])} for i in range(n)}  # fmt: skip
    history = [
        {"type": "deposit", "amount": 100 + i, "timestamp": f"2024-09-{1 + i % 28:02d} 10:00:00"} for i in range(n)
    ]
    account = {"account_id": 12345, "balance": 100000.0, "binding_card": 1974202140965533}
    return {"orders": orders, "account_info": account,
            "authenticated": True, "market_status": "Open", "order_counter": 5000 + n, "stocks": stocks,
            "watch_list": symbols[:12], "transaction_history": history}  # fmt: skip


def messages(rng: random.Random, n: int) -> JSON:
    names = [f"Person{i:03d}" for i in range(10)]
    user_map = {name: f"USR{100 + i}" for i, name in enumerate(names)}
    inbox = [{user_map[rng.choice(names)]: " ".join(rng.choice(WORDS) for _ in range(12))} for _ in range(n)]
    return {"user_count": len(names), "user_map": user_map,
            "inbox": inbox, "message_count": n, "current_user": user_map[names[0]]}  # fmt: skip


SETS: dict[str, tuple[str, Callable[[random.Random, int], JSON], int]] = {
    "TicketAPI": ("ticket_api", tickets, 2500),
    "TradingBot": ("trading_bot", trading, 3000),
    "MessageAPI": ("message_api", messages, 9000),
    "TwitterAPI": ("posting_api", tweets, 2500),
}
DEFAULT = ("TradingBot", "MessageAPI", "TwitterAPI", "TicketAPI")  # TicketAPI has 9 tools: a fourth, beside


def scenario(name: str, seed: int) -> tuple[Path, float]:
    """The enlarged scenario file of a set, and its size in MB."""
    stem, make, n = SETS[name]
    data = make(random.Random(seed), n)
    path = BUILD / "large" / f"{stem}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    return path, path.stat().st_size / 1e6


def conditioned(task: Task, reads: frozenset[str]) -> bool:
    """At least three calls, and a write taking a value an earlier call answered (not one the
    request states)."""
    if len(task.gold) < 3:
        return False
    told = task.instruction
    for i, call in enumerate(task.gold):
        if call.tool in reads:
            continue
        if any(not says(told, v) and i > 0 for v in call.args.values()):
            return True
    return False


def median_ms(run: Callable[[], object], tasks: list[Task]) -> float:
    times = []
    for task in tasks:
        start = time.perf_counter()
        run(task)  # type: ignore[call-arg]
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def episode_times(env: Environment, synth: Environment, cls: Any, data: JSON, tasks: list[Task]) -> tuple[float, ...]:
    """Reset + gold + verify: bound, synthesized, and the implementation's own loop."""
    bound = env.episode(max_steps=10**6)
    alone = synth.episode(max_steps=10**6)

    def on(episode: Any) -> Callable[[Task], None]:
        def run(task: Task) -> None:
            episode.reset(task=task)
            for call in task.gold:
                episode.call_tool(call.tool, call.args)
            episode.verify()

        return run

    def own(task: Task) -> None:
        obj = cls()
        obj._load_scenario(copy.deepcopy(data))
        for call in task.gold:
            with contextlib.suppress(Exception):  # its own loop: whatever the method does
                getattr(obj, call.tool)(**call.args)
        owner_digest(obj)  # the loop's own check: the whole state read and compared once

    return median_ms(on(bound), tasks), median_ms(on(alone), tasks), median_ms(own, tasks)


def measure(name: str, n: int, seed: int) -> list[Any]:
    stem = SETS[name][0]
    path, size = scenario(name, seed)
    source = f"{BUILD}/bfcl_eval/{bfcl.SOURCE}/{stem}.py:{bfcl.CLASSES[stem]}"
    spec = synthesize(source, bind=True, scenario=str(path))
    env = Environment(spec, trust_code=True)
    start = time.perf_counter()
    factory = TaskFactory(env)
    made, report = generate_tasks(env, n, seed=seed, factory=factory)
    took = time.perf_counter() - start
    first = factory.first
    reads = frozenset(first.reads) if first is not None else frozenset()
    rich = sum(conditioned(t, reads) for t in made)
    trivial = baselines(env, made, seed) if made else {}
    synth = Environment(synthesize(f"{BUILD}/descriptions/{stem}.json", name=name))
    cls = type(env.new_owner(0)[0]).__mro__[1]
    data = json.loads(path.read_text())
    times = episode_times(env, synth, cls, data, made[:20]) if made else (0.0, 0.0, 0.0)
    worst = max(trivial.values(), default=0.0)
    return [name, len(spec.tools.tools), f"{size:.2f}", f"{len(made)}/{n}", report.attempts,
            f"{rich / max(1, len(made)):.0%}", f"{worst:.0%}", f"{took:.0f}", *(f"{t:.2f}" for t in times)]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default="", help="comma-separated set names")
    args = parser.parse_args()
    bfcl.prepared(BUILD)
    names = [s for s in args.only.split(",") if s] or list(DEFAULT)
    table = Table(title=f"Tasks on bound implementations (-n {args.n}, seed {args.seed})", title_justify="left")
    for column in ("set", "tools", "state MB", "kept", "tried", ">= 3 calls, write on a read", "best trivial agent",
                   "s", "bound episode ms", "synthesized ms", "own loop ms"):  # fmt: skip
        table.add_column(column, justify="right")
    for name in names:
        table.add_row(*(str(c) for c in measure(name, args.n, args.seed)))
    Console(width=200).print(table)


if __name__ == "__main__":
    main()

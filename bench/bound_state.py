"""The state of a bound object of about 1 MB: digest after one write, fresh copy, roll back, beside
hashing the whole state (what every state hash cost before tracking) and ``copy.deepcopy``.

    python bench/bound_state.py [--rows 9000] [--writes 200]

Target (issue #30): the digest after one write <= 1 ms on a 1 MB state. Every figure is a median
of per-operation timings in this run.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from collections.abc import Callable

import orjson
from rich.console import Console
from rich.table import Table

from envfactory.runtime.owner import owner_digest
from envfactory.runtime.tracked import Tracker


class Warehouse:
    """A bound class as benchmarks write them: dicts of records, each with a nested list."""

    def __init__(self, rows: int) -> None:
        self.orders = {
            f"o{i:05d}": {"id": f"o{i:05d}", "user": f"u{i % 500}", "status": "pending",
                          "items": [{"sku": 1000 + i % 97, "qty": 1 + i % 3, "price": 9.5}]}
            for i in range(rows)
        }  # fmt: skip
        self.users = {f"u{i}": {"id": f"u{i}", "name": f"User {i}", "orders": []} for i in range(500)}
        for key, order in self.orders.items():
            self.users[order["user"]]["orders"].append(key)


def median_ms(times: list[float]) -> float:
    return statistics.median(times) * 1e3


def timed(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return median_ms(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=9000)
    parser.add_argument("--writes", type=int, default=200)
    args = parser.parse_args()
    owner = Warehouse(args.rows)
    size = len(orjson.dumps(vars(owner))) / 1e6
    start = time.perf_counter()
    template = Tracker(owner)
    template.digest()
    first = (time.perf_counter() - start) * 1e3
    tracker = template.clone()
    keys = list(tracker.owner.orders)
    after_write = []
    for i in range(args.writes):
        tracker.owner.orders[keys[i * 37 % len(keys)]]["status"] = f"shipped {i}"
        start = time.perf_counter()
        tracker.digest()
        after_write.append(time.perf_counter() - start)

    def roll_back() -> None:
        tracker.owner.orders[keys[5]]["items"].append({"sku": 1, "qty": 1, "price": 1.0})
        tracker.roll_back()

    rows = [
        ["digest after one write (tracked)", f"{median_ms(after_write):.3f}"],
        ["digest of the whole state (before: every state hash)", f"{timed(lambda: owner_digest(owner), 5):.1f}"],
        ["first digest of a new object (once per environment)", f"{first:.1f}"],
        ["fresh object: tracked copy, caches kept", f"{timed(template.clone, 5):.1f}"],
        ["fresh object: copy.deepcopy", f"{timed(lambda: copy.deepcopy(owner), 5):.1f}"],
        ["fresh object: roll back one episode's write", f"{timed(roll_back, 20):.3f}"],
    ]
    table = Table(
        title=f"Bound state of {size:.2f} MB ({args.rows} records): milliseconds, medians", title_justify="left"
    )
    table.add_column("operation")
    table.add_column("ms", justify="right")
    for row in rows:
        table.add_row(*row)
    Console().print(table)


if __name__ == "__main__":
    main()

"""What the foreign-corpus benches (``learn.py``, ``describe.py``) share: their options, the sets
they run (by half and by name), and a progress file a long run appends to."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from envfactory.ir.env import EnvSpec
from envfactory.real.learn import LearnReport, learn
from envfactory.real.trace import Trace


def corpus_arguments(parser: argparse.ArgumentParser, budget: int) -> None:
    """``--budget``, ``--test-calls``, ``--seed``, ``--half``, ``--only``, ``--progress`` and ``--json``."""
    parser.add_argument("--budget", type=int, default=budget, help="calls explored on the real server per set")
    parser.add_argument("--test-calls", type=int, default=budget * 3 // 10,
                        help="calls of the budget explored apart (moves and seed of their own) to measure on: "
                             "the held-out sequences do not move when how learning explores changes")  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--half", choices=("tune", "report", "all"), default="all")
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--progress", type=Path, help="append a line per step to this file")
    parser.add_argument("--json", type=Path, help="write the figures here")


def chosen_sets(corpus: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The entries of ``corpus/sets.json`` in ``--half`` and ``--only``; an unknown name stops the run."""
    entries = json.loads((corpus / "sets.json").read_text())
    unknown = set(args.only or ()) - {e["name"] for e in entries}
    if unknown:
        sys.exit(f"unknown set(s): {', '.join(sorted(unknown))}")
    return [e for e in entries if (args.half == "all" or e["half"] == args.half)
            and (not args.only or e["name"] in args.only)]  # fmt: skip


def progress(path: Path | None) -> Callable[[str], None]:
    """A ``say(message)`` that appends a stamped line to ``path`` (nothing when it is ``None``)."""

    def say(message: str) -> None:
        if path is not None:
            with path.open("a") as out:
                out.write(f"{time.strftime('%H:%M:%S')} {message}\n")

    return say


def target(corpus: Path, entry: dict[str, Any], install: str) -> str:
    """The ``mcp+stdio:`` command of a set (``{bin}`` its installed program, ``{corpus}`` the folder);
    a program not installed stops the run, naming the ``make`` target that installs it."""
    program = corpus / entry["program"]
    if not program.exists():
        sys.exit(f"{entry['name']}: {program} is not installed; run `make {install}` (or `make bench`)")
    return "mcp+stdio:" + entry["command"].replace("{bin}", str(program)).replace("{corpus}", str(corpus))


def explore_set(entry: dict[str, Any], spec: EnvSpec, source: str, args: argparse.Namespace, folder: Path,
                say: Callable[[str], None]) -> tuple[EnvSpec, LearnReport, Trace]:  # fmt: skip
    """``learn`` on one set's live server: its setup calls given to every fresh copy, its reads
    used for the final state, both offered to exploration as examples."""
    setup = folder / "setup.json"
    setup.write_text(json.dumps(entry.get("setup") or []))
    reads = [(r["tool"], r.get("arguments") or {}) for r in entry.get("reads") or []]
    calls = reads + [(c["tool"], c.get("arguments") or {}) for c in entry.get("setup") or []]
    return learn(spec, source, budget=args.budget, seed=args.seed, env=dict(entry.get("env") or {}),
                 final_tool=entry.get("final_tool"), scenario=str(setup), log=folder / "server.log",
                 final_reads=reads, examples=calls, progress=say, test_budget=args.test_calls)  # fmt: skip

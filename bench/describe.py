"""Reading descriptions as a person would: description-only synthesis on a foreign corpus (issue #28).

    python bench/describe.py [--half tune|report|all] [--only NAME ...] [--budget 300] [--seed 0] [--tasks 50]
                             [--progress FILE] [--json FILE] [--tasks-only]

The corpus is ``bench/describe_corpus/sets.json``: published, stateful MCP servers from npm and PyPI
(pinned in that folder and installed by ``make bench``), chosen and split into a ``tune`` and a
``report`` half before any tuning, none of them one the synthesizer was shaped on (see its README).
For each set its tools are read from the live server and any output schema they declare is dropped,
so that the environment is synthesized from names, descriptions and input schemas alone
(``state="empty"``). Then ``envfactory.real.learn.learn`` explores fresh servers for ``--budget``
calls and replays the held-out sequences on

- the description-only model and the always-succeeding stub;
- a second fresh copy of the real server (the ceiling).

Figures (held-out calls): outcome agreement, exact replies, leaf fields, final state. Beside them:
how many tools the synthesizer left to ``fallback`` behaviours, how many held-out calls the
description-only model refused as ``unsupported`` (a write it cannot simulate; of them, how many
the real server answered), and the tasks ``generate_tasks`` makes on the synthesized environment
(seeded state, ``--tasks`` asked for) with the share of them that take at least three calls.

``--tasks-only`` explores nothing: per set, the tasks planned on the synthesized environment and
those made with ``--walk-first`` (``generate_tasks(..., first=True)``), each with the share that
take at least three calls and, of those, one write given a value an earlier call answered that the
instruction does not state (a write that depends on a read).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path
from statistics import median
from typing import Any

from rich.console import Console
from rich.table import Table

from envfactory.errors import SynthesisError
from envfactory.ingest import Loaded, load
from envfactory.real.replay import replay
from envfactory.real.trace import split
from envfactory.runtime.answers import opened_text
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.generate import generate_tasks
from envfactory.words import says

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "bench" / "describe_corpus"
sys.path.insert(0, str(ROOT / "bench"))
from corpus_sets import chosen_sets, corpus_arguments, explore_set, progress  # noqa: E402
from corpus_sets import target as corpus_target  # noqa: E402
from learn import _description_model, pct  # noqa: E402

JSON = dict[str, Any]
KEYS = ("outcome", "exact", "fields", "final_state")


def target(entry: dict[str, Any]) -> str:
    return corpus_target(CORPUS, entry, "describe-corpus")


def descriptions(source: str, env: dict[str, str]) -> tuple[Loaded, int]:
    """The live server's tools with every declared output schema dropped, and how many declared one."""
    loaded = load(source, server_env=env)
    declared = sum(t.output_schema is not None for t in loaded.toolset.tools)
    tools = tuple(t.model_copy(update={"output_schema": None}) for t in loaded.toolset.tools)
    return dataclasses.replace(loaded, toolset=loaded.toolset.model_copy(update={"tools": tools})), declared


def run(entry: JSON, args: argparse.Namespace, say: Any) -> JSON:
    env = dict(entry.get("env") or {})
    source = target(entry)
    folder = Path(tempfile.mkdtemp(prefix="envfactory-describe-"))
    try:
        started = time.perf_counter()
        loaded, declared = descriptions(source, env)
        spec = synthesize(loaded, state="empty", name=entry["name"])
        fallbacks = sorted(b.tool for b in spec.behaviours if b.effect.kind == "fallback")
        learned, report, trace = explore_set(entry, spec, source, args, folder, say)
        _, held = split(trace, 0.3, args.seed)
        refused = {"unsupported": 0, "real_answered": 0, "held_calls": 0}

        def observe(_seq: str, _i: int, call: Any, result: Any, *_rest: Any) -> None:
            refused["held_calls"] += 1
            if not result.ok and result.error == "unsupported":
                refused["unsupported"] += 1
                refused["real_answered"] += bool(call.ok)

        replay(_description_model(learned, spec), held, observe=observe)
        say("generating tasks")
        tasks_started = time.perf_counter()
        seeded = Environment(synthesize(loaded, name=entry["name"], seed=args.seed))
        made, why = [], None
        try:
            made, _ = generate_tasks(seeded, args.tasks, seed=args.seed)
        except SynthesisError as err:  # nothing to ask of an agent: no task, and the reason
            why = str(err)
        long = sum(len(t.gold) >= 3 for t in made)
        return {
            "set": entry["name"], "half": entry["half"], "tools": len(spec.tools.tools),
            "declared_output_schemas": declared, "fallbacks": fallbacks, "refused": refused,
            "tasks": len(made), "tasks_asked": args.tasks, "tasks_refused": why,
            "tasks_3_calls": long / len(made) if made else None,
            "tasks_seconds": round(time.perf_counter() - tasks_started, 1),
            "report": report.model_dump(mode="json"), "seconds": round(time.perf_counter() - started, 1),
        }  # fmt: skip
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cells(f: JSON | None, final: float | None = None) -> str:
    """outcome / exact / fields / final state"""
    if f is None:
        return "-"
    last = final if final is not None else f.get("final_state")
    return f"{pct(f['outcome'])} / {pct(f['exact'])} / {pct(f['fields'])} / {pct(last)}"


def sides(row: JSON) -> dict[str, JSON | None]:
    r = row["report"]
    return {"described": r["described"], "stub": {**r["stub"], "final_state": r["stub_final_state"]},
            "ceiling": r["ceiling"]}  # fmt: skip


def medians(rows: list[JSON]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for side in ("described", "stub", "ceiling"):
        out[side] = {}
        for k in KEYS:
            values = [v for r in rows if (s := sides(r)[side]) is not None and (v := s.get(k)) is not None]
            out[side][k] = median(values) if values else None
    out["fallbacks"] = median(len(r["fallbacks"]) for r in rows)
    out["unsupported"] = median(r["refused"]["unsupported"] for r in rows)
    out["tasks"] = median(r["tasks"] for r in rows)
    shares = [r["tasks_3_calls"] for r in rows if r["tasks_3_calls"] is not None]
    out["tasks_3_calls"] = median(shares) if shares else None
    return out


READS = frozenset({"read", "list", "count", "dump", "compute", "simulated", "fallback"})  # effects that write nothing


def leaves_of(value: Any, out: set[str]) -> set[str]:
    """Every scalar a reply holds, as text."""
    if isinstance(value, dict):
        for v in value.values():
            leaves_of(v, out)
    elif isinstance(value, (list, tuple)):
        for v in value:
            leaves_of(v, out)
    elif value is not None and not isinstance(value, bool):
        out.add(str(value))
    return out


def read_then_write(env: Environment, task: Any) -> bool:
    """Whether a write of the task's gold plan is given a value an earlier call answered and the
    instruction does not state (gold run on a fresh episode)."""
    kinds = {b.tool: b.effect.kind for b in env.spec.behaviours}
    episode, answered = env.episode(max_steps=10**6), set()
    for call in task.gold:
        given = leaves_of(dict(call.args), set())
        if kinds.get(call.tool) not in READS and any(v in answered and not says(task.instruction, v) for v in given):
            return True
        result = episode.call_tool(call.tool, dict(call.args))
        if result.ok:
            leaves_of(opened_text(result.data), answered)
    return False


def tasks_only(entries: list[JSON], args: argparse.Namespace) -> None:
    table = Table(title=f"Tasks on description-only environments ({args.tasks} asked, seed {args.seed}): "
                        "made, ≥3 calls, ≥3 calls with a write given what a read answered")  # fmt: skip
    for col in ("set", "half", "planned", "≥3", "≥3 + read→write", "walk-first", "≥3", "≥3 + read→write"):
        table.add_column(col)
    shares: dict[str, dict[str, list[float]]] = {}
    for entry in entries:
        loaded, _ = descriptions(target(entry), dict(entry.get("env") or {}))
        cells_: list[str] = []
        for first in (False, True):
            env = Environment(synthesize(loaded, name=entry["name"], seed=args.seed))
            try:
                made, _ = generate_tasks(env, args.tasks, seed=args.seed, first=first)
            except SynthesisError:
                made = []
            long = [t for t in made if len(t.gold) >= 3]
            dependent = [t for t in long if read_then_write(env, t)]
            share = len(dependent) / len(made) if made else 0.0
            shares.setdefault(entry["half"], {}).setdefault("walk-first" if first else "planned", []).append(share)
            cells_ += [str(len(made)), pct(len(long) / len(made) if made else None), pct(share if made else None)]
        table.add_row(entry["name"], entry["half"], *cells_)
    console = Console(width=200)
    console.print(table)
    for half, kinds in shares.items():
        said = ", ".join(f"{kind} {pct(median(values))}" for kind, values in kinds.items())
        console.print(f"{half} half, median share of tasks with ≥3 calls and a read→write: {said}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    corpus_arguments(parser, budget=300)
    parser.add_argument("--tasks", type=int, default=50, help="tasks asked of generate_tasks per set")
    parser.add_argument("--tasks-only", action="store_true", help="no exploration: planned vs walk-first tasks")
    args = parser.parse_args()
    entries = chosen_sets(CORPUS, args)
    if args.tasks_only:
        tasks_only(entries, args)
        return
    say = progress(args.progress)

    title = (f"Descriptions only, on a foreign corpus: held-out sequences, budget {args.budget} calls, seed {args.seed}"
             "\n(outcome / exact / leaf fields / final state)")  # fmt: skip
    table = Table(title=title)
    for col in ("set", "half", "tools", "out. schemas dropped", "fallback", "descriptions only", "stub", "ceiling",
                "unsupported (real ok) / held calls", f"tasks (of {args.tasks})", "≥3 calls", "s"):  # fmt: skip
        table.add_column(col)
    results: list[JSON] = []
    failed: list[JSON] = []
    for entry in entries:
        say(f"{entry['name']}: start")
        try:
            row = run(entry, args, lambda m, n=entry["name"]: say(f"{n}: {m}"))
        except Exception as err:  # one set failing is a row, not the end of the bench
            table.add_row(entry["name"], entry["half"], str(entry.get("tools")), "", "", f"failed: {err}"[:80],
                          *[""] * 6)  # fmt: skip
            failed.append({"set": entry["name"], "half": entry["half"], "error": f"{type(err).__name__}: {err}"})
            say(f"{entry['name']}: failed: {err}\n{traceback.format_exc()}")
            continue
        s, ref = sides(row), row["refused"]
        table.add_row(row["set"], row["half"], str(row["tools"]), str(row["declared_output_schemas"]),
                      str(len(row["fallbacks"])), cells(s["described"]), cells(s["stub"]), cells(s["ceiling"]),
                      f"{ref['unsupported']} ({ref['real_answered']}) / {ref['held_calls']}", str(row["tasks"]),
                      pct(row["tasks_3_calls"]), f"{row['seconds']:.0f}")  # fmt: skip
        results.append(row)
        say(f"{entry['name']}: done in {row['seconds']:.0f} s")
    console = Console(width=240)
    console.print(table)
    for row in results:
        if row["tasks_refused"]:
            console.print(f"{row['set']}: no tasks: {row['tasks_refused']}")
    for row in failed:
        console.print(f"{row['set']}: failed: {row['error']}")
    summary: dict[str, Any] = {}
    for half in ("tune", "report"):
        rows = [r for r in results if r["half"] == half]
        if not rows:
            continue
        m = summary[half] = {"sets": len(rows), **medians(rows)}
        console.print(f"{half} half ({len(rows)} sets), medians: descriptions only {cells(m['described'])}; "
                      f"stub {cells(m['stub'])}; ceiling {cells(m['ceiling'])}; fallback tools {m['fallbacks']}; "
                      f"unsupported held-out calls {m['unsupported']}; tasks {m['tasks']} "
                      f"(≥3 calls {pct(m['tasks_3_calls'])})")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"budget": args.budget, "seed": args.seed, "tasks": args.tasks,
                                         "sets": results, "failed": failed, "medians": summary}, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()

"""Check the learn corpus: for each set in sets.json, start a fresh server, list its tools, run its setup calls,
then compare two fresh servers given the same setup and the same 10 read calls.

    .venv/bin/python bench/learn_corpus/check.py [NAME ...] [--timeout S] [--corpus DIR]

``--corpus`` checks another corpus folder of the same shape (its sets.json, its installed programs), e.g.
``bench/describe_corpus``.

One row per set: tools listed (and whether the count matches sets.json), start time, setup ok, and the
deterministic check: "same" (identical answers), "same-masked" (identical once ids, times and the run folder's
name are masked), or "differs" (with the first read that differs). Each set runs in its own child process with
a time limit; whatever the servers left running is killed on the way out (the whole process tree).
Placeholders in a command: {bin} the program, {tmp} the fresh folder of the run, {corpus} this folder.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent
READS = 10  # the read calls per server in the deterministic check (the set's reads, repeated in order)
MASKS = [  # what may differ between two fresh servers without their state differing
    (re.compile(r"envfactory-mcp-[A-Za-z0-9_]+"), "<run>"),
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<uuid>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?"), "<time>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}\b"), "<date>"),
    (re.compile(r"\b\w{3} \w{3} \d{2} \d{4} \d{2}:\d{2}:\d{2} GMT[+-]\d{4}( \([^)]*\))?"), "<time>"),
    (re.compile(r"\b\d{1,2}/\d{1,2}/\d{4}, \d{1,2}:\d{2}:\d{2}( [AP]M)?"), "<time>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}"), "<time>"),
    (re.compile(r"\b1[6-9]\d{8}(\.\d+)?\b"), "<epoch>"),
    (re.compile(r"(?<![0-9a-fA-F])(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{8,}(?![0-9a-fA-F])"), "<hex>"),
]


def load(names: list[str]) -> list[dict[str, Any]]:
    sets = json.loads((CORPUS / "sets.json").read_text())
    unknown = set(names) - {s["name"] for s in sets}
    if unknown:
        sys.exit(f"unknown set(s): {', '.join(sorted(unknown))}")
    return [s for s in sets if not names or s["name"] in names]


def target_of(spec: dict[str, Any]) -> Any:
    from envfactory.real.mcp import McpTarget

    program = str(CORPUS / spec["program"])
    command = spec["command"].replace("{bin}", program).replace("{corpus}", str(CORPUS))
    return McpTarget.parse("mcp+stdio:" + command, spec.get("env") or {})


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (Linux /proc), children before grandchildren."""
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                kids = [int(k) for k in (task / "children").read_text().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def kill_tree(pid: int, include_self: bool) -> None:
    pids = descendants(pid) + ([pid] if include_self else [])
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for p in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, sig)
        if sig == signal.SIGTERM:
            time.sleep(0.3)


def masked(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    for pattern, repl in MASKS:
        text = pattern.sub(repl, text)
    return text


def run_server(spec: dict[str, Any], timeout: float) -> dict[str, Any]:
    """One fresh server: its tools, start time, setup outcomes, and the answers to the read calls."""
    from envfactory.real.mcp import McpSession

    reads = spec.get("reads") or []
    calls = [reads[i % len(reads)] for i in range(READS)] if reads else []
    began = time.monotonic()
    session = McpSession(target_of(spec), timeout=timeout)
    session.start()
    try:
        started = time.monotonic() - began
        tools = session.tool_names()
        setup = [session.call(c["tool"], c["arguments"]) for c in spec.get("setup") or []]
        answers = [session.call(c["tool"], c["arguments"]) for c in calls]
    finally:
        kids = descendants(os.getpid())
        session.close()
        for pid in kids:  # a server that outlived its session (a launcher's child, say)
            if Path(f"/proc/{pid}").exists():
                kill_tree(pid, include_self=True)
    failed = [f"{c['tool']}: {o.error}" for c, o in zip(spec.get("setup") or [], setup, strict=True) if not o.ok]
    return {"tools": tools, "start_s": round(started, 2), "setup_failed": failed,
            "answers": [[o.ok, o.data if o.ok else o.error] for o in answers],
            "calls": [c["tool"] for c in calls]}  # fmt: skip


def worker(name: str, timeout: float) -> None:
    """Two fresh servers in turn; one JSON line on stdout."""
    spec = load([name])[0]
    try:
        first, second = run_server(spec, timeout), run_server(spec, timeout)
    except Exception as err:  # the server did not start or broke the session
        print(json.dumps({"error": f"{type(err).__name__}: {err}"}))
        return
    if first["answers"] == second["answers"]:
        verdict = "same"
    elif [masked(a) for a in first["answers"]] == [masked(a) for a in second["answers"]]:
        verdict = "same-masked"
    else:
        at = next(i for i, (a, b) in enumerate(zip(first["answers"], second["answers"], strict=True))
                  if masked(a) != masked(b))  # fmt: skip
        verdict = f"differs ({first['calls'][at]})"
    print(json.dumps({"tools": len(first["tools"]), "start_s": first["start_s"],
                      "setup_ok": not first["setup_failed"], "setup_failed": first["setup_failed"],
                      "deterministic": verdict}))  # fmt: skip


def main() -> None:
    global CORPUS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", help="sets to check (default: all)")
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds for one set, both servers (default 90)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the corpus folder (default: this one)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    CORPUS = args.corpus.resolve()
    if args.worker:
        worker(args.worker, timeout=min(20.0, args.timeout))
        return
    header = f"{'set':<14} {'registry':<8} {'half':<6} {'tools':>9} {'start':>7}  {'setup':<6} deterministic"
    print(header)
    print("-" * len(header))
    bad = 0
    for spec in load(args.names):
        proc = subprocess.Popen([sys.executable, __file__, "--worker", spec["name"], "--timeout", str(args.timeout),
                                 "--corpus", str(CORPUS)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)  # fmt: skip
        try:
            out, _ = proc.communicate(timeout=args.timeout)
            row = json.loads(out.strip().splitlines()[-1]) if out.strip() else {"error": f"exit {proc.returncode}"}
        except subprocess.TimeoutExpired:
            row = {"error": f"timed out after {args.timeout:.0f}s"}
        finally:
            kill_tree(proc.pid, include_self=True)
            proc.wait()
        if "error" in row:
            bad += 1
            blank = f"{'-':>9} {'-':>7}  {'-':<6}"
            print(f"{spec['name']:<14} {spec['registry']:<8} {spec['half']:<6} {blank} {row['error']}")
            continue
        tools = f"{row['tools']}" + ("" if row["tools"] == spec["tools"] else f"!={spec['tools']}")
        bad += (not row["setup_ok"]) + (row["tools"] != spec["tools"]) + (row["start_s"] >= 10)
        print(f"{spec['name']:<14} {spec['registry']:<8} {spec['half']:<6} {tools:>9} {row['start_s']:>6.2f}s  "
              f"{'ok' if row['setup_ok'] else 'FAILED':<6} {row['deterministic']}")  # fmt: skip
        for failure in row["setup_failed"]:
            print(f"{'':<14} setup: {failure[:160]}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

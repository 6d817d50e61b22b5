"""Hostile input, end to end: does every promise of the Episode contract and of ingestion hold?

    python bench/hostile.py [--calls 15000] [--mutants 1500] [--seed 0]

Prints one table of counts; the acceptance target is 0 in every "bad" column:
- fuzzed tool calls and Gymnasium steps (huge integers, NaN, lone surrogates, non-string keys,
  deep nesting, wrong types, garbage JSON): escapes (an exception out of ``call_tool``/``step``),
  and after every 25 calls a snapshot that is not strict JSON or does not restore to the same hash;
- tampered snapshots: raw exceptions, restores that fail half way (episode changed), bad types
  accepted;
- structural mutants of the bundled specs through synth -> check -> tasks: raw tracebacks;
- hostile specs (alias bomb, 3,000-deep nesting, recursive schemas, ``$ref`` to files outside the
  folder and to URLs, an oversized file), each in a child process with a memory cap: raw
  tracebacks, hangs, files read outside the spec's folder;
- concurrent use: fallback outputs under 8 threads that differ from a sequential run, loads that
  fail or see a mix of two versions while two writers race on one folder;
- a ReDoS pattern: the slowest validation of a 10,000-character argument;
- answer spraying: answer tasks passed by the gold reply (false negatives are 1 - that), and by
  agents that make the gold calls and then reply with every number / every text value in the state,
  or with the guess list "1, 2, 3, 4";
- security (``hostile_security.py``; ``--only-security`` runs just these): hostile generated code
  against the sandbox (escapes over files, environment, sockets, signals, children, floods, with
  the audit hook switched off five ways; beside it, what the previous in-process fence let out),
  folders that would run code or contact a model without consent, requests to an address a folder
  names, unauthenticated calls per server mode, episodes lost while sessions churn, 500s on hostile
  reset fields, unanswered hostile messages, slow clients held past the deadlines, and processes
  broken live MCP servers leave behind.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
from hostile_security import security_rows
from rich.console import Console
from rich.table import Table

from envfactory.bundled import BUNDLED, bundled_environment, bundled_specs_dir
from envfactory.errors import EnvFactoryError, SnapshotError
from envfactory.gym_env import ToolEnv
from envfactory.ingest.files import read_document
from envfactory.ir.task import Task, Verdict
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.runtime.validation import compile_validator
from envfactory.synth import synthesize
from envfactory.synth.arguments import sample_arguments
from envfactory.synth.selfcheck import self_check
from envfactory.tasks.generate import generate_tasks
from envfactory.testing.hostile import (
    hostile_action,
    hostile_arguments,
    hostile_name,
    mutate_spec,
    snapshot_tampers,
    tampered,
    write_hostile_specs,
)
from envfactory.users.scripted import ScriptedUser
from envfactory.values import ValueMaker

HANG_SECONDS = 20
SPRAY_REASON = "the reply names"
GUESSES = "1, 2, 3, 4"


def fuzz_calls(env: Environment, n: int, seed: int) -> Counter[str]:
    rng = random.Random(seed)
    maker = ValueMaker(seed, env.spec.config.clock_start)
    ep = env.episode(max_steps=10**9)
    names = list(env.tools)
    out: Counter[str] = Counter(cases=n)
    for i in range(n):
        if i % 500 == 499:
            ep.reset(seed=i)  # episodes of 500 calls: the state stays the size agents see
        tool = hostile_name(rng, names)
        valid: dict[str, Any] = {}
        if isinstance(tool, str) and tool in env.tools:
            valid = sample_arguments(env.spec, env.spec.behaviour(tool), ep.store, maker)
        try:
            ep.call_tool(tool, hostile_arguments(rng, valid))
        except Exception:
            out["escapes"] += 1
            continue
        if i % 25 == 24:
            try:
                snap = ep.snapshot()
                orjson.dumps(snap)  # strict JSON: no NaN, no surrogates, string keys
                ep.verify()
                twin = env.episode(max_steps=10**9)
                twin.restore(json.loads(json.dumps(snap)))
                if twin.state_hash() != ep.state_hash():
                    out["snapshot differs"] += 1
            except Exception:
                out["snapshot escapes"] += 1
    return out


def fuzz_steps(env: Environment, n: int, seed: int) -> Counter[str]:
    rng = random.Random(seed)
    gym = ToolEnv(env)
    gym.reset(seed=seed)
    names = list(env.tools)
    out: Counter[str] = Counter(cases=n)
    for i in range(n):
        try:
            _, _, terminated, truncated, _ = gym.step(hostile_action(rng, names, {}))
            if terminated or truncated:
                gym.reset(seed=seed + i)
        except Exception:
            out["escapes"] += 1
            gym.reset(seed=seed + i)
    return out


def tamper_snapshots(env: Environment) -> Counter[str]:
    out: Counter[str] = Counter()
    ep = env.episode()
    entity = next(e for e in env.spec.state_schema.entities if env.base.tables[e.name])
    key = next(iter(env.base.tables[entity.name]))
    ep.store.put(entity.name, key, {**env.base.tables[entity.name][key], "touched": True})
    ep.call_tool(next(iter(env.tools)), {})
    good = ep.snapshot()
    for _, tamper in snapshot_tampers(entity.name, key):
        out["cases"] += 1
        victim = env.episode()
        victim.call_tool(next(iter(env.tools)), {})
        before = (victim.state_hash(), victim.steps, json.dumps(victim.snapshot(), sort_keys=True))
        try:
            victim.restore(tampered(good, tamper))
        except SnapshotError:
            after = (victim.state_hash(), victim.steps, json.dumps(victim.snapshot(), sort_keys=True))
            out["half restored"] += after != before
            continue
        except Exception:
            out["raw errors"] += 1
            continue
        ok = isinstance(victim.steps, int) and victim.steps >= 0 and all(isinstance(r, str) for r in victim.replies)
        try:
            victim.call_tool(next(iter(env.tools)), {})
            orjson.dumps(victim.snapshot())
        except Exception:
            ok = False
        out["bad types accepted"] += not ok
    return out


def _spec_case(path: Path) -> tuple[str, str]:
    """(outcome, detail) of synth -> check -> tasks on one spec file, in this process."""
    try:
        spec = synthesize(path)
        env = Environment(spec)
        self_check(spec, env=env)
        generate_tasks(env, 3, seed=0, max_attempts=30)
    except EnvFactoryError as err:
        return "clear error", str(err)[:240]
    except Exception as err:
        frame = traceback.extract_tb(err.__traceback__)[-1]
        return "raw traceback", f"{type(err).__name__} at {Path(frame.filename).name}:{frame.lineno}"
    return "ok", ""


def spec_mutants(n: int, seed: int) -> Counter[str]:
    rng = random.Random(seed)
    files = [f for f in BUNDLED.values() if not f.endswith(".py")]
    docs = {f: read_document(bundled_specs_dir() / f) for f in files}
    out: Counter[str] = Counter(cases=n)
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(n):
            name = rng.choice(files)
            path = Path(tmp) / name
            path.write_text(json.dumps(mutate_spec(docs[name], rng)))
            outcome, detail = _spec_case(path)
            out[outcome] += 1
            if outcome == "raw traceback":
                out[f"raw at {detail}"] += 1
    return out


_CHILD = r"""
import json, resource, sys, os
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
folder, spec = os.path.realpath(sys.argv[1]), sys.argv[2]
harness = [os.path.join(%r, "bench_hostile_case.py"), os.path.join(%r, "__pycache__"), %r]
allowed = [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, *sys.path, *harness) if p] + ["/proc", "/dev"]
outside = []
def hook(event, args):
    if event == "open" and isinstance(args[0], str):
        p = os.path.realpath(args[0])
        if not p.startswith(folder) and not any(p.startswith(a) for a in allowed):
            outside.append(p)
sys.addaudithook(hook)
sys.path.insert(0, %r)
import bench_hostile_case
print(json.dumps({"result": bench_hostile_case.run(spec), "outside": outside}))
"""


def hostile_specs(tmp: Path) -> list[tuple[str, str, float, int]]:
    """(case, outcome, seconds, files read outside the folder) for each hostile spec, in a child process."""
    folder = tmp / "specs"
    folder.mkdir()
    cases = write_hostile_specs(folder)
    (tmp / "bench_hostile_case.py").write_text(
        f"from pathlib import Path\nimport sys\nsys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        + "from hostile import _spec_case\n"
        + "def run(spec):\n    return list(_spec_case(Path(spec)))\n"
    )
    rows = []
    for case, path in cases.items():
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    _CHILD % (str(tmp), str(tmp), str(Path(__file__).parent), str(tmp)),
                    str(folder),
                    str(path),
                ],
                capture_output=True,
                text=True,
                timeout=HANG_SECONDS,
            )
        except subprocess.TimeoutExpired:
            rows.append((case, "hang", time.perf_counter() - start, 0))
            continue
        seconds = time.perf_counter() - start
        try:
            data = json.loads(proc.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            rows.append((case, f"crashed (exit {proc.returncode}): {proc.stderr.strip()[-120:]}", seconds, 0))
            continue
        outcome, detail = data["result"]
        rows.append((case, f"{outcome}: {detail}" if detail else outcome, seconds, len(data["outside"])))
    return rows


def concurrency(seed: int) -> Counter[str]:
    out: Counter[str] = Counter()
    env = bundled_environment("calendar")
    fallbacks = [b.tool for b in env.spec.behaviours if b.effect.kind == "fallback"] or list(env.tools)
    calls = [(fallbacks[i % len(fallbacks)], {"q": f"v{i}"}, i % 7) for i in range(2400)]
    expected = [env.fallback_value(t, a, s) for t, a, s in calls]
    got: list[Any] = [None] * len(calls)

    def work(part: int) -> None:
        for i in range(part, len(calls), 8):
            tool, args, s = calls[i]
            got[i] = env.fallback_value(tool, args, s)

    threads = [threading.Thread(target=work, args=(p,)) for p in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out["fallback outputs"] = len(calls)
    out["fallback outputs wrong"] = sum(a != b for a, b in zip(got, expected, strict=True))
    out.update(_racing_writers())
    return out


def _racing_writers() -> Counter[str]:
    from envfactory.ir.env import EnvSpec

    out: Counter[str] = Counter()
    a = synthesize(bundled_specs_dir() / "shop.yaml", name="shared", seed=1)
    b = synthesize(bundled_specs_dir() / "shop.yaml", name="shared", seed=2)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "shared"
        a.save(folder)
        stop = threading.Event()

        def writer(spec: EnvSpec) -> None:
            while not stop.is_set():
                try:
                    spec.save(folder)
                except EnvFactoryError:
                    out["writes refused (another writer)"] += 1
                else:
                    out["writes"] += 1

        def reader() -> None:
            for _ in range(200):
                try:
                    loaded = EnvSpec.load(folder)
                except Exception:
                    out["loads failed"] += 1
                    continue
                out["loads"] += 1
                out["loads of a mixed version"] += loaded not in (a, b)

        writers = [threading.Thread(target=writer, args=(s,)) for s in (a, b)]
        for t in writers:
            t.start()
        reader()
        stop.set()
        for t in writers:
            t.join()
    return out


def redos() -> float:
    check = compile_validator({"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a+)+$"}}})
    worst = 0.0
    for n in (25, 1000, 10_000):
        start = time.perf_counter()
        check({"a": "a" * n + "!"})
        worst = max(worst, time.perf_counter() - start)
    return worst


def spraying(n_tasks: int, seed: int) -> Counter[str]:
    out: Counter[str] = Counter()
    for name in BUNDLED:
        env = bundled_environment(name)
        tasks = [t for t in generate_tasks(env, n_tasks, seed=seed)[0] if t.goal.answer]
        for task in tasks:
            out["answer tasks"] += 1
            for agent, reply in (("gold", None), ("number spray", "numbers"), ("text spray", "texts"),
                                 ("guess list", "guesses")):  # fmt: skip
                verdict = _run_reply(env, task, reply)
                out[f"passed by {agent}"] += verdict.success
                # what the same reply would get if the spray rule were not there
                out[f"passed by {agent} without the rule"] += all(r.startswith(SPRAY_REASON) for r in verdict.reasons)
    return out


def _run_reply(env: Environment, task: Task, spray: str | None) -> Verdict:
    episode: Episode = env.episode(max_steps=task.max_steps, user=ScriptedUser(task))
    episode.reset(task=task)
    for label in task.user.facts:
        episode.respond(f"What is the {label}?")
    for call in task.gold:
        episode.call_tool(call.tool, call.args)
    if spray is None:
        episode.respond("All done. " + ", ".join(task.goal.answer))
    elif spray == "guesses":
        episode.respond(GUESSES)  # a short list of small numbers: a count's likely answers
    else:
        values: set[str] = set()
        for rows in episode.state().values():
            for row in rows:
                for value in row.values():
                    if spray == "numbers" and isinstance(value, (int, float)) and not isinstance(value, bool):
                        values.add(f"{value:.2f}")
                    elif spray == "texts" and isinstance(value, str):
                        values.add(value)
        episode.respond("Candidates: " + ", ".join(sorted(values)))
    return episode.verify()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=15_000, help="fuzzed calls per bundled environment")
    parser.add_argument("--steps", type=int, default=3_000, help="fuzzed Gymnasium steps per environment")
    parser.add_argument("--mutants", type=int, default=1_500)
    parser.add_argument("--tasks", type=int, default=150, help="tasks per environment for the spraying check")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sessions", type=int, default=1_100, help="MCP HTTP sessions that come and go")
    parser.add_argument("--only-security", action="store_true", help="only the security sections")
    args = parser.parse_args()
    console = Console(width=200)
    start = time.perf_counter()
    if args.only_security:
        console.print(_security_table(args.sessions, start))
        return
    calls: Counter[str] = Counter()
    steps: Counter[str] = Counter()
    snaps: Counter[str] = Counter()
    for name in BUNDLED:
        env = bundled_environment(name)
        calls.update(fuzz_calls(env, args.calls, args.seed))
        steps.update(fuzz_steps(env, args.steps, args.seed))
        snaps.update(tamper_snapshots(env))
    console.print(f"fuzzing done in {time.perf_counter() - start:.0f} s")
    mutants = spec_mutants(args.mutants, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        specs = hostile_specs(Path(tmp))
    threads = concurrency(args.seed)
    worst = redos()
    sprays = spraying(args.tasks, args.seed)

    table = Table(title=f"Hostile input (seed {args.seed}; {time.perf_counter() - start:.0f} s)")
    for col in ("check", "cases", "bad outcomes (target 0)", "other outcomes"):
        table.add_column(col)
    table.add_row(
        "tool calls (call_tool)",
        f"{calls['cases']:,}",
        f"escapes {calls['escapes']}, snapshot escapes {calls['snapshot escapes']}, "
        f"snapshot restores to another hash {calls['snapshot differs']}",
        f"a snapshot checked every 25 calls ({calls['cases'] // 25:,})",
    )
    table.add_row("Gymnasium steps", f"{steps['cases']:,}", f"escapes {steps['escapes']}", "")
    table.add_row(
        "tampered snapshots",
        f"{snaps['cases']}",
        f"raw errors {snaps['raw errors']}, half restored {snaps['half restored']}, "
        f"bad types accepted {snaps['bad types accepted']}",
        "the rest: SnapshotError, episode unchanged (or a harmless edit restored)",
    )
    table.add_row(
        "spec mutants: synth -> check -> tasks",
        f"{mutants['cases']:,}",
        f"raw tracebacks {mutants['raw traceback']}"
        + "".join(f"; {k[4:]}" for k in mutants if k.startswith("raw at ")),
        f"ok {mutants['ok']}, one clear error {mutants['clear error']}",
    )
    for case, outcome, seconds, outside in specs:
        bad = outcome.startswith(("raw", "hang", "crashed")) or outside
        table.add_row(
            f"hostile spec: {case}",
            "1",
            f"{outcome if bad else 0}; files read outside the folder {outside}",
            f"{outcome if not bad else ''} ({seconds:.1f} s)",
        )
    table.add_row(
        "8 threads on fallback outputs",
        f"{threads['fallback outputs']:,}",
        f"wrong {threads['fallback outputs wrong']}",
        "",
    )
    table.add_row(
        "two writers racing on one folder, one reader",
        f"{threads['loads']} loads",
        f"failed {threads['loads failed']}, mixed versions {threads['loads of a mixed version']}",
        f"writes {threads['writes']}, refused {threads['writes refused (another writer)']}",
    )
    table.add_row("pattern ^(a+)+$ on up to 10,000 chars", "3", f"slowest {worst * 1000:.2f} ms", "")
    n = sprays["answer tasks"] or 1
    table.add_row(
        "answer tasks: gold calls, then reply",
        f"{sprays['answer tasks']}",
        f"gold reply fails (false negatives) {1 - sprays['passed by gold'] / n:.1%}; "
        f"number spray passes {sprays['passed by number spray'] / n:.1%}; "
        f"text spray passes {sprays['passed by text spray'] / n:.1%}; "
        f"{GUESSES!r} passes {sprays['passed by guess list'] / n:.1%}",
        f"without the spray rule: number spray {sprays['passed by number spray without the rule'] / n:.1%}, "
        f"text spray {sprays['passed by text spray without the rule'] / n:.1%}, "
        f"{GUESSES!r} {sprays['passed by guess list without the rule'] / n:.1%}",
    )
    console.print(table)
    console.print(_security_table(args.sessions, start))


def _security_table(sessions: int, start: float) -> Table:
    rows = security_rows(sessions)
    table = Table(title=f"Security boundaries ({time.perf_counter() - start:.0f} s)")
    for col in ("check", "cases", "bad outcomes (target 0)", "other outcomes"):
        table.add_column(col)
    for row in rows:
        table.add_row(*row)
    return table


if __name__ == "__main__":
    main()

"""Learning from the real thing, on a foreign corpus: description-only vs learned, on held-out sequences.

    python bench/learn.py [--corpus learn|describe] [--budget 500] [--test-calls 150] [--seed 0]
                          [--half tune|report|all] [--only NAME ...] [--traces 200]
                          [--progress FILE] [--json FILE] [--keep DIR]

The corpus is ``bench/learn_corpus/sets.json`` (published MCP servers from npm and PyPI, pinned in
that folder and installed by ``make bench``; chosen and split into a ``tune`` and a ``report``
half before any tuning; see its README). ``--corpus describe`` measures learning on
``bench/describe_corpus`` instead (the description-only bench's servers, never learned from before
2026-12-05; its halves are that corpus's own). For each set: its tools are read from the live server,
an environment is synthesized from those descriptions alone, then ``learn`` explores a fresh
server per sequence for ``--budget`` calls, of which ``--test-calls`` are explored apart with moves
and a seed of their own (the held-out sequences: a yardstick that does not move when how learning
explores changes), chooses each tool's behaviour on the learning sequences and replays the
held-out ones on

- the description-only model, the learned model and the always-succeeding stub;
- a second fresh copy of the real server (the ceiling);
- a model learned from ``--traces`` recorded calls alone (the first learning sequences up to that
  many calls, no live access), for the traces-only figure.

Figures: outcome agreement (and on *earned* calls: those not agreed on by both refusing or both
answering nothing), exact replies, leaf fields, final state. Targets where the ceiling's outcome
is >= 95 %: outcome >= 95 %, fields >= 85 %, final state >= 80 %.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
import traceback
from pathlib import Path
from statistics import median
from typing import Any

from corpus_sets import chosen_sets, corpus_arguments, explore_set, progress
from corpus_sets import target as corpus_target
from rich.console import Console
from rich.table import Table

from envfactory.ingest import load
from envfactory.real.learn import Figures, LearnReport
from envfactory.real.mcp import McpTarget
from envfactory.real.mirror import served_model
from envfactory.real.replay import replay
from envfactory.real.trace import Trace, split, write_trace
from envfactory.synth import synthesize
from envfactory.synth.chooser import choose

ROOT = Path(__file__).resolve().parents[1]
CORPORA = {"learn": ROOT / "bench" / "learn_corpus", "describe": ROOT / "bench" / "describe_corpus"}


def target(entry: dict[str, Any], corpus: str = "learn") -> str:
    """The set's command; a program not installed names the ``make`` target that installs it."""
    if corpus == "describe":
        return corpus_target(CORPORA[corpus], entry, "describe-corpus")
    return corpus_target(CORPORA[corpus], entry, "learn-corpus")


def traces_only(report_spec: Any, trace: Trace, held: Trace, calls: int) -> Figures:
    """Learned from at most ``calls`` recorded calls of the learning sequences, measured on ``held``."""
    learning, _ = split(trace, 0.3, 0)
    kept, total = [], 0
    for seq in learning.sequences:
        if total + len(seq.calls) > calls:
            break
        kept.append(seq.id)
        total += len(seq.calls)
    learned = choose(report_spec, learning.of(kept), evidence_kind="traces")
    return Figures.of(replay(learned, held))


def run(entry: dict[str, Any], args: argparse.Namespace, say: Any) -> tuple[LearnReport, Figures, float]:
    env = dict(entry.get("env") or {})
    source = target(entry, args.corpus)
    folder = Path(tempfile.mkdtemp(prefix="envfactory-learn-"))
    try:
        started = time.perf_counter()
        spec = synthesize(load(source, server_env=env), state="empty", name=entry["name"])
        learned, report, trace = explore_set(entry, spec, source, args, folder, say)
        seconds = time.perf_counter() - started
        _, held = split(trace, 0.3, args.seed)
        described = _description_model(learned, spec)
        from_traces = traces_only(described, trace, held, args.traces)
        if args.keep is not None:  # the evidence and both models, to study a set without exploring again
            kept = args.keep / entry["name"]
            write_trace(trace, kept / "trace.jsonl")
            described.save(kept / "described")
            learned.save(kept / "learned")
            setup = [(c["tool"], c.get("arguments") or {}) for c in entry.get("setup") or []]
            served_model(spec, McpTarget.parse(source, env), setup).save(kept / "start")  # where learning began
            (kept / "setup.json").write_text(json.dumps(entry.get("setup") or []))
        return report, from_traces, seconds
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _description_model(learned: Any, spec: Any) -> Any:
    """The description-only model where the learned one starts (its initial state, its schema)."""
    behaviours = {b.tool: b for b in spec.behaviours}
    schema = {e.name: e for e in spec.state_schema.entities}
    entities = tuple(schema.get(e.name, e) for e in learned.state_schema.entities)
    return learned.model_copy(update={
        "behaviours": tuple(behaviours[b.tool] for b in learned.behaviours), "choices": (),
        "state_schema": learned.state_schema.model_copy(update={"entities": entities}),
    })  # fmt: skip


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def cells(f: Figures | None, final: float | None = None) -> str:
    if f is None:
        return "-"
    return (f"{pct(f.outcome)} / {pct(f.earned_outcome)} / {pct(f.exact)} / {pct(f.fields)} / "
            f"{pct(final if final is not None else f.final_state)}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    corpus_arguments(parser, budget=500)
    parser.add_argument("--traces", type=int, default=200, help="recorded calls for the traces-only model")
    parser.add_argument("--keep", type=Path, help="keep each set's trace and models in KEEP/NAME/")
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="learn",
                        help="learn_corpus (default) or describe_corpus, a second foreign corpus")  # fmt: skip
    args = parser.parse_args()
    entries = chosen_sets(CORPORA[args.corpus], args)
    say = progress(args.progress)

    title = f"Learning from the real thing: held-out sequences, budget {args.budget} calls, seed {args.seed}"
    table = Table(title=title + "\n(outcome / earned outcome / exact / fields / final state)")
    for col in ("set", "half", "tools", "descriptions only", "learned", f"traces only (≤{args.traces})", "stub",
                "ceiling", "targets", "s"):  # fmt: skip
        table.add_column(col)
    results: list[dict[str, Any]] = []
    for entry in entries:
        say(f"{entry['name']}: start")
        try:
            report, from_traces, seconds = run(entry, args, lambda m, n=entry["name"]: say(f"{n}: {m}"))
        except Exception as err:  # one set failing is a row, not the end of the bench
            table.add_row(entry["name"], entry["half"], str(entry.get("tools")), f"failed: {err}"[:60], *[""] * 6)
            say(f"{entry['name']}: failed: {err}\n{traceback.format_exc()}")
            continue
        ceiling_ok = report.ceiling is not None and report.ceiling.outcome >= 0.95
        lf = report.learned
        met = [lf.outcome >= 0.95, (lf.fields or 0) >= 0.85, (lf.final_state or 0) >= 0.8]
        names = ("outcome", "fields", "final")
        targets = ", ".join(n for n, ok in zip(names, met, strict=True) if ok) or "none"
        targets = targets if ceiling_ok else "n/a (ceiling < 95 %)"
        table.add_row(entry["name"], entry["half"], str(entry.get("tools")), cells(report.described), cells(lf),
                      cells(from_traces), cells(report.stub, report.stub_final_state), cells(report.ceiling), targets,
                      f"{seconds:.0f}")  # fmt: skip
        results.append({"set": entry["name"], "half": entry["half"], "report": report.model_dump(mode="json"),
                        "traces_only": from_traces.model_dump(mode="json"), "seconds": seconds})  # fmt: skip
        say(f"{entry['name']}: done in {seconds:.0f} s")
    Console(width=220).print(table)
    for half in ("tune", "report"):
        rows = [r for r in results if r["half"] == half]
        if rows:
            med = {
                k: median((r["report"]["learned"][k] or 0.0) for r in rows)
                for k in ("outcome", "fields", "final_state")
            }
            base = {
                k: median((r["report"]["described"][k] or 0.0) for r in rows)
                for k in ("outcome", "fields", "final_state")
            }
            print(f"{half} half ({len(rows)} sets), medians: descriptions only outcome {pct(base['outcome'])} fields "
                  f"{pct(base['fields'])} final {pct(base['final_state'])}; learned outcome {pct(med['outcome'])} "
                  f"fields {pct(med['fields'])} final {pct(med['final_state'])}")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()

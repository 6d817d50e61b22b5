"""Real-world API descriptions through the whole pipeline: synth -> check -> tasks -> solve.

    python bench/corpus.py [FOLDER ...] [-n 50] [--ops 100]

FOLDERs default to ``../shared/specs-wild`` and ``../shared/corpus`` (descriptions nobody here
wrote; they live in ``shared/`` because fetched public files are not committed to this repo) and
the small shaped fixtures of ``tests/fixtures``. For each description: tools, entities, effects by
kind, the low-fidelity share, the self-check (passed / checks failed), tasks kept of ``-n``, the
gold plan's success on them, the no-op agent's, seconds, and the first error when a step fails.
Then the totals, and the time to synthesize and self-check a generated ``--ops``-operation spec
(target <= 2 s).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from envfactory.errors import EnvFactoryError
from envfactory.ir.env import EnvSpec
from envfactory.runtime.environment import Environment
from envfactory.runtime.validation import compile_schema
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check
from envfactory.tasks.agents import gold, noop, success_rate
from envfactory.tasks.generate import generate_tasks
from envfactory.testing.roundtrip import check_round_trip
from envfactory.testing.shared import shared_dir
from envfactory.users.scripted import ScriptedUser

ROOT = Path(__file__).resolve().parents[1]
SHARED = shared_dir(ROOT)
DEFAULT_FOLDERS = (
    SHARED / "specs-wild",
    SHARED / "corpus",
    ROOT / "tests" / "fixtures",
)
SUFFIXES = (".yaml", ".yml", ".json", ".jsonl")


ROOT_NAMES = ("openapi", "swagger", "api", "spec")


def descriptions(folders: list[Path]) -> list[Path]:
    """Every description file; a sub-folder holding a root document (``swagger.yaml``, ...) is one
    description split over files, so only its root counts."""
    found = []
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if path.suffix.lower() not in SUFFIXES or not path.is_file() or "split" in path.parts:
                continue
            roots = [p for p in path.parent.iterdir() if p.stem.lower() in ROOT_NAMES and p.suffix.lower() in SUFFIXES]
            if path.parent != folder and roots and path not in roots:
                continue  # a fragment of a split description
            found.append(path)
    return found


def seed_misfits(spec: EnvSpec) -> tuple[int, int]:
    """(seeded values, those their own field's schema refuses)."""
    values = misfits = 0
    for entity in spec.state_schema.entities:
        checks = {f: compile_schema(s) for f, s in entity.fields.items()}
        for row in spec.initial_state.get(entity.name, []):
            for field, value in row.items():
                if field in checks:
                    values += 1
                    try:
                        checks[field](value)
                    except Exception:  # the checker's own refusal: a value that breaks its schema
                        misfits += 1
    return values, misfits


def run_one(path: Path, n: int) -> dict[str, object]:
    row: dict[str, object] = {"file": str(path.relative_to(path.parents[1]))}
    start = time.perf_counter()
    try:
        spec = synthesize(path)
        check_round_trip(spec)  # the folder it would be saved as loads back to the same EnvSpec
        kinds = Counter(b.effect.kind for b in spec.behaviours)
        row.update(tools=len(spec.tools.tools), entities=len(spec.state_schema.entities),
                   effects=" ".join(f"{k}:{v}" for k, v in sorted(kinds.items())),
                   low=len(spec.low_fidelity_tools) / max(1, len(spec.behaviours)))  # fmt: skip
        row.update(zip(("values", "misfits"), seed_misfits(spec), strict=True))
        env = Environment(spec)
        report = self_check(spec, env=env)
        counts = report.counts()
        row["check"] = "ok" if report.passed else f"FAIL {counts['fail']}"
        tasks, _ = generate_tasks(env, n, seed=0)
        episode = env.episode(max_steps=10_000, user=ScriptedUser())
        row.update(tasks=len(tasks), gold=success_rate(episode, tasks, gold) if tasks else None,
                   noop=success_rate(episode, tasks, noop) if tasks else None)  # fmt: skip
    except EnvFactoryError as err:
        row["error"] = str(err)[:140]
    except Exception as err:  # a traceback in the pipeline: the thing this bench exists to catch
        row["error"] = f"TRACEBACK {type(err).__name__}: {str(err)[:120]}"
    row["seconds"] = time.perf_counter() - start
    return row


def big_spec(ops: int) -> dict[str, object]:
    """An OpenAPI document with ``ops`` operations: CRUD over ops/5 resources."""
    paths: dict[str, object] = {}
    schemas: dict[str, object] = {}
    for i in range(ops // 5):
        name = f"thing{i}"
        ref = {"$ref": f"#/components/schemas/{name}"}
        schemas[name] = {"type": "object", "properties": {"id": {"type": "string"}, "title": {"type": "string"},
                                                          "status": {"type": "string", "enum": ["open", "closed"]},
                                                          "count": {"type": "integer"}}}  # fmt: skip
        ok = {"200": {"description": "ok", "content": {"application/json": {"schema": ref}}}}
        many = {
            "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "array", "items": ref}}}}
        }
        body = {"content": {"application/json": {"schema": ref}}}
        key = [{"name": f"{name}_id", "in": "path", "required": True, "schema": {"type": "string"}}]
        paths[f"/{name}s"] = {
            "get": {"operationId": f"list_{name}s", "responses": many},
            "post": {"operationId": f"create_{name}", "requestBody": body, "responses": ok},
        }
        paths[f"/{name}s/{{{name}_id}}"] = {
            "parameters": key,
            "get": {"operationId": f"get_{name}", "responses": ok},
            "patch": {"operationId": f"update_{name}", "requestBody": body, "responses": ok},
            "delete": {"operationId": f"delete_{name}", "responses": {"204": {"description": "gone"}}},
        }  # fmt: skip
    return {"openapi": "3.0.0", "info": {"title": "big", "version": "1"}, "paths": paths,
            "components": {"schemas": schemas}}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("-n", type=int, default=50, help="tasks to make per description")
    parser.add_argument("--ops", type=int, default=100)
    args = parser.parse_args()
    files = descriptions(args.folders or list(DEFAULT_FOLDERS))
    rows = [run_one(path, args.n) for path in files]
    table = Table(title=f"{len(rows)} API descriptions: synth -> check -> tasks -> solve")
    cols = ("file", "tools", "entities", "effects", "low fid.", "self-check", f"tasks of {args.n}", "gold",
            "no-op", "s", "error")  # fmt: skip
    for col in cols:
        table.add_column(col)
    for r in rows:
        pct = lambda v: "-" if v is None else f"{v:.0%}"  # noqa: E731
        table.add_row(str(r["file"]), str(r.get("tools", "-")), str(r.get("entities", "-")), str(r.get("effects", "-")),
                      pct(r.get("low")), str(r.get("check", "-")), str(r.get("tasks", "-")), pct(r.get("gold")),
                      pct(r.get("noop")), f"{r['seconds']:.1f}", str(r.get("error", "")))  # fmt: skip
    console = Console(width=200)
    console.print(table)
    built = [r for r in rows if "check" in r]
    console.print(
        f"tracebacks: {sum(1 for r in rows if str(r.get('error', '')).startswith('TRACEBACK'))}; "
        f"environments built: {len(built)} of {len(rows)}; self-check passed: "
        f"{sum(1 for r in built if r['check'] == 'ok')} of {len(built)}; with >= {args.n} tasks: "
        f"{sum(1 for r in rows if r.get('tasks') == args.n)} of {len(rows)}; seeded values that break their "
        f"schema: {sum(int(r.get('misfits', 0)) for r in rows)} of {sum(int(r.get('values', 0)) for r in rows)}"  # type: ignore[call-overload]
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.json"
        path.write_text(json.dumps(big_spec(args.ops)))
        start = time.perf_counter()
        spec = synthesize(path)
        synth_s = time.perf_counter() - start
        report = self_check(spec)
        total = time.perf_counter() - start
    console.print(
        f"{len(spec.tools.tools)}-operation spec: synthesize {synth_s:.2f} s, + self-check {total:.2f} s "
        f"(target <= 2 s; self-check {'passed' if report.passed else 'FAILED'})"
    )


if __name__ == "__main__":
    main()

"""Synthesized environments against real implementations, beside an always-succeeding stub.

    python bench/fidelity.py [--sequences 40] [--length 10] [--seed 0] [--python MANIFEST.json] [--bfcl]
                             [--only-python]

For every tool set with a real implementation: outcome agreement, output agreement (exact and
leaf fields) and final-state agreement of the environment synthesized from its descriptions
(no binding), and the stub's scores on the same calls. Targets (issue #10): outcome >= 90 % and
>= 20 points above the stub; output fields >= 70 %; final state equal in >= 60 % of sequences.
Calls on which the real code crashed (an ``AttributeError`` in it: ``internal_error``) have no
behaviour to agree with; they are left out of every figure and counted beside the calls.

Implementations: the bundled ``specs/travel.py`` (written in this repository, so it proves
little) and published MCP servers from the npm registry (TypeScript; ``envfactory.testing.foreign``,
installed by ``make bench``), each synthesized from its live ``tools/list`` and measured against a
fresh server per sequence.

``--python MANIFEST.json`` adds published Python implementations that cannot live in this
repository (the BFCL API classes, say): a JSON list of ``{name, descriptions, implementation:
FILE.py:Class, scenario?}``, paths relative to the manifest's folder, which is put on
``sys.path`` (the classes import their siblings). Each class is made fresh per sequence and given
its scenario (its initial state) through its loader method.

``--bfcl`` measures the BFCL multi-turn API classes so: ``bfcl-eval``, pinned in
``bench/bfcl/requirements.txt``, is installed into ``bench/bfcl/python`` (by ``make bench``, or
here when it is missing), and ``bench/bfcl/manifest.py`` builds their manifest in
``bench/bfcl/build`` (both git-ignored) from the files it ships: the class files, their function
lists, and each class's ``initial_config`` in the first multi-turn entry that gives it one.
``python bench/fidelity.py --bfcl --only-python`` prints the README's BFCL table.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.table import Table

from envfactory.bundled import bundled_specs_dir
from envfactory.ingest import load
from envfactory.real.instrument import Measurement, measure
from envfactory.synth import synthesize
from envfactory.testing.foreign import FOREIGN_MCP, ensure_installed

ROOT = Path(__file__).resolve().parents[1]


def travel(args: argparse.Namespace) -> Measurement:
    path = bundled_specs_dir() / "travel.py"
    spec = synthesize(path, trust_code=True)
    return measure(spec, f"{path}:TravelAgency", sequences=args.sequences, length=args.length, seed=args.seed)


def foreign(name: str) -> object:
    server = FOREIGN_MCP[name]

    def run(args: argparse.Namespace) -> Measurement:
        target = server.target(ROOT)
        spec = synthesize(load(target), state="empty")
        return measure(spec, target, env=dict(server.env), final_tool=server.final_tool, sequences=args.sequences,
                       length=args.length, seed=args.seed)  # fmt: skip

    return run


def python_sets(manifest: Path) -> dict[str, object]:
    """The implementations a manifest names (see the module docstring)."""
    import json
    import sys

    folder = manifest.resolve().parent
    sys.path.insert(0, str(folder))
    out: dict[str, object] = {}
    for item in json.loads(manifest.read_text()):

        def run(args: argparse.Namespace, item: dict[str, str] = item) -> Measurement:
            spec = synthesize(folder / item["descriptions"], name=item["name"])
            scenario = str(folder / item["scenario"]) if item.get("scenario") else None
            return measure(spec, str(folder / item["implementation"]), scenario=scenario, sequences=args.sequences,
                           length=args.length, seed=args.seed)  # fmt: skip

        out[f"{item['name']} ({Path(item['implementation']).name.split(':')[0]}, Python)"] = run
    return out


def bfcl_manifest() -> Path:
    """The BFCL classes' manifest, built from the pinned install (made first if missing)."""
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    from bfcl import manifest as bfcl

    if not bfcl.installed():
        print(f"{bfcl.VENV.relative_to(ROOT)} is missing or older than its requirements: installing "
              f"{bfcl.REQUIREMENTS.relative_to(ROOT)} as `make bench` does ...", file=sys.stderr,
              flush=True)  # fmt: skip
        bfcl.install()
    path = bfcl.build()
    print(f"BFCL manifest: {path.relative_to(ROOT)}", file=sys.stderr, flush=True)
    return path


IMPLEMENTATIONS = {
    "travel (bundled, ours)": travel,
    **{f"{name} ({server.package}, MCP)": foreign(name) for name, server in FOREIGN_MCP.items()},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sequences", type=int, default=40)
    parser.add_argument("--length", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--python", type=Path, help="a manifest of Python implementations (module docstring)")
    parser.add_argument("--bfcl", action="store_true", help="the BFCL API classes, installed and their manifest built")
    parser.add_argument("--only-python", action="store_true", help="measure only the --python/--bfcl implementations")
    args = parser.parse_args()
    chosen = {} if args.only_python else dict(IMPLEMENTATIONS)
    if args.python:
        chosen.update(python_sets(args.python))
    if args.bfcl:
        chosen.update(python_sets(bfcl_manifest()))
    table = Table(title=f"Fidelity against real implementations ({args.sequences} sequences x {args.length} calls)")
    for col in ("tool set", "calls", "outcome (stub)", "output exact (stub)", "output fields (stub)", "final state",
                "targets met"):  # fmt: skip
        table.add_column(col)

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    if not args.only_python:
        ensure_installed(ROOT)
    for label, run in chosen.items():
        m = run(args)  # type: ignore[operator]
        met = [m.outcome >= 0.9 and m.outcome >= m.stub_outcome + 0.2, (m.output_fields or 0) >= 0.7,
               (m.final_state or 0) >= 0.6]  # fmt: skip
        calls = f"{m.calls} (+{m.real_crashes} crashed)" if m.real_crashes else str(m.calls)
        table.add_row(label, calls, f"{pct(m.outcome)} ({pct(m.stub_outcome)})",
                      f"{pct(m.output_exact)} ({pct(m.stub_output_exact)})",
                      f"{pct(m.output_fields)} ({pct(m.stub_output_fields)})", pct(m.final_state),
                      ", ".join(name for name, ok in zip(("outcome", "fields", "final state"), met, strict=True) if ok)
                      or "none")  # fmt: skip
    Console(width=180).print(table)


if __name__ == "__main__":
    main()

"""Synthesized environments against real implementations, beside an always-succeeding stub.

    python bench/fidelity.py [--sequences 40] [--length 10] [--seed 0]

For every tool set with a real implementation: outcome agreement, output agreement (exact and
leaf fields) and final-state agreement of the environment synthesized from its descriptions
(no binding), and the stub's scores on the same calls. Targets (issue #10): outcome >= 90 % and
>= 20 points above the stub; output fields >= 70 %; final state equal in >= 60 % of sequences.

Today the only implementation here is the bundled ``specs/travel.py`` (written in this
repository); foreign implementations (published Python packages, MCP servers) are still to come.
"""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from envfactory.bundled import bundled_specs_dir
from envfactory.fidelity import measure
from envfactory.synth import synthesize

IMPLEMENTATIONS = {"travel (bundled, ours)": ("travel.py", "TravelAgency")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sequences", type=int, default=40)
    parser.add_argument("--length", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    table = Table(title=f"Fidelity against real implementations ({args.sequences} sequences x {args.length} calls)")
    for col in ("tool set", "calls", "outcome (stub)", "output exact (stub)", "output fields (stub)", "final state",
                "targets met"):  # fmt: skip
        table.add_column(col)

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:.0%}"

    for label, (file, cls) in IMPLEMENTATIONS.items():
        path = bundled_specs_dir() / file
        spec = synthesize(path, trust_code=True)
        m = measure(spec, f"{path}:{cls}", sequences=args.sequences, length=args.length, seed=args.seed)
        met = [m.outcome >= 0.9 and m.outcome >= m.stub_outcome + 0.2, (m.output_fields or 0) >= 0.7,
               (m.final_state or 0) >= 0.6]  # fmt: skip
        table.add_row(label, str(m.calls), f"{pct(m.outcome)} ({pct(m.stub_outcome)})",
                      f"{pct(m.output_exact)} ({pct(m.stub_output_exact)})",
                      f"{pct(m.output_fields)} ({pct(m.stub_output_fields)})", pct(m.final_state),
                      ", ".join(name for name, ok in zip(("outcome", "fields", "final state"), met, strict=True) if ok)
                      or "none")  # fmt: skip
    Console(width=180).print(table)


if __name__ == "__main__":
    main()

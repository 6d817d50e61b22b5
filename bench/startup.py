"""Start-up time: what every CLI command and every `import envfactory` pays before doing anything.

    python bench/startup.py [--runs 7]

Targets: `envfactory --help` <= 0.3 s and `import envfactory` <= 0.5 s (medians of fresh
processes). Baselines measured in the same run: the bare interpreter (`python -c pass`), and
the libraries a first real call needs anyway (Gymnasium, Faker).

Then an environment of a large description (Discord's 242 operations, ``shared/corpus``) built
from its saved spec in a fresh process — what `envfactory serve` and every trainer's worker pay
before a first episode — beside the same build with every tool's argument validator generated up
front (the baseline: how environments were built before validators were generated on first use).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

ENVFACTORY = str(Path(sys.executable).with_name("envfactory"))
CASES = [
    ("python -c pass (the interpreter alone)", [sys.executable, "-c", "pass"], None),
    ("envfactory --help", [ENVFACTORY, "--help"], 0.3),
    ("import envfactory", [sys.executable, "-c", "import envfactory"], 0.5),
    ("import gymnasium (baseline)", [sys.executable, "-c", "import gymnasium"], None),
    ("import faker (baseline)", [sys.executable, "-c", "import faker"], None),
    ("envfactory inspect (a first real command)", [ENVFACTORY, "inspect", "ENVDIR"], None),
]


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        specs = Path(__file__).resolve().parents[1] / "specs"
        subprocess.run([ENVFACTORY, "synth", str(specs / "shop.yaml"), "-o", tmp, "--no-check"], check=True,
                       capture_output=True)  # fmt: skip
        table = Table(title=f"Start-up (median of {args.runs} fresh processes, after one warm-up)")
        for col in ("command", "median", "min", "target"):
            table.add_column(col)
        for label, cmd, target in CASES:
            cmd = [str(Path(tmp) / "shop") if c == "ENVDIR" else c for c in cmd]
            timed(cmd)  # warm the file cache
            runs = [timed(cmd) for _ in range(args.runs)]
            median = statistics.median(runs)
            verdict = "" if target is None else f"<= {target} s ({'met' if median <= target else 'MISSED'})"
            table.add_row(label, f"{median:.3f} s", f"{min(runs):.3f} s", verdict)
        Console().print(table)
        large(Path(tmp), args.runs)


LARGE = "discord.com-10.json"
BUILD = """
import sys, time
from envfactory.ir.env import EnvSpec
from envfactory.runtime.environment import Environment
spec = EnvSpec.load(sys.argv[1])
started = time.perf_counter()
env = Environment(spec)
if sys.argv[2] == "eager":
    for tool in env.tools.values():
        tool.validate({})
print(time.perf_counter() - started)
"""


def large(tmp: Path, runs: int) -> None:
    """A 242-tool environment's build, in fresh processes: as built, and with every validator made first."""
    from envfactory.testing.shared import shared_dir

    spec = shared_dir(Path(__file__).resolve().parents[1]) / "corpus" / LARGE
    out = tmp / "large"
    subprocess.run([ENVFACTORY, "synth", str(spec), "-o", str(out), "--no-check"], check=True, capture_output=True)
    [out] = [d for d in out.iterdir() if d.is_dir()]  # the environment's folder, named after the spec
    table = Table(title=f"Environment({LARGE}) in a fresh process (median of {runs})")
    for col in ("build", "median", "min"):
        table.add_column(col)
    for label, how in (("validators made on first call (this code)", "lazy"),
                       ("every validator made up front (baseline)", "eager")):  # fmt: skip
        times = [float(subprocess.run([sys.executable, "-c", BUILD, str(out), how], check=True, capture_output=True,
                                      text=True).stdout) for _ in range(runs)]  # fmt: skip
        table.add_row(label, f"{statistics.median(times):.2f} s", f"{min(times):.2f} s")
    Console().print(table)


if __name__ == "__main__":
    main()

"""Scale: synthesize and self-check the largest public descriptions, and the size of their folders.

    python bench/scale.py [--corpus ../shared/corpus] [--largest 10] [--json out.json]

Targets (issue #25): synth + check of each of the 10 largest specs of the shared corpus (up to
~1.2 MB) in <= 30 s, and an environment folder <= 5x the spec's own size. Baselines measured in the
same run: reading the spec with the plain YAML/JSON parser (what any tool pays before anything),
and the spec itself as compact JSON (the folder holds the same schemas, and seeded rows besides).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import yaml
from rich.console import Console
from rich.table import Table

from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
SECONDS, TIMES = 30.0, 5.0


def measure(path: Path) -> dict[str, float | str]:
    start = time.perf_counter()
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))  # JSON is YAML too
    parsed = time.perf_counter() - start
    start = time.perf_counter()
    spec = synthesize(path)
    synthesized = time.perf_counter() - start
    folder = Path(tempfile.mkdtemp(prefix="envfactory-scale-"))
    try:
        spec.save(folder / "env")
        size = sum(f.stat().st_size for f in (folder / "env").iterdir())
    finally:
        shutil.rmtree(folder)
    start = time.perf_counter()
    self_check(spec, seed=0)
    checked = time.perf_counter() - start
    return {
        "spec": path.name, "spec_bytes": path.stat().st_size,
        "compact_bytes": len(json.dumps(doc, separators=(",", ":"), default=str)),
        "parse_s": parsed, "synth_s": synthesized, "check_s": checked, "folder_bytes": size,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--largest", type=int, default=10)
    parser.add_argument("--json", type=Path, help="also write the rows here")
    args = parser.parse_args()
    if not args.corpus.is_dir():
        raise SystemExit(f"bench/scale.py: no corpus folder at {args.corpus} (pass --corpus)")
    files = sorted(
        (p for p in args.corpus.iterdir() if p.suffix in (".yaml", ".yml", ".json")), key=lambda p: -p.stat().st_size
    )[: args.largest]
    table = Table(title=f"The {len(files)} largest specs of {args.corpus}: synth + self-check, folder size")
    for col in ("spec", "MB", "parse s (baseline)", "synth s", "check s", "total s", "folder MB", "x spec", "x JSON"):
        table.add_column(col, justify="left" if col == "spec" else "right")
    rows, console = [], Console(width=150)
    for path in files:
        row = measure(path)
        rows.append(row)
        total = float(row["synth_s"]) + float(row["check_s"])
        times = float(row["folder_bytes"]) / float(row["spec_bytes"])
        table.add_row(
            str(row["spec"]), f"{float(row['spec_bytes']) / 1e6:.2f}", f"{float(row['parse_s']):.1f}",
            f"{float(row['synth_s']):.1f}", f"{float(row['check_s']):.1f}",
            ("" if total <= SECONDS else "[red]") + f"{total:.1f}", f"{float(row['folder_bytes']) / 1e6:.2f}",
            ("" if times <= TIMES else "[red]") + f"{times:.1f}",
            f"{float(row['folder_bytes']) / float(row['compact_bytes']):.1f}",
        )  # fmt: skip
        console.print(f"  {path.name}: {total:.1f} s, folder {times:.1f}x", highlight=False)
    console.print(table)
    slow = [r["spec"] for r in rows if float(r["synth_s"]) + float(r["check_s"]) > SECONDS]
    big = [r["spec"] for r in rows if float(r["folder_bytes"]) > TIMES * float(r["spec_bytes"])]
    console.print(f"targets: <= {SECONDS:.0f} s on {len(rows) - len(slow)}/{len(rows)}, "
                  f"folder <= {TIMES:.0f}x on {len(rows) - len(big)}/{len(rows)}", highlight=False)  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()

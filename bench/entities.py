"""Are the entities synthesis infers the ones the API documents? A judgement table over specs drawn at random.

    python bench/entities.py [FOLDER] [--draw 10] [--seed 0] [--judged bench/entities_judged.json] [--show]

Draws ``--draw`` descriptions from FOLDER (default ``../shared/corpus``: public OpenAPI specs nobody
here wrote) with ``random.Random(seed)``, synthesizes each, and prints its entities (key, fields,
references, the tools that read and write them) beside the judgement a person recorded for them in
``--judged``, against the API's own documentation (its descriptions, paths and schemas):

- **right**: a resource the API documents as one, keyed as it keys it, holding its own fields;
- **partly**: a documented resource, but its fields carry another thing's (an envelope's ``data``,
  ``links``, ``status_code``) or its key is not the API's;
- **wrong**: not a resource the API keeps: a computed view (an estimate, a summary), an operation
  (a batch, a top-up), a utility endpoint (a heartbeat, the spec itself).

A spec is *right* when every entity is right and none it documents is missing, *wrong* when fewer
than half its entities are right or partly, *partly* otherwise. Each judgement is stored with a
fingerprint of what it judged (name, key, fields, references): an entity synthesis now infers
differently prints as ``unjudged`` with its new fingerprint, so a figure is never carried over to an
entity nobody looked at. ``--show`` prints every entity's fields and tools (what the judge reads).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from envfactory.ir.env import EnvSpec
from envfactory.ir.state import Entity
from envfactory.synth import synthesize
from envfactory.testing.shared import shared_dir

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from corpus import descriptions  # noqa: E402

VERDICTS = ("right", "partly", "wrong")


def fingerprint(entity: Entity) -> str:
    """What a judgement was made on: the entity's name, key, fields and references."""
    text = json.dumps([entity.name, entity.key, sorted(entity.fields), sorted(entity.refs.items())])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def drawn(folder: Path, n: int, seed: int) -> list[Path]:
    """``n`` descriptions of ``folder`` drawn by ``random.Random(seed)`` over their sorted names."""
    return random.Random(seed).sample(sorted(descriptions([folder]), key=lambda p: p.name), n)


def spec_verdict(verdicts: list[str], missing: list[str]) -> str:
    """right / partly / wrong for a whole spec from its entities' verdicts (see the module's doc)."""
    if verdicts and all(v == "right" for v in verdicts) and not missing:
        return "right"
    kept = sum(v in ("right", "partly") for v in verdicts)
    return "wrong" if kept * 2 < len(verdicts) + len(missing) else "partly"


def tools_of(spec: EnvSpec) -> dict[str | None, list[str]]:
    """Per entity (``None`` for none), the tools whose behaviour acts on it, as ``tool:kind``."""
    out: dict[str | None, list[str]] = {}
    for b in spec.behaviours:
        out.setdefault(getattr(b.effect, "entity", None), []).append(f"{b.tool}:{b.effect.kind}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", type=Path, default=shared_dir(ROOT) / "corpus")
    parser.add_argument("--draw", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--judged", type=Path, default=ROOT / "bench" / "entities_judged.json")
    parser.add_argument("--show", action="store_true", help="print each entity's fields and tools")
    args = parser.parse_args()
    judged: dict[str, Any] = json.loads(args.judged.read_text()) if args.judged.is_file() else {}
    console = Console(width=200)
    table = Table(title=f"entities of {args.draw} specs drawn from {args.folder.name} (seed {args.seed})")
    for col in ("spec", "entity", "verdict", "why"):
        table.add_column(col, overflow="fold")
    entity_counts = dict.fromkeys((*VERDICTS, "unjudged"), 0)
    spec_counts = dict.fromkeys((*VERDICTS, "unjudged"), 0)
    for path in drawn(args.folder, args.draw, args.seed):
        spec = synthesize(path)
        notes = judged.get(path.name, {})
        verdicts: list[str] = []
        tools = tools_of(spec)
        for entity in spec.state_schema.entities:
            note = notes.get("entities", {}).get(entity.name, {})
            mark = fingerprint(entity)
            verdict = note.get("verdict", "unjudged") if note.get("fingerprint") == mark else "unjudged"
            entity_counts[verdict] += 1
            verdicts.append(verdict)
            why = note.get("why", "") if verdict != "unjudged" else f"fingerprint {mark}"
            table.add_row(path.name, entity.name, verdict, why)
            if args.show:
                console.print(f"[bold]{path.name} {entity.name}[/] ({mark}) key={entity.key} "
                              f"fields={sorted(f for f in entity.fields if f != entity.key)} refs={dict(entity.refs)} "
                              f"tools={tools.get(entity.name, [])}", soft_wrap=True)  # fmt: skip
        if args.show and tools.get(None):
            console.print(f"[bold]{path.name}[/] no entity: {tools[None]}", soft_wrap=True)
        missing = list(notes.get("missing", []))
        for name in missing:
            table.add_row(path.name, name, "missing", notes.get("missing_why", ""))
        whole = "unjudged" if "unjudged" in verdicts else spec_verdict(verdicts, missing)
        spec_counts[whole] += 1
        table.add_row(path.name, "[bold]the spec[/]", f"[bold]{whole}[/]", "")
    console.print(table)
    console.print(f"specs: {spec_counts}; entities: {entity_counts}; "
                  f"specs right {spec_counts['right']} of {args.draw} (target >= 70 %)")  # fmt: skip


if __name__ == "__main__":
    main()

"""The demo's headline figures: taken from its report, written to a JSON file (``make demo`` rewrites
``docs/demo-figures.json``) and rendered as the Markdown the README quotes, so a test can tell
when the README and the committed demo code part ways."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

JSON = dict[str, Any]
POLICIES = ("ERPO + randomization", "ERPO, no randomization", "random")
SPLITS = {"held-out tasks": "held-out tasks, training envs", "held-out environments": "held-out environments"}
BANDS = {"level <= 2": range(1, 3), "level 3": range(3, 4), "all": range(1, 4)}
START, END = "<!-- demo-figures: rendered from docs/demo-figures.json -->", "<!-- /demo-figures -->"


def _percent(value: float) -> float:
    return round(100 * value, 1)


def _band(by_level: JSON, levels: range) -> float:
    rows = [m for level, m in by_level.items() if int(level) in levels]
    tasks = sum(m["tasks"] for m in rows)
    return _percent(sum(m["success"] * m["tasks"] for m in rows) / max(tasks, 1))


def figures(report: JSON, *, seed: int, iterations: int, warm_start: int) -> JSON:
    """Success (in %, one decimal) per policy, split and level band, and under each randomization setting."""
    results = report["results"]
    success = {
        policy: {
            split: {band: _band(results[f"{policy} | {key}"]["by_level"], levels) for band, levels in BANDS.items()}
            for split, key in SPLITS.items()
        }
        for policy in POLICIES
    }
    robust = report["tables"][2]
    settings = robust["header"][1:]
    robustness = {row[0]: dict(zip(settings, (_percent(v) for v in row[1:]), strict=True)) for row in robust["rows"]}
    return {"seed": seed, "iterations": iterations, "warm_start": warm_start, "success": success,
            "robustness": robustness}  # fmt: skip


def write_figures(path: str | Path, data: JSON) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return out


def _pct(value: float) -> str:
    return f"{value:.1f} %"


def _compare(a: float, b: float, noun: str = "") -> str:
    if a == b:
        return f"as many{noun} as"
    return f"{'more' if a > b else 'fewer'}{noun} than"


def render(data: JSON) -> str:
    """The README's demo tables and the clean-versus-robust sentence, from the figures alone."""
    ours, plain, chance = (data["success"][p] for p in POLICIES)
    lines = [
        "| split | level ≤ 2 | level 3 (must read a list first) | all levels ≤ 3 | random policy, level ≤ 2 / 3 |",
        "|---|---|---|---|---|",
    ]
    for split in SPLITS:
        s, c = ours[split], chance[split]
        lines.append(f"| {split} | {_pct(s['level <= 2'])} | {_pct(s['level 3'])} | {_pct(s['all'])} | "
                     f"{_pct(c['level <= 2'])} / {_pct(c['level 3'])} |")  # fmt: skip
    robust = data["robustness"]
    settings = [s for s in robust[POLICIES[0]] if s != "none"]
    lines += ["", "| trained | clean | " + " | ".join(f"`{s}`" for s in settings) + " |",
              "|---|---|" + "---|" * len(settings)]  # fmt: skip
    for policy in POLICIES[:2]:
        row = robust[policy]
        lines.append(f"| {policy} | {_pct(row['none'])} | " + " | ".join(_pct(row[s]) for s in settings) + " |")
    lines += ["", _trade_off(ours, plain, robust[POLICIES[0]], robust[POLICIES[1]], settings)]
    return "\n".join(lines)


def _trade_off(ours: JSON, plain: JSON, r: JSON, p: JSON, settings: list[str]) -> str:
    """The sentence that says plainly what randomization costs on clean tasks and buys under stress."""
    tasks, envs = (ours[k]["all"] for k in SPLITS), (plain[k]["all"] for k in SPLITS)
    (ot, oe), (pt, pe) = tasks, envs
    stressed = [s for s in settings if s.endswith(":stress")]
    kept = sum(r[s] > p[s] for s in stressed)
    under = ", ".join(f"{s.split(':')[0]} {_pct(r[s])} vs {_pct(p[s])}" for s in stressed)
    return (
        f"**Clean against robust.** The policy trained with randomization solves {_compare(ot, pt, ' tasks')} the one "
        f"trained without it on clean held-out tasks ({_pct(ot)} vs {_pct(pt)}) and {_compare(oe, pe)} it on the "
        f"environments neither saw ({_pct(oe)} vs {_pct(pe)}); under the stress settings it keeps more in {kept} "
        f"of {len(stressed)} families ({under})."
    )


def readme_region(text: str) -> str | None:
    """What the README holds between the figure markers (None without them)."""
    if START not in text or END not in text:
        return None
    return text.split(START, 1)[1].split(END, 1)[0].strip("\n")


__all__ = ["END", "START", "figures", "readme_region", "render", "write_figures"]

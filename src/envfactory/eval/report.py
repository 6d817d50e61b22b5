"""One self-contained HTML page for a run: learning curves, result tables, a few transcripts."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from envfactory.eval.curves import held_out_rows, learning_curves
from envfactory.eval.tables import html_table

JSON = dict[str, Any]
FOLD_CHARS = 600  # a message longer than this is folded behind its first words


def _curve(curve: JSON) -> str:
    points = curve.get("held_out", [])
    parts = [f"<h2>{html.escape(curve['title'])}</h2>",
             f"<img class=curve alt='{html.escape(curve['title'])}' "
             f"src='{learning_curves(curve['metrics'], points, curve['title'])}'>"]  # fmt: skip
    if points:
        header, rows = held_out_rows(points)
        episodes = sorted({int(p["episodes"]) for p in points})
        parts.append(
            "<h3>Held-out success along training</h3>"
            + html_table({"header": header, "rows": rows, "units": ["count", *["percent"] * (len(header) - 1)]})
            + f"<p class=note>The greedy policy on clean environments of their own, on a fixed sample of "
            f"{' or '.join(map(str, episodes))} tasks per split, the same at every point (the tables below "
            f"evaluate every held-out task, so their figures differ by the sample).</p>"
        )
    return "".join(parts)


def _message(m: JSON) -> list[str]:
    if m.get("tool_calls"):
        return [
            f"<div class=a><b>agent →</b> <code>{html.escape(c['function']['name'])}"
            f"({html.escape(str(c['function']['arguments']))})</code></div>"
            for c in m["tool_calls"]
        ]
    role, content = m["role"], str(m.get("content"))
    cls = {"tool": "t", "user": "u", "assistant": "a", "system": "s"}.get(role, "s")
    if len(content) > FOLD_CHARS:  # long tool outputs are folded, never cut
        head = html.escape(content[:120].replace("\n", " "))
        return [f"<details class={cls}><summary><b>{html.escape(role)}</b>: {head}… ({len(content):,} characters)"
                f"</summary><pre>{html.escape(content)}</pre></details>"]  # fmt: skip
    return [f"<div class={cls}><b>{html.escape(role)}</b>: <pre>{html.escape(content)}</pre></div>"]


def _transcript(traj: JSON) -> str:
    lines = [line for m in traj.get("messages", []) for line in _message(m)]
    reasons = list(traj.get("reasons", []))
    verdict = "success" if traj["success"] else f"failure ({len(reasons)} reason{'s' * (len(reasons) != 1)})"
    why = "".join(f"<li>{html.escape(r)}</li>" for r in reasons)
    summary = f"{html.escape(traj['env'])} / {html.escape(traj['task_id'])}: {verdict}, {traj.get('steps', '?')} steps"
    reasons_html = f"<ul class=reasons>{why}</ul>" if why else ""
    return f"<details class=transcript><summary>{summary}</summary>{reasons_html}{''.join(lines)}</details>"


CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
.wide{max-width:100%;overflow-x:auto}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}th{background:#f3f3f3;overflow-wrap:anywhere}
td:first-child,th:first-child,.l{text-align:left}h2{margin-top:1.6em}img.curve{max-width:100%;height:auto}
details{margin:.4em 0;border:1px solid #ddd;padding:.4em}details details{border:none;padding:0 .4em}
pre{display:inline;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;margin:0}
.t{color:#666;font-family:monospace;font-size:12px}.a{color:#0a5}.u{color:#a60}.s{color:#999}
.reasons{color:#b22}.note{color:#666;font-size:90%}summary{cursor:pointer}"""


def write_report(run_dir: str | Path, results: JSON) -> Path:
    """``results``: title, summary lines, tables (title, header, rows, optional units and corner:
    ``eval.tables``), curves (title, metrics, optional held-out points), transcripts."""
    run = Path(run_dir)
    parts = [f"<h1>{html.escape(results['title'])}</h1>"]
    parts += [f"<p>{html.escape(line)}</p>" for line in results.get("summary", [])]
    parts += [_curve(curve) for curve in results.get("curves", [])]
    for table in results.get("tables", []):
        parts.append(f"<h2>{html.escape(table['title'])}</h2>{html_table(table)}")
        if table.get("note"):
            parts.append(f"<p>{html.escape(table['note'])}</p>")
    if results.get("transcripts"):
        parts.append("<h2>Transcripts</h2><p class=note>Each episode in full; click to unfold.</p>"
                     + "".join(_transcript(t) for t in results["transcripts"]))  # fmt: skip
    head = f"<meta charset=utf-8><title>{html.escape(results['title'])}</title><style>{CSS}</style>"
    page = f"<!doctype html><html><head>{head}</head><body>{''.join(parts)}</body></html>"
    path = run / "report.html"
    path.write_text(page, encoding="utf-8")
    (run / "results.json").write_text(json.dumps(results, indent=2, default=str))
    return path

"""One self-contained HTML page for a run: learning curves, result tables, a few transcripts."""

from __future__ import annotations

import base64
import html
import io
import json
from pathlib import Path
from typing import Any

JSON = dict[str, Any]


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def learning_curves(metrics: list[JSON], title: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.4))
    xs = [m["iteration"] for m in metrics]
    window = 5
    smooth = [
        sum(m["reward"] for m in metrics[max(0, i - window + 1) : i + 1]) / min(i + 1, window)
        for i in range(len(metrics))
    ]
    ax.plot(xs, [m["reward"] for m in metrics], color="#bbbbbb", lw=1, label="batch success")
    ax.plot(xs, smooth, color="#d9534f", lw=2, label=f"moving average ({window})")
    ax.set_xlabel("iteration")
    ax.set_ylabel("success in training rollouts")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.legend(loc="lower right")
    out = _png(fig)
    plt.close(fig)
    return out


def _table(rows: list[list[Any]], header: list[str]) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.1%}" if 0 <= value <= 1 else f"{value:.2f}"
    return str(value)


def _transcript(traj: JSON) -> str:
    lines = []
    for m in traj.get("messages", []):
        if m.get("tool_calls"):
            for call in m["tool_calls"]:
                fn = call["function"]
                lines.append(f"<div class=a>agent → {html.escape(fn['name'])}({html.escape(fn['arguments'])})</div>")
            continue
        role, content = m["role"], str(m.get("content"))
        cls = {"tool": "t", "user": "u", "assistant": "a", "system": "s"}[role]
        lines.append(f"<div class={cls}><b>{role}</b>: {html.escape(content[:400])}</div>")
    verdict = "success" if traj["success"] else "failure: " + "; ".join(traj.get("reasons", []))
    summary = f"{html.escape(traj['env'])} / {html.escape(traj['task_id'])} — {html.escape(verdict[:160])}"
    return f"<details><summary>{summary}</summary>{''.join(lines)}</details>"


CSS = """body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}h2{margin-top:1.6em}
details{margin:.4em 0;border:1px solid #ddd;padding:.4em}.t{color:#666;font-family:monospace;font-size:12px}
.a{color:#0a5}.u{color:#a60}.s{color:#999}"""


def write_report(run_dir: str | Path, results: JSON) -> Path:
    """``results``: title, summary lines, tables (title, header, rows), curves (title, metrics), transcripts."""
    run = Path(run_dir)
    parts = [f"<h1>{html.escape(results['title'])}</h1>"]
    parts += [f"<p>{html.escape(line)}</p>" for line in results.get("summary", [])]
    for curve in results.get("curves", []):
        parts.append(
            f"<h2>{html.escape(curve['title'])}</h2><img src='{learning_curves(curve['metrics'], curve['title'])}'>"
        )
    for table in results.get("tables", []):
        parts.append(f"<h2>{html.escape(table['title'])}</h2>{_table(table['rows'], table['header'])}")
        if table.get("note"):
            parts.append(f"<p>{html.escape(table['note'])}</p>")
    if results.get("transcripts"):
        parts.append("<h2>Transcripts</h2>" + "".join(_transcript(t) for t in results["transcripts"]))
    head = f"<meta charset=utf-8><title>{html.escape(results['title'])}</title><style>{CSS}</style>"
    page = f"<!doctype html><html><head>{head}</head><body>{''.join(parts)}</body></html>"
    path = run / "report.html"
    path.write_text(page, encoding="utf-8")
    (run / "results.json").write_text(json.dumps(results, indent=2, default=str))
    return path

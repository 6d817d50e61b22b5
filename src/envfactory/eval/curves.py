"""The learning-curve figure of a training run: success in training rollouts beside held-out
success at each evaluation point, and the update's loss, entropy and KL; an SVG data URI."""

from __future__ import annotations

import base64
import io
import re
from typing import Any

JSON = dict[str, Any]
WINDOW = 5  # iterations in the training curve's moving average
HELD_OUT_COLOURS = ("#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e")
UPDATE_SERIES = (("loss", "loss"), ("entropy", "entropy (nats)"), ("kl", "KL(before || after)"))


def moving_average(values: list[float], window: int = WINDOW) -> list[float]:
    """The mean of each value and the ``window - 1`` before it (fewer at the start)."""
    return [sum(values[max(0, i - window + 1) : i + 1]) / min(i + 1, window) for i in range(len(values))]


def held_out_series(points: list[JSON]) -> dict[str, tuple[list[int], list[float]]]:
    """Held-out rows (iteration, split, success) as one (iterations, successes) series per split."""
    series: dict[str, tuple[list[int], list[float]]] = {}
    for row in sorted(points, key=lambda r: r["iteration"]):
        xs, ys = series.setdefault(str(row["split"]), ([], []))
        xs.append(int(row["iteration"]))
        ys.append(float(row["success"]))
    return series


def series_id(split: str) -> str:
    """The SVG id of a split's held-out line (letters, digits and dashes)."""
    return "held-out-" + re.sub(r"[^a-z0-9]+", "-", split.lower()).strip("-")


def learning_curves(metrics: list[JSON], held_out: list[JSON], title: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "envfactory", "font.size": 9}):
        fig = plt.figure(figsize=(10.4, 4.2))
        grid = fig.add_gridspec(3, 2, width_ratios=(1.7, 1), hspace=0.15, wspace=0.22)
        ax = fig.add_subplot(grid[:, 0])
        _success(ax, metrics, held_out, title)
        first = None
        for row, (key, label) in enumerate(UPDATE_SERIES):
            side = fig.add_subplot(grid[row, 1], sharex=first)
            first = first or side
            _update_series(side, metrics, key, label, last=row == len(UPDATE_SERIES) - 1)
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", bbox_inches="tight")
        plt.close(fig)
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode()


def _success(ax: Any, metrics: list[JSON], held_out: list[JSON], title: str) -> None:
    xs = [m["iteration"] for m in metrics]
    rewards = [m["reward"] for m in metrics]
    ax.plot(xs, rewards, color="#cccccc", lw=1, label="training rollouts (batch)")
    ax.plot(xs, moving_average(rewards), color="#d9534f", lw=2, label=f"training rollouts (mean of {WINDOW})")
    for (split, (hx, hy)), colour in zip(held_out_series(held_out).items(), HELD_OUT_COLOURS * 4, strict=False):
        (line,) = ax.plot(hx, hy, "o-", color=colour, lw=2, ms=5, label=f"held-out: {split} (greedy)")
        line.set_gid(series_id(split))
    ax.set_xlabel("RL iteration (0: after the warm start)")
    ax.set_ylabel("success")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="center left", fontsize=8, framealpha=0.9)


def _update_series(ax: Any, metrics: list[JSON], key: str, label: str, *, last: bool) -> None:
    rows = [m for m in metrics if key in m]
    if rows:
        (line,) = ax.plot([m["iteration"] for m in rows], [m[key] for m in rows], color="#555555", lw=1.2)
        line.set_gid(f"update-{key}")
    else:
        ax.text(0.5, 0.5, f"no {key} in this run's metrics", ha="center", va="center", transform=ax.transAxes)
    ax.set_ylabel(label, fontsize=8)
    ax.grid(alpha=0.3)
    ax.tick_params(labelbottom=last)
    if last:
        ax.set_xlabel("RL iteration")


def held_out_rows(points: list[JSON]) -> tuple[list[str], list[list[Any]]]:
    """The held-out points as a table: one row per evaluation point, one column per split."""
    series = held_out_series(points)
    iterations = sorted({x for xs, _ in series.values() for x in xs})
    by_point = {(split, x): y for split, (xs, ys) in series.items() for x, y in zip(xs, ys, strict=True)}
    rows = [[it, *(by_point.get((split, it), "") for split in series)] for it in iterations]
    return ["iteration", *series], rows


__all__ = ["held_out_rows", "held_out_series", "learning_curves", "moving_average", "series_id"]

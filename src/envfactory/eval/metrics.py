"""Metrics over trajectories: success, pass^k (tau-bench), steps, tool-error rate, breakdowns."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from math import comb
from statistics import mean
from typing import Any

from envfactory.ir.trajectory import Trajectory


def pass_hat_k(successes: int, trials: int, k: int) -> float:
    """Probability that k i.i.d. trials of one task all succeed, estimated without bias from
    ``successes`` out of ``trials``: C(c, k) / C(n, k) (tau-bench's pass^k)."""
    if not 1 <= k <= trials:
        raise ValueError(f"pass^k needs 1 <= k <= trials, got k={k}, trials={trials}")
    return comb(successes, k) / comb(trials, k)


def summarize(trajectories: Sequence[Trajectory], ks: Sequence[int] = (1,)) -> dict[str, Any]:
    if not trajectories:
        return {"episodes": 0}
    by_task: dict[str, list[bool]] = defaultdict(list)
    for t in trajectories:
        by_task[t.task_id].append(t.success)
    trials = min(len(v) for v in by_task.values())
    out: dict[str, Any] = {
        "episodes": len(trajectories),
        "tasks": len(by_task),
        "success": mean(t.success for t in trajectories),
        "avg_steps": mean(t.steps for t in trajectories),
        "tool_error_rate": sum(t.tool_errors for t in trajectories) / max(1, sum(t.tool_calls for t in trajectories)),
        "user_spoiled": sum(t.masked for t in trajectories),  # counted in success; the judge's mask
    }
    for k in ks:
        if k <= trials:
            out[f"pass^{k}"] = mean(pass_hat_k(sum(v[:trials]), trials, k) for v in by_task.values())
    return out


def breakdown(
    trajectories: Sequence[Trajectory], key: Callable[[Trajectory], Hashable], ks: Sequence[int] = (1,)
) -> dict[Hashable, dict[str, Any]]:
    groups: dict[Hashable, list[Trajectory]] = defaultdict(list)
    for t in trajectories:
        groups[key(t)].append(t)
    return {k: summarize(v, ks) for k, v in sorted(groups.items(), key=lambda kv: str(kv[0]))}

"""Tasks and trajectories as a Hugging Face dataset: JSON lines and Parquet, with a dataset card.

``export_dataset(out, tasks=..., trajectories=..., env=...)`` writes ``tasks.jsonl`` /
``tasks.parquet`` (one row per task: ids, level, difficulty, the instruction, an OpenAI-style
``prompt``, the environment's ``tools`` when it is given, and the gold plan, goal and user facts as
JSON text, so every row has the same columns) and ``trajectories.jsonl`` / ``.parquet`` (one row
per episode: reward, success, masked, steps, messages as JSON text), and ``README.md``: a dataset
card whose header tells ``datasets.load_dataset(DIR)`` which files hold which split.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from envfactory.ir.task import Task
from envfactory.ir.trajectory import Trajectory
from envfactory.runtime.environment import Environment

JSON = dict[str, Any]


def task_row(task: Task, tools: list[JSON] | None = None) -> JSON:
    return {
        "env": task.env,
        "id": task.id,
        "level": task.level,
        "difficulty": task.difficulty,
        "instruction": task.instruction,
        "prompt": [{"role": "user", "content": task.instruction}],
        "tools": json.dumps(tools or []),
        "gold": json.dumps([c.model_dump(mode="json") for c in task.gold]),
        "goal": task.goal.model_dump_json(),
        "user_facts": json.dumps(dict(task.user.facts)),
        "max_steps": task.max_steps or 0,
    }


def trajectory_row(t: Trajectory) -> JSON:
    return {
        "env": t.env,
        "task_id": t.task_id,
        "policy": t.policy,
        "seed": t.seed,
        "level": t.level,
        "reward": t.reward,
        "success": t.success,
        "masked": t.masked,
        "steps": t.steps,
        "tool_calls": t.tool_calls,
        "tool_errors": t.tool_errors,
        "reasons": json.dumps(list(t.reasons)),
        "messages": json.dumps(list(t.messages)),
    }


def _write(rows: list[JSON], out: Path, name: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    with open(out / f"{name}.jsonl", "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    pq.write_table(pa.Table.from_pylist(rows), out / f"{name}.parquet")


def export_dataset(
    out: Path,
    *,
    tasks: Iterable[Task] = (),
    trajectories: Iterable[Trajectory] = (),
    env: Environment | None = None,
    name: str = "envfactory tasks",
) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    tools = env.openai_tools if env is not None else None
    task_rows = [task_row(t, tools) for t in tasks]
    traj_rows = [trajectory_row(t) for t in trajectories]
    configs = []
    if task_rows:
        _write(task_rows, out, "tasks")
        configs.append(("tasks", "tasks.parquet"))
    if traj_rows:
        _write(traj_rows, out, "trajectories")
        configs.append(("trajectories", "trajectories.parquet"))
    (out / "README.md").write_text(_card(name, configs, task_rows, traj_rows), encoding="utf-8")
    return out


def _outcomes(trajs: list[JSON]) -> str:
    if not trajs:
        return ""
    success = sum(r["success"] for r in trajs) / len(trajs)
    return f" (success {success:.1%}, masked {sum(r['masked'] for r in trajs)})"


def _card(name: str, configs: list[tuple[str, str]], tasks: list[JSON], trajs: list[JSON]) -> str:
    header = ["---", "configs:"]
    for i, (config, file) in enumerate(configs):
        header += [f"- config_name: {config}", *(["  default: true"] if i == 0 else []), "  data_files:",
                   "  - split: train", f"    path: {file}"]  # fmt: skip
    header += ["tags:", "- tool-use", "- reinforcement-learning", "- envfactory", "---", ""]
    envs = sorted({r["env"] for r in tasks + trajs})
    levels = sorted({r["level"] for r in tasks})
    body = [
        f"# {name}",
        "",
        "Synthesized by envfactory from tool descriptions: every task was gold-run on "
        "its environment and is verified by final state and answer facts; trivial agents (no-op, read-only, "
        "random, answer-spraying) fail it.",
        "",
        f"- environments: {', '.join(envs) or '-'}",
        f"- tasks: {len(tasks)} (levels {levels or '-'})",
        f"- trajectories: {len(trajs)}{_outcomes(trajs)}",
        "",
        "Columns holding structures (`tools`, `gold`, `goal`, `user_facts`, `messages`, `reasons`) are JSON text, "
        "so every row has the same schema: `json.loads(row['gold'])`.",
        "",
        "```python",
        "from datasets import load_dataset",
        "tasks = load_dataset('path/to/this/folder', 'tasks', split='train')",
        "```",
    ]
    return "\n".join(header + body) + "\n"


__all__ = ["export_dataset", "task_row", "trajectory_row"]

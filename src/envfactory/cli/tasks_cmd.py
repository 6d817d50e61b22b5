"""CLI commands for tasks: graph, tasks, show-task, solve."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from envfactory.cli.common import console, err_console, escape, friendly_errors, short_json, table
from envfactory.ir.env import EnvSpec, write_json
from envfactory.ir.task import Task
from envfactory.runtime.environment import Environment
from envfactory.tasks.agents import Agent, RandomAgent, gold, noop, read_only
from envfactory.tasks.generate import Report, baselines, generate_tasks
from envfactory.tasks.graph import WRITES, describe, tool_graph
from envfactory.tasks.graph_picture import MIN_CONFIDENCE, draw, entity_flows, split_by_confidence
from envfactory.tasks.stream import Resume, TaskWriter, progress_line, read_resume
from envfactory.tasks.taskset import TaskSet, check_task, split_tasks
from envfactory.users.scripted import ScriptedUser


@friendly_errors
def graph(env_dir: Path, out: Path | None) -> None:
    g = tool_graph(EnvSpec.load(env_dir))
    for line in describe(g):
        console.print(escape(line), soft_wrap=True)
    path = draw(g, out or env_dir / "graph.png")
    drawn, listed = split_by_confidence(entity_flows(g))
    console.print(f"{g.number_of_nodes()} tools, {g.number_of_edges()} edges; picture: {path} ({len(drawn)} flows "
                  f"drawn by entity, {len(listed)} of confidence < {MIN_CONFIDENCE} listed under it)")  # fmt: skip


@friendly_errors
def tasks(
    env_dir: Path,
    n: int,
    seed: int,
    out: Path,
    test: float,
    heldout: list[str],
    check_baselines: bool,
    trust_code: bool,
    resume: bool = False,
    first: bool = False,
) -> int:
    env = Environment.load(env_dir, trust_code=trust_code)
    unknown = sorted(set(heldout) - set(env.tools))
    if unknown:
        err_console.print(f"[bold red]error:[/] unknown held-out tools {unknown}", soft_wrap=True)
        return 2
    start = read_resume(out, env.name, seed) if resume else Resume()
    if start.tasks:
        err_console.print(f"resuming: {len(start.tasks)} tasks in {out}, attempts from {start.next_attempt}")
    try:
        made, report = _stream(env, n, seed, out, start, first)
    except KeyboardInterrupt:
        kept = read_resume(out, env.name, seed).tasks
        err_console.print(f"interrupted: {len(kept)} tasks kept in {out}; run again with --resume to continue")
        return 130
    splits = split_tasks(made, test_fraction=test, heldout_tools=heldout, seed=seed)
    write_json(out.with_suffix(".splits.json"), splits)
    if check_baselines:
        report.baselines = baselines(env, made, seed)
    write_json(out.with_suffix(".report.json"), report.as_json())
    _print_report(report.as_json(), splits)
    console.print(f"wrote {len(made)} tasks to {out} (+ .splits.json, .report.json)")
    return 0 if len(made) == n else 1


def _stream(env: Environment, n: int, seed: int, out: Path, start: Resume,
            first: bool = False) -> tuple[list[Task], Report]:  # fmt: skip
    """Tasks appended to ``out`` as each is proven, under a progress line (kept / tried / rate / ETA)."""
    clock = time.monotonic()
    columns = (TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn())
    writer = TaskWriter(out, append=bool(start.tasks))
    with Progress(*columns, console=err_console, transient=True) as progress, writer as file:
        bar = progress.add_task(f"{env.name}: " + progress_line(len(start.tasks), n, 0, 0.0), total=n,
                                completed=len(start.tasks))  # fmt: skip

        def show(kept: int, tried: int) -> None:
            line = progress_line(kept, n, tried, time.monotonic() - clock, resumed=len(start.tasks))
            progress.update(bar, completed=kept, description=f"{env.name}: {line}")

        return generate_tasks(env, n, seed=seed, resume=start, on_task=file.write, on_attempt=show, first=first)


def _print_report(rep: dict, splits: dict[str, list[str]]) -> None:
    rows = [
        ["tasks kept", rep["kept"]],
        ["attempts", rep["attempts"]],
        ["rejected while binding", sum(rep["rejected"].values())],
        [
            "dropped by the self-test",
            ", ".join(f"{k}: {v}" for k, v in rep["dropped_by_selftest"].items()) or "0",
        ],
        ["duplicates skipped", rep["duplicates"]],
        ["tasks per level", ", ".join(f"L{k}: {v}" for k, v in rep["levels"].items())],
        ["splits", ", ".join(f"{k}: {len(v)}" for k, v in splits.items())],
    ]
    rows += [[f"success of the {k} agent", f"{v:.1%}"] for k, v in rep["baselines"].items()]
    console.print(table(f"Tasks for {rep['env']}", ["", "value"], rows))


@friendly_errors
def show_task(file: Path, ref: str) -> None:
    task = TaskSet(file).find(ref)
    console.print(f"[bold]{escape(task.id)}[/]  level {task.level} (difficulty {task.difficulty})")
    console.print(escape(task.instruction), soft_wrap=True)
    if task.user.facts:
        console.print(f"held back by the user: {escape(short_json(task.user.facts, 200))}")
    if task.goal.answer:
        console.print(f"the reply must state: {escape(', '.join(task.goal.answer))}")
    console.print(
        table(
            "Gold plan",
            ["#", "tool", "arguments"],
            [[i + 1, c.tool, short_json(c.args, 100)] for i, c in enumerate(task.gold)],
        )
    )
    if task.blueprint is not None:
        bp = task.blueprint
        fed = {n.id: list(n.inputs) for n in bp.nodes}
        for e in bp.edges:
            fed[e.dst].append(f"{e.src}.{e.src_field or 'value'}→{e.dst_arg}")
        rows = [[n.id, n.kind, n.tool or "-", n.field or "-", n.op or "-", short_json(n.value, 40),
                 ", ".join(fed[n.id]) or "-", f"{n.guard[0]} is {n.guard[1]}" if n.guard else "-"]
                for n in bp.nodes]  # fmt: skip
        cols = ["node", "kind", "tool", "field", "op", "value", "takes", "runs when"]
        console.print(table(f"Blueprint (shape {bp.shape()})", cols, rows))
    changes = [
        [e, k, "deleted" if r is None else short_json(r, 100)]
        for e, rows in task.goal.rows.items()
        for k, r in rows.items()
    ]
    console.print(table("Goal: rows that must end up like this", ["entity", "key", "row"], changes))


@friendly_errors
def solve(env_dir: Path, file: Path, ref: str, agent_name: str, seed: int, trust_code: bool) -> int:
    env = Environment.load(env_dir, trust_code=trust_code)
    task = check_task(TaskSet(file).find(ref), env.spec, f"{file}: task {ref}")
    writes = {b.tool for b in env.spec.behaviours if b.effect.kind in WRITES}
    makers: dict[str, Callable[[], Agent]] = {
        "gold": lambda: gold(task),
        "noop": lambda: noop(task),
        "read-only": lambda: read_only(task, writes),
        "random": lambda: RandomAgent(seed),
    }
    agent = makers[agent_name]()
    episode = env.episode(max_steps=task.max_steps, user=ScriptedUser(task))
    episode.reset(task=task)
    agent.run(episode, task)
    for message in episode.messages:
        _print_message(message)
    verdict = episode.verify()
    colour = "green" if verdict.success else "red"
    console.print(
        f"[{colour}]reward {verdict.reward}[/] " + escape("; ".join(verdict.reasons) or "all checks pass"),
        soft_wrap=True,
    )
    return 0


def _print_message(message: dict) -> None:
    role = message["role"]
    if message.get("tool_calls"):
        for call in message["tool_calls"]:
            fn = call["function"]
            console.print(f"[cyan]agent →[/] {escape(fn['name'])}({escape(fn['arguments'])})", soft_wrap=True)
    elif role == "tool":
        console.print(f"[dim]   ← {escape(message['content'][:300])}[/]", soft_wrap=True)
    else:
        style = {"system": "dim", "user": "yellow", "assistant": "cyan"}[role]
        console.print(f"[{style}]{role}:[/] {escape(str(message['content']))}", soft_wrap=True)

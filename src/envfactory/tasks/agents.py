"""Reference agents that follow a call list (gold, mutated, truncated) or act at random.

They exist to prove tasks: the gold agent must pass; the no-op, read-only and early-stopping
agents and every mutation of the gold plan must fail; the random agent gives a chance baseline.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from envfactory.ir.task import Call, Task
from envfactory.runtime.episode import Episode
from envfactory.synth.arguments import sample_arguments
from envfactory.values import ValueMaker


class Agent(Protocol):
    name: str

    def run(self, episode: Episode, task: Task) -> None: ...


def report(task: Task) -> str:
    """The final message: what was done and every fact the user asked for."""
    facts = ", ".join(task.goal.answer)
    return f"All done. {facts}".strip() if facts else "All done."


class Replay:
    """Asks for the held-back facts, makes the given calls, then reports."""

    def __init__(
        self, name: str, calls: Sequence[Call], *, ask: bool = True, reply: bool = True, closing: str | None = None
    ) -> None:
        self.name, self.calls, self.ask, self.reply, self.closing = name, list(calls), ask, reply, closing

    def run(self, episode: Episode, task: Task) -> None:
        if self.ask:
            for label in task.user.facts:
                episode.respond(f"What is the {label}?")
        for call in self.calls:
            episode.call_tool(call.tool, call.args)
        if self.reply:
            episode.respond(report(task))
        elif self.closing is not None:
            episode.respond(self.closing)


def gold(task: Task) -> Replay:
    return Replay("gold", task.gold)


def noop(task: Task) -> Replay:
    """Does nothing and says so: it does not know the answers either."""
    return Replay("no-op", [], ask=False, reply=False, closing="All done.")


def read_only(task: Task, writes: set[str]) -> Replay:
    return Replay("read-only", [c for c in task.gold if c.tool not in writes])


def early_stop(task: Task) -> Replay:
    return Replay("stops one step early", task.gold[:-1])


class CarelessReader:
    """Makes the gold calls, then answers each count or sum over *every* row of the entity,
    ignoring the condition the task states: an answer task it solves is not decisive."""

    name = "careless reader"

    def run(self, episode: Episode, task: Task) -> None:
        for label in task.user.facts:
            episode.respond(f"What is the {label}?")
        for call in task.gold:
            episode.call_tool(call.tool, call.args)
        episode.respond("All done. " + ", ".join(careless_answers(episode, task)))


def careless_answers(episode: Episode, task: Task) -> list[str]:
    bp = task.blueprint
    out = []
    for node_id in bp.answers if bp is not None else ():
        node = bp.node(node_id)  # type: ignore[union-attr]
        if node.entity is None or node.kind not in ("count", "sum"):
            continue
        rows = list(episode.store.rows(node.entity))
        if node.kind == "count":
            out.append(str(len(rows)))
        else:
            numbers = [r.get(node.field or "") for r in rows]
            out.append(f"{sum(v for v in numbers if isinstance(v, (int, float))):.2f}")
    return out


class RandomAgent:
    """Random tools with arguments drawn from the live state; the gold budget plus five steps."""

    name = "random"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.maker = ValueMaker(seed)

    def run(self, episode: Episode, task: Task) -> None:
        spec = episode.env.spec
        for _ in range(len(task.gold) + 5):
            behaviour = self.rng.choice(spec.behaviours)
            episode.call_tool(behaviour.tool, sample_arguments(spec, behaviour, episode.store, self.maker))
        episode.respond("All done.")


def success_rate(episode: Episode, tasks: Sequence[Task], make: Callable[[Task], Agent]) -> float:
    """The share of ``tasks`` the agent ``make(task)`` solves (each on a fresh reset)."""
    if not tasks:
        return 0.0
    wins = 0
    for task in tasks:
        episode.reset(task=task)
        make(task).run(episode, task)
        wins += episode.verify().success
    return wins / len(tasks)

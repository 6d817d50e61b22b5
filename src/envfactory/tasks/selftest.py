"""The verifier self-test every kept task must pass.

The gold plan runs without an error result and passes; the no-op agent (which says "All done"),
the read-only agent and the agent that stops one step early fail (for tasks with a write); an
answer task is also failed by the careless reader (the gold calls, then each count or sum over
every row, ignoring the task's condition), and its request must not already state the answer;
and so do these single mutations of the gold plan: each write dropped, each literal argument of
each write changed (to one other value drawn from its schema), each referenced row of each write
swapped (for one other row).
"""

from __future__ import annotations

import random
from typing import Any

from envfactory.ir.effect import changes_state
from envfactory.ir.env import EnvSpec
from envfactory.ir.task import Call, Task
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.runtime.facts import states_fact
from envfactory.synth.arguments import tool_references
from envfactory.synth.naming import credential
from envfactory.tasks.agents import Agent, CarelessReader, Replay, early_stop, gold, noop, read_only
from envfactory.tasks.graph import WRITES
from envfactory.users.scripted import ScriptedUser
from envfactory.values import ValueMaker


def run_agent(episode: Episode, task: Task, agent: Agent) -> bool:
    episode.reset(task=task)
    agent.run(episode, task)
    return episode.verify().success


class SelfTest:
    """Reusable across tasks of one environment (one episode, one ValueMaker)."""

    def __init__(self, env: Environment, seed: int = 0, analysis: EnvSpec | None = None) -> None:
        """Episodes run on ``env``; which tools write and what their arguments refer to come from
        ``analysis`` (default: ``env``'s own spec; a real implementation's synthesized model)."""
        self.env, self.spec = env, analysis or env.spec
        self.episode = env.episode(max_steps=10_000, user=ScriptedUser())
        self.writes = {b.tool for b in self.spec.behaviours if b.effect.kind in WRITES or changes_state(b.effect)}
        self.references = tool_references(self.spec)
        self.rng = random.Random(seed)
        self.maker = ValueMaker(seed, self.spec.config.clock_start)

    def check(self, task: Task) -> str | None:
        """None when the task is proven; otherwise the name of the agent that broke it."""
        if not run_agent(self.episode, task, gold(task)):
            return "gold plan fails"
        failed = [entry[0] for entry in self.episode.log if entry[2] is not None and not entry[2].ok]
        if failed:
            return f"gold plan fails: {failed[0]} returns an error"
        writes = any(c.tool in self.writes for c in task.gold)
        # without a write the gold calls are all reads: the read-only and early-stopping agents
        # (which report the gold facts) are the gold agent; an answer must instead be decisive
        trivial: list[Agent] = [noop(task), read_only(task, self.writes), early_stop(task)] if writes else [noop(task)]
        if task.goal.answer:
            trivial.append(CarelessReader())
        for agent in trivial:
            if run_agent(self.episode, task, agent):
                return f"{agent.name} agent passes"
        told = " ".join([task.instruction, *task.user.facts.values()])
        if not writes and any(states_fact(told, fact) for fact in task.goal.answer):
            return "the request already states the answer"
        for name, calls in self.mutations(task):
            if run_agent(self.episode, task, Replay(name, calls)):
                return f"mutation passes: {name}"
        return None

    def mutations(self, task: Task) -> list[tuple[str, list[Call]]]:
        out: list[tuple[str, list[Call]]] = []
        calls = list(task.gold)
        for i, call in enumerate(calls):
            if call.tool not in self.writes:
                continue
            out.append((f"drop write {call.tool}", calls[:i] + calls[i + 1 :]))
            refs = self._references(call.tool)
            for arg in call.args:
                if credential(arg):
                    continue  # who calls is not what the task asks for
                changed = self._swap_reference(call, arg, refs[arg]) if arg in refs else self._change_literal(call, arg)
                if changed is not None:
                    what = "swap the row in" if arg in refs else "change"
                    out.append((f"{what} {arg} of {call.tool}", [*calls[:i], changed, *calls[i + 1 :]]))
        return out

    def _references(self, tool: str) -> dict[str, str]:
        return self.references[tool]

    def _change_literal(self, call: Call, arg: str) -> Call | None:
        prop = self.spec.tools[call.tool].properties.get(arg, {})
        for _ in range(6):
            value: Any = self.maker.value(prop, arg)
            if value != call.args[arg]:
                return Call(tool=call.tool, args={**call.args, arg: value})
        return None

    def _swap_reference(self, call: Call, arg: str, entity: str) -> Call | None:
        key = self.spec.state_schema[entity].key
        others = [r[key] for r in self.env.base.tables[entity].values() if r[key] != call.args[arg]]
        if not others:
            return None
        return Call(tool=call.tool, args={**call.args, arg: self.rng.choice(others)})

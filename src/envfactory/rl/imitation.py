"""A warm start before RL: clone the decisions of a teacher that follows each task's gold plan.

Tool-using LLM agents are trained SFT-then-RL; this is the same recipe for the compact policy.
The teacher acts through the same candidate interface as the learner — it asks for held-back
facts, pages through a list while the output says there is more, then takes the candidate equal
to the next gold call and finally replies — so every cloned decision is one the policy could have
made itself. Episodes the teacher cannot finish through the candidates (the gold call is not
among them) are dropped. RL then starts from a policy that already reads before it writes.

With a :class:`~envfactory.wrappers.Randomization`, a share of the tasks are demonstrated a second
time in a perturbed episode: the teacher sees renamed tools (it maps them back), pages of lists,
and faults (it retries a gold call that failed), so the cloned policy learns those situations too.
"""

from __future__ import annotations

import random
from typing import Any

import torch

from envfactory.core import EpisodeLike
from envfactory.ir.task import Task
from envfactory.rl.actions import Candidate
from envfactory.rl.drrn import DRRN, Decision, FeaturePolicy
from envfactory.rl.rollout import rollout
from envfactory.runtime.environment import Environment
from envfactory.seeding import derive_seed
from envfactory.users.scripted import ScriptedUser
from envfactory.wrappers import Randomization, randomize


class Imitator(FeaturePolicy):
    """Makes the teacher's choices and records their DRRN features."""

    name = "teacher"

    def __init__(self, *, episode: Any = None) -> None:
        self.episode = episode  # to map renamed tools back to the gold plan's names

    def begin(self, task: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> None:
        super().begin(task, messages, tools)
        self.task: Task = task
        self.next_gold = 0
        self.stuck = False
        nodes = task.blueprint.nodes if task.blueprint else ()
        self.writes = {n.tool for n in nodes if n.kind == "call" and n.write}

    def choose(self, options: list[Candidate]) -> int:
        index = self._teacher(options)
        if index is None:
            self.stuck = True
            index = next(i for i, c in enumerate(options) if c.kind == "reply" and c.text == "All done.")
        state, actions = self.featurize(options)
        if self.record is not None:
            self.record.append((state, actions, index, 0.0))
        return index

    def _teacher(self, options: list[Candidate]) -> int | None:
        for i, c in enumerate(options):
            if c.kind == "reply" and c.text.endswith("?"):
                return i
        if self.last in ("error", "more") and self.memory.calls:
            tool, args = self.memory.calls[-1]
            # the teacher's calls are the plan's, so an error is a fault: the same call again;
            # "more": the next page of the list just read
            want = args if self.last == "error" else {**args, "page": args.get("page", 1) + 1}
            for i, c in enumerate(options):
                if c.kind == "call" and c.tool == tool and c.args == want:
                    return i
        if self.next_gold >= len(self.task.gold):
            return next(i for i, c in enumerate(options) if c.kind == "reply" and c.text == "All done.")
        gold = self.task.gold[self.next_gold]
        real: dict[str, str] = getattr(self.episode, "real", None) or {}
        best, best_overlap = None, -1
        for i, c in enumerate(options):
            if c.kind != "call" or real.get(c.tool, c.tool) != gold.tool:
                continue
            if any(a not in gold.args or gold.args[a] != v for a, v in c.args.items()):
                continue
            if gold.tool in self.writes and set(gold.args) - set(c.args):
                continue  # a write must be exact; a read may leave out paging options the candidates lack
            if len(c.args) > best_overlap:
                best, best_overlap = i, len(c.args)
        if best is not None:
            self.next_gold += 1
        return best


def demonstrations(
    envs: dict[str, Environment],
    tasks: dict[str, list[Task]],
    seed: int = 0,
    randomization: Randomization | None = None,
    fraction: float = 0.5,
) -> list[Decision]:
    """The teacher's decisions on every task it can finish, as DRRN training examples; with
    ``randomization``, a ``fraction`` of the tasks again in a perturbed episode (drawn from ``seed``)."""
    decisions: list[Decision] = []
    rng = random.Random(derive_seed("demonstrations", seed))
    for name, ts in tasks.items():
        base = envs[name].episode(user=ScriptedUser())
        for task in ts:
            episode_seed = derive_seed(seed, "demo", task.id) % 2**31
            episodes: list[EpisodeLike] = [base]
            if randomization is not None and rng.random() < fraction:
                episodes.append(randomize(base, randomization, episode_seed))
            for episode in episodes:
                teacher = Imitator(episode=episode)
                result = rollout(episode, task, teacher, seed=episode_seed)
                if result.success and not teacher.stuck:
                    decisions += teacher.record or []
    return decisions


def clone(model: DRRN, decisions: list[Decision], epochs: int, *, lr: float = 0.02, seed: int = 0) -> list[float]:
    """Cross-entropy on the teacher's choices; returns the mean loss of each epoch."""
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    rng = random.Random(seed)
    order = list(range(len(decisions)))
    losses = []
    for _ in range(epochs):
        rng.shuffle(order)
        total = 0.0
        for start in range(0, len(order), 32):
            optimizer.zero_grad()
            batch = [decisions[i] for i in order[start : start + 32]]
            loss = torch.stack([-torch.log_softmax(model(s, a), 0)[i] for s, a, i, _ in batch]).mean()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(batch)
        losses.append(total / max(len(order), 1))
    return losses

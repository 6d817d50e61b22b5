"""generate_task / generate_tasks: the task factory of one environment.

Every task is a pure function of ``(environment, seed, attempt)``; a task file line carries its
``origin`` so that it can be regenerated from the line alone.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from envfactory.errors import SynthesisError
from envfactory.ir.task import Goal, Origin, Task, UserProfile
from envfactory.runtime.environment import Environment
from envfactory.seeding import derive_seed
from envfactory.tasks import arithmetic as _arithmetic  # noqa: F401  (registers computation questions)
from envfactory.tasks.direct import DirectTasks, direct_tools, lookup_tools
from envfactory.tasks.graph import tool_graph
from envfactory.tasks.instantiate import Binder, Rejected
from envfactory.tasks.real import is_real, model_of, proven_on_real
from envfactory.tasks.realfirst import WALKED, RealWalker
from envfactory.tasks.render import Renderer
from envfactory.tasks.selftest import SelfTest
from envfactory.tasks.service import ServiceTasks, service_plans
from envfactory.tasks.stream import Resume
from envfactory.tasks.walks import Style, Walker
from envfactory.values import ValueMaker

DIRECT_SHARE = 0.25
SERVICE_SHARE = 0.5  # where someone can be found by what they know: half the tasks are service requests


class TaskFactory:
    """Holds what is shared by all tasks of an environment: its graph and a self-test episode. On a
    real implementation (a bound class, a live server) tasks are planned on its synthesized model
    and proven on the implementation (:mod:`envfactory.tasks.real`)."""

    def __init__(self, env: Environment, style: Style = Style(), first: bool = False) -> None:
        self.real = env if is_real(env) else None
        env = model_of(env) if self.real is not None else env
        self.env, self.spec, self.style = env, env.spec, style
        self.graph = tool_graph(env.spec)
        walker = Walker(self.spec, self.graph, random.Random(0), style)
        self.walks = bool(walker.writes or walker.answerable())
        self.direct = DirectTasks(env) if direct_tools(env.spec) else None
        self.service = ServiceTasks(env) if service_plans(env.spec) else None
        if not self.walks and self.direct is None and lookup_tools(env.spec):
            self.direct = DirectTasks(env, lookups=True)  # a read-only API without lists: look-up questions
        if not self.walks and self.direct is None:
            raise SynthesisError(
                f"env {self.spec.name!r} has no tool that changes the state of a seeded entity and no tool that "
                "lists one: there is nothing to ask of an agent"
            )
        self.selftest = SelfTest(self.real or env, analysis=env.spec)
        self.maker = ValueMaker(0, env.spec.config.clock_start, brief=True)
        self.first: RealWalker | None = None
        # real-first: walks on the implementation, the model suggests; ``first=True`` walks a synthesized
        # environment the same way, on its own answers (tasks of the kinds a real one gets)
        if self.real is not None or first:
            self.first = RealWalker(self.real or env, env.spec)
            self.selftest.writes |= set(self.first.writes)  # what may write: the state says, not the model

    def task(self, seed: int, attempt: int) -> Task:
        """Build one task (not yet self-tested); raises Rejected when the attempt is invalid. Tools the
        walks cannot follow (batches, list fields, file trees) get direct tasks, a quarter of the time
        when walks work too."""
        if self.first is not None:
            try:
                return self.first.task(seed, attempt)
            except Rejected:
                pass  # then the model's plan, proven on the implementation
        return self.planned(seed, attempt)

    def planned(self, seed: int, attempt: int) -> Task:
        """The attempt's task planned on the model, never walked (proven on the implementation where
        there is one): what :meth:`task` makes when no walk is taken."""
        task = self._planned(seed, attempt)
        return proven_on_real(task, self.selftest.episode) if self.real is not None else task

    def _planned(self, seed: int, attempt: int) -> Task:
        rng = random.Random(derive_seed(seed, "task", attempt))
        if self.service is not None and rng.random() < SERVICE_SHARE:
            return self.service.task(seed, attempt)
        if self.direct is not None and (not self.walks or rng.random() < DIRECT_SHARE):
            return self.direct.task(seed, attempt)
        self.maker.reseed(derive_seed(seed, "values", attempt))
        sketch = Walker(self.spec, self.graph, rng, self.style).sketch()
        bound = Binder(self.env, rng, self.maker).bind(sketch)
        episode = bound.episode
        final = episode.state_hash()
        if final == self.env.base.hash and not bound.blueprint.answers:
            raise Rejected("the gold plan leaves the state unchanged")
        rows = {
            entity: {str(key): row for key, row in changed.items()}
            for entity, changed in episode.store.changes().items()
        }
        bp = bound.blueprint
        instruction = Renderer(self.spec, bp, rng, self.selftest.references).instruction()
        hidden = len(bound.hidden)
        return Task(
            env=self.spec.name,
            id=f"{self.spec.name}-{seed}-{attempt}",
            seed=attempt,
            instruction=instruction,
            user=UserProfile(facts=bound.hidden),
            blueprint=bp,
            gold=tuple(bound.gold),
            goal=Goal(state_hash=final, rows=rows, answer=tuple(bound.facts)),
            max_steps=2 * (len(bound.gold) + hidden) + 6,
            difficulty=bp.difficulty,
            level=bp.level,
            origin=Origin(seed=seed, attempt=attempt),
        )


@dataclass
class Report:
    env: str
    attempts: int = 0
    kept: int = 0
    rejected: Counter[str] = field(default_factory=Counter)  # instantiation failures by reason
    dropped: Counter[str] = field(default_factory=Counter)  # self-test failures by agent
    duplicates: int = 0
    levels: Counter[int] = field(default_factory=Counter)
    resumed: int = 0  # tasks an interrupted run had kept (its attempts are not counted here)
    baselines: dict[str, float] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "env": self.env, "attempts": self.attempts, "kept": self.kept,
            "rejected": dict(self.rejected), "dropped_by_selftest": dict(self.dropped),
            "duplicates": self.duplicates, "levels": {str(k): v for k, v in sorted(self.levels.items())},
            "resumed": self.resumed, "baselines": self.baselines,
        }  # fmt: skip


def dedup_key(task: Task) -> str:
    shape = task.blueprint.shape() if task.blueprint is not None else "direct"
    calls = [(c.tool, sorted(c.args.items(), key=lambda kv: kv[0])) for c in task.gold]
    return json.dumps([shape, calls, list(task.goal.answer)], default=str, sort_keys=True)


def generate_tasks(
    env: Environment,
    n: int,
    *,
    seed: int = 0,
    max_attempts: int | None = None,
    progress: Callable[[int], None] | None = None,
    factory: TaskFactory | None = None,
    resume: Resume = Resume(),
    on_task: Callable[[Task], None] | None = None,
    on_attempt: Callable[[int, int], None] | None = None,
    first: bool = False,
) -> tuple[list[Task], Report]:
    """Up to ``n`` distinct, self-tested tasks; attempts stop at ``max_attempts`` (default 20 n).

    ``on_task`` sees each task as it is kept (the CLI appends it to the file); ``on_attempt`` gets
    ``(kept, tried)`` after every attempt. A ``resume`` continues an interrupted run: its tasks count
    as kept (and as seen, for duplicates) and attempts go on after the last one kept — every task is a
    pure function of ``(seed, attempt)``, so the result is what an uninterrupted run makes.
    ``first``: walk a synthesized environment's own answers first (:mod:`envfactory.tasks.realfirst`),
    as a real implementation is always walked."""
    factory = factory or TaskFactory(env, first=first)
    report = Report(env=env.spec.name, resumed=len(resume.tasks))
    seen: set[str] = {dedup_key(t) for t in resume.tasks}
    tasks: list[Task] = list(resume.tasks)
    for kept in tasks:
        report.levels[kept.level] += 1
    limit = max_attempts if max_attempts is not None else 20 * n
    attempt = resume.next_attempt
    while len(tasks) < n and attempt < limit:
        report.attempts += 1
        task = _one(factory, seed, attempt, seen, report)
        attempt += 1
        if task is not None:
            tasks.append(task)
            if on_task:
                on_task(task)
            if progress:
                progress(len(tasks))
        if on_attempt:
            on_attempt(len(tasks), report.attempts)
    report.kept = len(tasks)
    return tasks, report


def _one(factory: TaskFactory, seed: int, attempt: int, seen: set[str], report: Report) -> Task | None:
    """One attempt: the task if it is new and its self-test holds (the report counts why not). A walk
    that repeats one already kept gives way to the attempt's planned task: a tool set's walks run
    out long before ``n`` (a dozen records offer a dozen walks), its plans do not."""
    try:
        task = factory.task(seed, attempt)
        key = dedup_key(task)
        if key in seen and task.origin is not None and task.origin.generator == WALKED:
            task = factory.planned(seed, attempt)
            key = dedup_key(task)
    except Rejected as why:
        report.rejected[_reason(str(why))] += 1
        return None
    if key in seen:
        report.duplicates += 1
        return None
    failure = factory.selftest.check(task)
    if failure is not None:
        report.dropped[failure.split(":")[0]] += 1
        return None
    seen.add(key)
    report.levels[task.level] += 1
    return task


def _reason(text: str) -> str:
    return text.split(":")[0]


def regenerate(env: Environment, task: Task) -> Task:
    """Rebuild a task from its origin (the line alone is enough, given the environment)."""
    if task.origin is None:
        raise ValueError(f"task {task.id} has no origin to regenerate from")
    factory = TaskFactory(env, first=task.origin.generator == WALKED)  # on a synthesized one, a walk was asked for
    seed, attempt = task.origin.seed, task.origin.attempt
    # a task not walked was planned: its attempt's walk was rejected, or repeated one already kept
    return factory.task(seed, attempt) if task.origin.generator == WALKED else factory.planned(seed, attempt)


def baselines(env: Environment, tasks: list[Task], seed: int = 0) -> dict[str, float]:
    """Success rates of agents that should fail: no-op, read-only (tasks with a write), careless
    reader (answer tasks), and random (gold budget + 5)."""
    from envfactory.tasks.agents import CarelessReader, RandomAgent, noop, read_only, success_rate
    from envfactory.tasks.graph import WRITES
    from envfactory.users.scripted import ScriptedUser

    episode = env.episode(max_steps=10_000, user=ScriptedUser())
    analysed = model_of(env).spec if is_real(env) else env.spec  # what writes: the real thing's model says
    writes = {b.tool for b in analysed.behaviours if b.effect.kind in WRITES}
    writing = [t for t in tasks if any(c.tool in writes for c in t.gold)]
    answering = [t for t in tasks if t.goal.answer]
    out = {"no-op": success_rate(episode, tasks, noop)}
    if writing:
        out["read-only"] = success_rate(episode, writing, lambda t: read_only(t, writes))
    if answering:
        out["careless reader"] = success_rate(episode, answering, lambda t: CarelessReader())
    out["random"] = success_rate(episode, tasks, lambda t: RandomAgent(derive_seed(seed, "random", t.id)))
    return out

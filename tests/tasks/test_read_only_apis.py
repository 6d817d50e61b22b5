"""Read-only APIs (search, catalogues, reference data) get answer tasks that trivial agents fail."""

from __future__ import annotations

from tests.conftest import FIXTURES

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.agents import CarelessReader, gold, noop, success_rate
from envfactory.tasks.generate import baselines, generate_tasks
from envfactory.users.scripted import ScriptedUser


def test_a_read_only_api_yields_verified_answer_tasks() -> None:
    env = Environment(synthesize(FIXTURES / "catalogue.yaml"))
    tasks, report = generate_tasks(env, 30, seed=0)
    assert len(tasks) == 30 and report.kept == 30
    kinds = {env.spec.behaviour(c.tool).effect.kind for t in tasks for c in t.gold}
    assert kinds <= {"read", "list"} and all(t.goal.answer for t in tasks)
    assert all(t.goal.state_hash == env.base.hash for t in tasks)  # nothing to change
    shapes = {t.blueprint.shape() for t in tasks if t.blueprint}
    assert len(shapes) >= 3  # counts, sums and look-ups
    episode = env.episode(max_steps=10_000, user=ScriptedUser())
    assert success_rate(episode, tasks, gold) == 1.0
    assert success_rate(episode, tasks, noop) == 0.0
    assert success_rate(episode, tasks, lambda t: CarelessReader()) == 0.0
    assert all(v == 0.0 for v in baselines(env, tasks).values())
    assert not any(fact in t.instruction for t in tasks for fact in t.goal.answer)

"""Tasks on collection-shaped and file-tree environments, where walks have no keys to follow."""

from __future__ import annotations

import re

import pytest
from tests.conftest import FIXTURES

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.tasks.agents import noop, read_only
from envfactory.tasks.generate import baselines, generate_tasks
from envfactory.tasks.selftest import SelfTest, run_agent


@pytest.mark.parametrize("fixture", ["board_tools.json", "files_tools.json"])
def test_direct_tasks_are_generated_proven_and_said_plainly(fixture: str) -> None:
    env = Environment(synthesize(FIXTURES / fixture))
    tasks, report = generate_tasks(env, 20, seed=0)
    assert len(tasks) == 20 and report.kept == 20
    selftest = SelfTest(env)
    for task in tasks:
        assert task.origin is not None and task.origin.generator == "direct/1"
        assert selftest.check(task) is None  # gold passes; no-op, read-only, early stop and mutations fail
        assert not run_agent(selftest.episode, task, noop(task))
        assert not run_agent(selftest.episode, task, read_only(task, selftest.writes))
        assert not re.search(r"\b[a-z]+_\d{4}\b", task.instruction), task.instruction  # no internal ids
    assert baselines(env, tasks)["random"] <= 0.1
    again = generate_tasks(env, 20, seed=0)[0]
    assert [t.model_dump() for t in again] == [t.model_dump() for t in tasks]  # same seed, same tasks

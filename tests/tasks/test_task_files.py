"""Task files a user may hand-edit: clear errors, never tracebacks, never a free reward."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from envfactory.errors import TaskSetError
from envfactory.ir.task import Call, Goal, Task
from envfactory.runtime.environment import Environment
from envfactory.tasks.taskset import TaskSet, check_task, write_tasks


def _task(**changes: object) -> Task:
    return Task.model_validate({"env": "shop", "id": "shop-0-0", "instruction": "Do it.", **changes})


def test_an_invalid_utf8_line_is_a_task_set_error(tmp_path: Path) -> None:
    path = write_tasks(tmp_path / "t.jsonl", [_task()])
    path.write_bytes(path.read_bytes() + b'{"env": "\xff\xfe"}\n')
    tasks = TaskSet(path)
    assert tasks[0].id == "shop-0-0"
    with pytest.raises(TaskSetError, match="line 2 is not UTF-8"):
        tasks[1]


@pytest.mark.parametrize("field", [{"max_steps": -3}, {"max_steps": 0}, {"level": 0}])
def test_impossible_budgets_and_levels_are_refused(field: dict) -> None:
    with pytest.raises(ValidationError):
        _task(**field)


def test_a_task_naming_what_the_env_lacks_is_refused_before_it_runs(shop: Environment) -> None:
    ghost = _task(gold=[Call(tool="teleport_order", args={})], goal=Goal(rows={"ghost": {"1": None}}))
    with pytest.raises(TaskSetError, match=r"teleport_order.*ghost|ghost.*teleport_order") as err:
        check_task(ghost, shop.spec, "tasks.jsonl: line 1")
    assert "tasks.jsonl: line 1" in str(err.value)
    with pytest.raises(TaskSetError, match="not 'shop'"):
        check_task(_task(env="library"), shop.spec)


def test_a_gold_plan_with_a_failing_call_does_not_pass_the_self_test(shop: Environment) -> None:
    from envfactory.tasks.selftest import SelfTest

    task = _task(gold=[Call(tool="get_order", args={"order_id": "order_9999"})])
    assert SelfTest(shop).check(task) == "gold plan fails: get_order returns an error"

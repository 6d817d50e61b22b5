"""The batched step (issue #27): one message steps many sessions' episodes and answers in order,
each answer the same as a single step's; in process and over the WebSocket alike. And a server
configured for many sessions admits them all at once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integrations.serving import running
from websockets.asyncio.client import connect as async_connect

from envfactory.integrations.openenv import EnvfactoryClient, EpisodeEnv, ToolCallAction, episode_batch, make_app
from envfactory.ir.task import Task
from envfactory.runtime.environment import Environment
from envfactory.serve.batch import BatchError
from envfactory.serve.guard import max_connections, server_options
from envfactory.tasks.agents import report
from envfactory.tasks.generate import generate_tasks

JSON = dict[str, Any]


def _call(tool: str, args: dict) -> dict:
    return {"id": "c", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}


def _plan(task: Task) -> list[ToolCallAction]:
    return [ToolCallAction(tool_calls=[_call(c.tool, c.args)]) for c in task.gold] + [
        ToolCallAction(content=report(task))
    ]


def _seen(observation: Any) -> JSON:
    """What a client sees of an observation (its messages, reward, done, verdict)."""
    return {"messages": observation.messages, "reward": observation.reward, "done": observation.done,
            "verdict": observation.verdict}  # fmt: skip


@pytest.fixture(scope="module")
def tasks(bundled_envs: dict[str, Environment]) -> list[Task]:
    found = [t for t in generate_tasks(bundled_envs["shop"], 12, seed=0)[0] if not t.user.facts]
    assert len(found) >= 4 and len({len(t.gold) for t in found}) > 1  # plans of different lengths
    return found[:6]


def _singly(env: Environment, tasks: list[Task]) -> list[list[JSON]]:
    """Each task played alone, one step a call: what each step answered."""
    answers = []
    for task in tasks:
        session = EpisodeEnv(env, {t.id: t for t in tasks})
        session.reset(task_id=task.id)
        answers.append([_seen(session.step(action)) for action in _plan(task)])
    return answers


def test_in_process_batch_answers_each_slot_as_its_single_steps_in_the_order_asked(
    bundled_envs: dict[str, Environment], tasks: list[Task]
) -> None:
    env = bundled_envs["shop"]
    expected = _singly(env, tasks)
    batch = episode_batch(env, tasks)
    opened = batch.reset_now([{"task_id": t.id} for t in tasks])
    assert all(not isinstance(o, BatchError) and o.messages for o in opened) and len(batch) == len(tasks)
    plans, got = [_plan(t) for t in tasks], [[] for _ in tasks]  # type: list[list[ToolCallAction]], list[list[JSON]]
    turn, live = 0, list(range(len(tasks)))
    while live:
        order = live[::-1]  # asked out of slot order: answered in the order asked
        outcomes = batch.step_now([(i, plans[i][turn]) for i in order])
        assert len(outcomes) == len(order)
        for i, outcome in zip(order, outcomes, strict=True):
            assert not isinstance(outcome, BatchError)
            got[i].append(_seen(outcome))
        turn += 1
        live = [i for i in live if turn < len(plans[i])]
    assert got == expected
    assert all(steps[-1]["done"] and steps[-1]["reward"] == 1.0 for steps in got)


def test_a_bad_item_is_its_own_error_and_the_rest_of_the_batch_runs(
    bundled_envs: dict[str, Environment], tasks: list[Task]
) -> None:
    batch = episode_batch(bundled_envs["shop"], tasks)
    opened = batch.reset_now([{"task_id": tasks[0].id}, {"task_id": "no-such-task"}, {"seed": "seven"}])
    assert not isinstance(opened[0], BatchError)
    assert (
        isinstance(opened[1], BatchError)
        and opened[1].code == "EXECUTION_ERROR"
        and "no-such-task" in opened[1].message
    )
    assert isinstance(opened[2], BatchError) and opened[2].code == "VALIDATION_ERROR" and "'seed'" in opened[2].message
    first = _plan(tasks[0])[0]
    outcomes = batch.step_now([(7, first), {"slot": 0, "action": {"tool_calls": "all"}}, (0, first), ("x", first)])
    codes = [o.code if isinstance(o, BatchError) else "ok" for o in outcomes]
    assert codes == ["VALIDATION_ERROR", "VALIDATION_ERROR", "ok", "VALIDATION_ERROR"]
    assert "reset it first" in outcomes[0].message and "tool_calls" in outcomes[1].message  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def served(
    bundled_envs: dict[str, Environment], tasks: list[Task], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    shop = bundled_envs["shop"]
    folder = tmp_path_factory.mktemp("batch")
    env_dir = Path(shop.spec.save(folder / "shop"))
    app = make_app(env_dir, {t.id: t for t in tasks}, max_sessions=8, trajectories=folder / "t.jsonl")
    with running(app) as url:
        yield url


def test_the_served_batch_answers_as_single_steps_and_leaves_single_sessions_unchanged(
    bundled_envs: dict[str, Environment], tasks: list[Task], served: str
) -> None:
    expected = _singly(bundled_envs["shop"], tasks[:4])

    async def play() -> tuple[list[list[JSON]], list[JSON]]:
        plans, got = [_plan(t) for t in tasks[:4]], [[] for _ in range(4)]  # type: list[list[ToolCallAction]], list[list[JSON]]
        async with EnvfactoryClient(base_url=served) as batch, EnvfactoryClient(base_url=served) as single:
            opened = await batch.reset_batch([{"task_id": t.id} for t in tasks[:4]])
            assert all(not isinstance(o, BatchError) and o.observation.tools for o in opened)
            turn, live = 0, [0, 1, 2, 3]
            while live:
                order = live[::-1]
                for i, result in zip(order, await batch.step_batch([(i, plans[i][turn]) for i in order]), strict=True):
                    assert not isinstance(result, BatchError)
                    got[i].append(_seen(result.observation))
                turn += 1
                live = [i for i in live if turn < len(plans[i])]
            await single.reset(task_id=tasks[0].id)  # a plain session beside it: the protocol as before
            alone = [_seen((await single.step(a)).observation) for a in plans[0]]
        return got, alone

    got, alone = asyncio.run(play())
    assert got == expected and alone == expected[0]


def test_batch_slots_count_against_the_session_limit_and_are_freed_with_the_connection(
    tasks: list[Task], served: str
) -> None:
    async def fill() -> tuple[list[str], list[str]]:
        async with EnvfactoryClient(base_url=served) as batch:  # slot 0 is this connection's own session
            first = await batch.reset_batch([{"task_id": tasks[0].id, "slot": s} for s in range(10)])
        async with EnvfactoryClient(base_url=served) as again:
            second = await again.reset_batch([{"task_id": tasks[0].id, "slot": s} for s in range(8)])
        return ([o.code if isinstance(o, BatchError) else "ok" for o in first],
                [o.code if isinstance(o, BatchError) else "ok" for o in second])  # fmt: skip

    first, second = asyncio.run(fill())
    assert first == ["ok"] * 8 + ["CAPACITY_REACHED"] * 2  # max_sessions=8
    assert second == ["ok"] * 8  # all eight places were freed when the first connection closed


def test_two_hundred_sessions_open_at_once_when_the_server_is_configured_for_them(
    bundled_envs: dict[str, Environment], tasks: list[Task], tmp_path: Path
) -> None:
    many = 200
    env_dir = Path(bundled_envs["shop"].spec.save(tmp_path / "shop"))
    app = make_app(env_dir, {t.id: t for t in tasks}, max_sessions=many, trajectories=tmp_path / "t.jsonl")
    options = server_options(max_sessions=many)
    assert options["limit_concurrency"] == max_connections(many) > many

    async def crowd(url: str) -> list[str]:
        sockets = [await async_connect(url.replace("http", "ws") + "/ws") for _ in range(many)]
        try:
            for ws in sockets:
                await ws.send(json.dumps({"type": "reset", "data": {"task_id": tasks[0].id}}))
            return [json.loads(await ws.recv())["type"] for ws in sockets]
        finally:
            await asyncio.gather(*(ws.close() for ws in sockets))

    with running(app, **options) as url:
        answered = asyncio.run(crowd(url))
    assert answered == ["observation"] * many


def test_the_connection_limit_grows_with_the_sessions() -> None:
    assert max_connections(1) == 512 and max_connections(1024) == 1024 + 64
    assert server_options(max_sessions=1024)["limit_concurrency"] == 1088

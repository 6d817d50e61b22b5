"""envfactory's own ``/ws`` handler speaks OpenEnv's WebSocket session protocol: the same replies
as OpenEnv's route on the same messages, OpenEnv's error codes for bad ones (and the session goes
on), and a session limit that refuses the one too many and frees a closed session's place."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integrations.serving import running
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from envfactory.integrations.openenv import make_app
from envfactory.runtime.environment import Environment
from envfactory.tasks.agents import report
from envfactory.tasks.generate import generate_tasks


@pytest.fixture(scope="module")
def apps(bundled_envs: dict[str, Environment], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    """Ours (the guarded app) and OpenEnv's own app underneath it, served side by side."""
    shop = bundled_envs["shop"]
    folder = tmp_path_factory.mktemp("ws")
    env_dir = Path(shop.spec.save(folder / "shop"))
    tasks = [t for t in generate_tasks(shop, 12, seed=0)[0] if not t.user.facts]
    guarded = make_app(env_dir, {t.id: t for t in tasks}, max_sessions=2, trajectories=folder / "t.jsonl")
    openenv_own = guarded.app.app  # Guard -> SessionSocket -> OpenEnv's FastAPI app
    with running(guarded) as ours, running(openenv_own) as theirs:
        yield ours.replace("http", "ws") + "/ws", theirs.replace("http", "ws") + "/ws", tasks


def _ask(ws: ClientConnection, message: Any) -> dict:
    ws.send(message if isinstance(message, str) else json.dumps(message))
    return json.loads(ws.recv(timeout=10))  # type: ignore[no-any-return]


def _call(tool: str, args: dict) -> dict:
    return {"id": "c", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}


def test_the_same_episode_gets_the_same_replies_as_from_openenvs_own_route(apps: tuple) -> None:
    ours, theirs, tasks = apps
    task = tasks[0]
    script = [{"type": "reset", "data": {"task_id": task.id, "seed": 3}}]
    script += [{"type": "step", "data": {"tool_calls": [_call(c.tool, c.args)]}} for c in task.gold]
    script += [{"type": "step", "data": {"content": report(task)}}, {"type": "state"}]
    with connect(ours) as a, connect(theirs) as b:
        replies = [(_ask(a, m), _ask(b, m)) for m in script]
    for mine, reference in replies:
        assert mine == reference
    assert replies[0][0]["data"]["observation"]["tools"] and replies[-2][0]["data"]["done"] is True
    assert replies[-2][0]["data"]["reward"] == 1.0 and replies[-1][0]["data"]["task_id"] == task.id


def test_bad_messages_get_openenvs_error_codes_and_the_session_goes_on(apps: tuple) -> None:
    ours, _, tasks = apps
    bad = [
        ("{not json", "INVALID_JSON", "Invalid JSON"),
        ("[1, 2]", "VALIDATION_ERROR", "JSON object"),
        ({"type": "warp"}, "UNKNOWN_TYPE", "warp"),
        ({"type": "step", "data": 5}, "VALIDATION_ERROR", "'data'"),
        ({"type": "step", "data": {"tool_calls": "all of them"}}, "VALIDATION_ERROR", "Invalid message"),
        ({"type": "reset", "data": {"seed": "seven"}}, "VALIDATION_ERROR", "'seed'"),
        ({"type": "reset", "data": {"seed": True}}, "VALIDATION_ERROR", "'seed'"),
        ({"type": "reset", "data": {"task_id": "no-such-task"}}, "EXECUTION_ERROR", "no task 'no-such-task'"),
    ]
    with connect(ours) as ws:
        for message, code, said in bad:
            reply = _ask(ws, message)
            assert reply["type"] == "error" and reply["data"]["code"] == code and said in reply["data"]["message"]
        assert _ask(ws, {"type": "step", "data": {"tool_calls": "x"}})["data"]["errors"][0]["loc"] == ["tool_calls"]
        opened = _ask(ws, {"type": "reset", "data": {"task_id": tasks[1].id, "ignored": 1}})
        assert opened["type"] == "observation" and opened["data"]["observation"]["messages"]


def test_the_session_limit_refuses_one_too_many_and_frees_closed_places(apps: tuple) -> None:
    ours, _, _ = apps
    with connect(ours) as first, connect(ours) as second:
        assert _ask(first, {"type": "state"})["type"] == "state" and _ask(second, {"type": "state"})["type"] == "state"
        with connect(ours) as third:
            refused = json.loads(third.recv(timeout=10))
            assert refused["data"]["code"] == "CAPACITY_REACHED" and refused["data"]["max_sessions"] == 2
            with pytest.raises(ConnectionClosed):
                third.recv(timeout=10)
        first.send(json.dumps({"type": "close"}))
        with pytest.raises(ConnectionClosed):  # the server closes a session its client said close to
            first.recv(timeout=10)
    assert _admitted(ours) == "state"  # both places are free again


def _admitted(url: str) -> str:
    """The first reply to a state request on a new session, once the server has seen the last
    sessions' sockets close (it learns of a close just after the client does)."""
    for _ in range(100):
        with connect(url) as ws:
            reply = _ask(ws, {"type": "state"})
        if reply["type"] != "error":
            return str(reply["type"])
        time.sleep(0.05)
    return "refused"

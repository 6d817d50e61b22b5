"""Messages answered inline (envfactory.serve.inline): the same replies, in the same order, as the
messages uvicorn queues for the app; the session's idle watch hears them; a message only the app
may answer (close) still goes to it. And the trajectory line a server writes."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

import orjson
import pytest
from tests.integrations.serving import running
from websockets.asyncio.client import connect as async_connect
from websockets.client import ClientProtocol
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State
from websockets.uri import parse_uri

from envfactory.integrations.openenv import ToolCallAction, make_app
from envfactory.ir.task import Task
from envfactory.ir.trajectory import Trajectory
from envfactory.runtime.environment import Environment
from envfactory.serve.guard import HEARD, server_options
from envfactory.serve.inline import ANSWER, InlineWebSocketProtocol
from envfactory.serve.recorder import trajectory_line
from envfactory.serve.sessions import SessionSocket
from envfactory.tasks.agents import report
from envfactory.tasks.generate import generate_tasks

HANG_S = 600.0  # a guard against a hang, not a speed limit: a loaded machine answers slowly


def _call(tool: str, args: dict) -> dict:
    return {"id": "c", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}


@pytest.fixture(scope="module")
def tasks(bundled_envs: dict[str, Environment]) -> list[Task]:
    return [t for t in generate_tasks(bundled_envs["shop"], 12, seed=0)[0] if not t.user.facts][:3]


def _script(tasks: list[Task]) -> list[str]:
    """Every kind of message a client sends, good and bad, as text."""
    out: list[Any] = []
    for task in tasks:
        out.append({"type": "reset", "data": {"task_id": task.id}})
        out += [{"type": "step", "data": {"tool_calls": [_call(c.tool, c.args)]}} for c in task.gold]
        out.append({"type": "step", "data": {"content": report(task)}})
    out += [{"type": "state"}, {"type": ["unhashable"]}, {"type": 7}, {"type": "step", "data": "x"},
            {"type": "reset", "data": {"seed": "seven"}}, {"type": "step", "data": {"tool_calls": "all"}},
            {"type": "reset_batch", "data": {"resets": [{"task_id": tasks[0].id}, {"task_id": "none"}]}},
            {"type": "step_batch", "data": {"steps": [{"slot": 0, "action": {"content": "done"}}, {"slot": 9}]}},
            {"type": "step_batch", "data": {"steps": "all"}}, [1, 2], {"deep": [[[[[[]]]]]]}]  # fmt: skip
    return [json.dumps(m) for m in out] + ["not json {"]


def _replies(url: str, texts: list[str], *, pipelined: bool) -> list[Any]:
    """The replies to ``texts`` on one session: each awaited in turn, or all sent before any is read."""

    async def talk() -> list[Any]:
        async with async_connect(url.replace("http", "ws") + "/ws") as ws:
            if pipelined:
                for text in texts:
                    await ws.send(text)
                got = [await ws.recv() for _ in texts]
            else:
                got = []
                for text in texts:
                    await ws.send(text)
                    got.append(await ws.recv())
            await ws.send(json.dumps({"type": "close"}))
            with pytest.raises(ConnectionClosed):  # close is the app's: it closes the connection
                await asyncio.wait_for(ws.recv(), HANG_S)
        return [json.loads(g) for g in got]

    return asyncio.run(talk())


@pytest.fixture(scope="module")
def env_dir(bundled_envs: dict[str, Environment], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(bundled_envs["shop"].spec.save(tmp_path_factory.mktemp("inline") / "shop"))


@pytest.fixture(scope="module")
def queued_replies(env_dir: Path, tasks: list[Task], tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    """The replies of a server that queues every message for the app (uvicorn's own protocol)."""
    app = make_app(env_dir, {t.id: t for t in tasks}, trajectories=tmp_path_factory.mktemp("q") / "t.jsonl")
    with running(app, ws="websockets-sansio") as url:
        return _replies(url, _script(tasks), pipelined=False)


@pytest.fixture(scope="module")
def inline_url(env_dir: Path, tasks: list[Task], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    app = make_app(env_dir, {t.id: t for t in tasks}, trajectories=tmp_path_factory.mktemp("i") / "t.jsonl")
    options = server_options()
    assert options["ws"].endswith(":InlineWebSocketProtocol")  # what `envfactory serve` runs
    with running(app, **options) as url:
        yield url


@pytest.mark.parametrize("pipelined", [False, True], ids=["in-turn", "pipelined"])
def test_inline_replies_are_the_queued_replies_in_order(
    queued_replies: list[Any], inline_url: str, tasks: list[Task], pipelined: bool
) -> None:
    before = InlineWebSocketProtocol.answered
    replies = _replies(inline_url, _script(tasks), pipelined=pipelined)
    assert replies == queued_replies
    assert InlineWebSocketProtocol.answered - before >= len(replies) // 2  # answered where they were read
    kinds = [r["type"] if r["type"] != "error" else r["data"]["code"] for r in replies]
    assert kinds.count("observation") == sum(len(t.gold) + 2 for t in tasks)
    assert {"state", "observations", "UNKNOWN_TYPE", "VALIDATION_ERROR", "INVALID_JSON"} <= set(kinds)
    finals = [r for r in replies if r["type"] == "observation" and r["data"]["done"]]
    assert [f["data"]["reward"] for f in finals] == [1.0] * len(tasks)


class _Waiting:
    """An ASGI ``receive`` that records what the scope offered while it was awaited."""

    def __init__(self, scope: dict, texts: list[str]) -> None:
        self.scope, self.texts, self.offered = scope, list(texts), []  # type: dict, list[str], list[Any]

    async def __call__(self) -> dict:
        self.offered.append(self.scope.get(ANSWER))
        if not self.offered[1:]:
            return {"type": "websocket.connect"}
        if self.texts:
            return {"type": "websocket.receive", "text": self.texts.pop(0)}
        return {"type": "websocket.disconnect", "code": 1000}


def test_the_session_offers_its_answerer_only_while_it_waits_and_it_tells_the_idle_watch(
    bundled_envs: dict[str, Environment], tasks: list[Task]
) -> None:
    from envfactory.integrations.openenv import InlineEpisodeEnv

    env = bundled_envs["shop"]
    heard: list[int] = []
    scope: dict[str, Any] = {"type": "websocket", "path": "/ws", HEARD: lambda: heard.append(1)}
    sent: list[dict] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append({**message, "answer offered": scope.get(ANSWER) is not None})

    async def nothing(*_: Any) -> None:
        raise AssertionError("only /ws reaches the sessions")

    sockets = SessionSocket(nothing, lambda: InlineEpisodeEnv(env, {t.id: t for t in tasks}), ToolCallAction,
                            max_sessions=4)  # fmt: skip
    receive = _Waiting(scope, [json.dumps({"type": "reset", "data": {"task_id": tasks[0].id}})])
    asyncio.run(sockets(scope, receive, send))
    answerer = receive.offered[1]
    assert answerer is not None and receive.offered[2] is answerer  # offered at every wait for a message
    assert [m["answer offered"] for m in sent] == [False, False]  # never while the app answers (accept, reply)
    assert ANSWER not in scope and heard == []
    reply = json.loads(answerer(json.dumps({"type": "state"})))
    assert reply["type"] == "state" and heard == [1]  # an inline answer counts as the session being heard
    assert answerer(json.dumps({"type": "close"})) is None  # the app's to answer
    assert json.loads(answerer("["))["data"]["code"] == "INVALID_JSON"


def test_sessions_that_run_slow_tools_are_never_answered_inline(
    bundled_envs: dict[str, Environment], tasks: list[Task]
) -> None:
    from envfactory.integrations.openenv import EpisodeEnv

    scope: dict[str, Any] = {"type": "websocket", "path": "/ws"}
    sockets = SessionSocket(lambda *_: None, lambda: EpisodeEnv(bundled_envs["shop"], {}), ToolCallAction,  # type: ignore[arg-type,return-value]
                            max_sessions=4, factory_in_thread=True)  # fmt: skip
    receive = _Waiting(scope, [json.dumps({"type": "state"})])

    async def send(message: MutableMapping[str, Any]) -> None:
        pass

    asyncio.run(sockets(scope, receive, send))
    assert receive.offered[1:] == [None, None]


def _trajectory(messages: tuple = ()) -> Trajectory:
    return Trajectory(env="shop", task_id="t1", level=2, policy="remote", seed=3, reward=1.0, success=True, steps=4,
                      tool_calls=3, tool_errors=0, randomization={"faults": 0.1}, reasons=("ok",),
                      messages=messages)  # fmt: skip


def test_a_trajectory_line_is_the_models_json_with_the_episodes_messages() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "où est ma commande ?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("get_order", {"id": "o1"})]},
    ]
    line = trajectory_line(_trajectory(), messages)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert line[:-1] == _trajectory(tuple(messages)).model_dump_json().encode()
    assert orjson.loads(line) == orjson.loads(trajectory_line(_trajectory(tuple(messages))))


def test_a_trajectory_line_keeps_what_orjson_refuses() -> None:
    odd: list[dict[str, Any]] = [{"role": "assistant", "content": "a\ud800b", "tool_calls": [{"id": 2**70}]}]
    line = trajectory_line(_trajectory(), odd)
    assert line.isascii() and line.count(b"\n") == 1
    assert json.loads(line)["messages"] == odd


def test_an_answerer_that_fails_closes_its_connection_with_1011_and_the_server_goes_on() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})

        def answer(text: str) -> str | None:
            if text == "boom":
                raise RuntimeError("a server fault")
            return text.upper()

        while True:
            scope[ANSWER] = answer
            message = await receive()
            scope.pop(ANSWER, None)
            if message["type"] != "websocket.receive":
                return

    async def talk(url: str) -> tuple[str, int | None, str]:
        async with async_connect(url) as ws:
            await ws.send("hello")
            first = await ws.recv()
            await ws.send("boom")
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(ws.recv(), HANG_S)
        async with async_connect(url) as again:
            await again.send("still here")
            return str(first), closed.value.rcvd.code if closed.value.rcvd else None, str(await again.recv())

    with running(app, ws=InlineWebSocketProtocol) as url:
        first, code, after = asyncio.run(talk(url.replace("http", "ws") + "/ws"))
    assert (first, code, after) == ("HELLO", 1011, "STILL HERE")


def _raw_session(url: str) -> tuple[socket.socket, ClientProtocol]:
    """A WebSocket handshake done by hand, so that frames can be written together in one chunk."""
    sock = socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=HANG_S)
    protocol = ClientProtocol(parse_uri(url.replace("http", "ws") + "/ws"))
    protocol.send_request(protocol.connect())
    sock.sendall(b"".join(protocol.data_to_send()))
    while protocol.state is not State.OPEN:
        protocol.receive_data(sock.recv(65536))
        protocol.events_received()
    return sock, protocol


def test_a_message_that_arrives_with_the_close_frame_ends_the_session_cleanly() -> None:
    """A client that sends a message and closes at once (its last step, then a trainer's shutdown)
    gets the closing handshake back; the message is not answered on a closing connection (that
    raised inside uvicorn's read callback and aborted the connection without a close frame)."""
    offered: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while True:
            scope[ANSWER] = lambda text: offered.append(text) or text.upper()
            message = await receive()
            scope.pop(ANSWER, None)
            if message["type"] != "websocket.receive":
                return
            try:
                await send({"type": "websocket.send", "text": message["text"].upper()})
            except OSError:  # the client is gone
                return

    with running(app, ws=InlineWebSocketProtocol) as url:
        sock, protocol = _raw_session(url)
        with sock:
            protocol.send_text(b"hello")
            sock.sendall(b"".join(protocol.data_to_send()))
            while not protocol.events_received():
                protocol.receive_data(sock.recv(65536))  # the first reply, answered inline
            protocol.send_text(b"last words")
            protocol.send_close(1000)
            sock.sendall(b"".join(protocol.data_to_send()))  # one chunk: the message, then the close frame
            while protocol.state is not State.CLOSED:
                data = sock.recv(65536)
                protocol.receive_data(data)
                if not data:
                    break
        with socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=HANG_S):
            pass  # the server goes on
    assert offered == ["hello"]  # the message on the closing connection went to the app, not the answerer
    assert protocol.close_rcvd is not None and protocol.close_rcvd.code == 1000  # the handshake, not an abort

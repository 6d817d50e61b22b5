"""The served environment behind its guard: a bearer token, a body-size limit and counters, over
HTTP and WebSocket, through a real server and the OpenEnv client."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn
from websockets.exceptions import InvalidStatus, WebSocketException
from websockets.sync.client import connect

from envfactory.integrations.openenv import EnvfactoryClient, make_app
from envfactory.runtime.environment import Environment

TOKEN = "s3cret-token"


@pytest.fixture(scope="module")
def guarded(bundled_envs: dict[str, Environment], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env_dir = bundled_envs["shop"].spec.save(tmp_path_factory.mktemp("guarded") / "shop")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = make_app(Path(env_dir), {}, max_sessions=4, token=TOKEN, max_body=2048, idle_s=1.0)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    yield f"127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def test_a_token_is_required_everywhere_but_health(guarded: str) -> None:
    url = f"http://{guarded}"
    assert httpx.get(f"{url}/health").status_code == 200
    assert httpx.post(f"{url}/reset", json={}).status_code == 401
    wrong = httpx.post(f"{url}/reset", json={}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "unauthorized"
    assert httpx.post(f"{url}/reset", json={}, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_oversized_bodies_are_refused_before_the_app_reads_them(guarded: str) -> None:
    url, auth = f"http://{guarded}", {"Authorization": f"Bearer {TOKEN}"}
    big = httpx.post(f"{url}/reset", content=b"{" + b" " * 4096 + b"}", headers=auth)
    assert big.status_code == 413 and big.json()["error"]["code"] == "too_large"

    def chunks() -> Iterator[bytes]:  # no declared length: counted as it arrives
        yield b"{"
        yield b" " * 4096
        yield b"}"

    assert httpx.post(f"{url}/reset", content=chunks(), headers=auth).status_code == 413


def test_websockets_need_the_token_and_the_metrics_count_everything(guarded: str) -> None:
    with pytest.raises((InvalidStatus, WebSocketException, OSError)), connect(f"ws://{guarded}/ws") as ws:
        ws.send('{"type": "reset", "data": {}}')  # closed at once: 1008
        ws.recv(timeout=5)
    with EnvfactoryClient(base_url=f"http://{guarded}", token=TOKEN).sync() as env:
        assert env.reset(seed=1).observation.tools
    metrics = httpx.get(f"http://{guarded}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).json()
    assert metrics["refused"]["token"] >= 3 and metrics["refused"]["size"] >= 2
    assert metrics["websockets_opened"] >= 1 and metrics["websockets_open"] == 0
    assert metrics["by_status"]["401"] >= 2 and metrics["by_status"]["413"] >= 2
    assert httpx.get(f"http://{guarded}/metrics").status_code == 401  # the counters are not public either


def test_a_silent_session_is_ended_and_its_episode_freed(guarded: str) -> None:
    with connect(f"ws://{guarded}/ws?token={TOKEN}") as ws:
        ws.send('{"type": "reset", "data": {}}')
        assert "observation" in ws.recv(timeout=5)
        with pytest.raises(WebSocketException):  # silent past idle_s: the server ends the session (1001)
            ws.recv(timeout=10)
    metrics = httpx.get(f"http://{guarded}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).json()
    assert metrics["refused"]["idle"] >= 1 and metrics["websockets_open"] == 0

"""Served environments hold their boundaries: control tools stay off the agent's list and a verdict
states no goal; HTTP needs the token; sessions at capacity are refused, never evicted; bad reset
fields are 400/422; every MCP stdio request is answered; slow clients are cut off; broken live
servers give one clear error and leave nothing running."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.integrations.serving import running

import envfactory
from envfactory.errors import SpecError
from envfactory.runtime.environment import Environment

SRC = str(Path(envfactory.__file__).parents[1])
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _rpc(rid: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}


INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}


def test_mcp_stdio_hides_control_tools_and_answers_every_request(shop: Environment, tmp_path: Path) -> None:
    env_dir = shop.spec.save(tmp_path / "shop")
    argv = [sys.executable, "-m", "envfactory.cli.main", "serve", str(env_dir), "--mcp"]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": SRC}, text=True)  # fmt: skip
    assert proc.stdin and proc.stdout

    def ask(line: str) -> dict[str, Any]:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    try:
        assert "result" in ask(json.dumps(_rpc(1, "initialize", INIT)))
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        listed = {t["name"] for t in ask(json.dumps(_rpc(2, "tools/list")))["result"]["tools"]}
        assert listed == set(shop.spec.tools.names)  # no env_reset / env_reply / env_verify
        surrogate = '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "get_order", '
        surrogate += '"arguments": {"order_id": "\\ud800"}}}'
        deep = json.dumps(_rpc(4, "tools/call", {"name": "get_order", "arguments": {"order_id": "DEEP"}}))
        deep = deep.replace('"DEEP"', "[" * 3000 + "]" * 3000)
        for rid, line in ((3, surrogate), (4, deep)):
            answer = ask(line)
            assert answer["id"] == rid and answer["result"]["isError"] is True
            assert "invalid_arguments" in answer["result"]["content"][0]["text"]
        assert ask(json.dumps(_rpc(5, "tools/call", {"name": "env_verify", "arguments": {}})))["result"]["isError"]
    finally:
        proc.stdin.close()
        proc.wait()


def test_control_arguments_of_the_wrong_type_are_refused_and_the_verdict_states_no_goal(shop: Environment) -> None:
    from envfactory.serve.mcp import EpisodeHost
    from envfactory.tasks.generate import generate_tasks

    task = generate_tasks(shop, 5, seed=0)[0][0]
    host = EpisodeHost(shop, {task.id: task}, control=True)
    for args in ({"task_id": ["a"]}, {"task_id": {"a": 1}}, {"seed": float("nan")}, {"seed": 2**70}, {"seed": True}):
        ok, content = host.call("env_reset", args)
        assert not ok and json.loads(content)["error"]["code"] == "invalid_arguments"
    assert host.call("env_reset", {"task_id": task.id})[0]
    ok, content = host.call("env_verify", {})
    assert ok and set(json.loads(content)) == {"success", "reward"}
    assert EpisodeHost(shop, {}).tools()[-1]["name"] not in ("env_reset", "env_reply", "env_verify")


def _mcp_init(client: TestClient, token: str | None = None) -> Any:
    headers = dict(MCP_HEADERS, **({"authorization": f"Bearer {token}"} if token else {}))
    return client.post("/mcp", json=_rpc(1, "initialize", INIT), headers=headers)


def _sse(response: Any) -> dict[str, Any]:
    lines = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
    return json.loads(lines[-1]) if lines else response.json()


def test_mcp_http_needs_the_token_and_refuses_sessions_at_capacity_without_evicting(
    shop: Environment, tmp_path: Path
) -> None:
    from envfactory.serve.mcp import http_app

    env_dir = shop.spec.save(tmp_path / "shop")
    app = http_app(env_dir, {}, token="s3cret", max_sessions=2)
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        assert _mcp_init(client).status_code == 401
        first = _mcp_init(client, "s3cret")
        assert first.status_code == 200
        sid = first.headers["mcp-session-id"]
        headers = dict(MCP_HEADERS, authorization="Bearer s3cret", **{"mcp-session-id": sid})
        order = {"customer_id": "customer_0001", "product_id": "product_0001", "quantity": 1}
        call = _rpc(2, "tools/call", {"name": "create_order", "arguments": order})
        created = _sse(client.post("/mcp", json=call, headers=headers))
        assert created["result"]["isError"] is False
        made = json.loads(created["result"]["content"][0]["text"])["id"]
        for _ in range(4):  # sessions come and go while the first one stays
            other = _mcp_init(client, "s3cret")
            assert other.status_code == 200
            second_sid = other.headers["mcp-session-id"]
            assert _mcp_init(client, "s3cret").status_code >= 400  # a third live session: refused
            client.delete("/mcp", headers=dict(headers, **{"mcp-session-id": second_sid}))
        call = _rpc(3, "tools/call", {"name": "get_order", "arguments": {"order_id": made}})
        again = _sse(client.post("/mcp", json=call, headers=headers))
        assert again["result"]["isError"] is False  # the live session's episode is still its own


def test_openenv_refuses_bad_reset_fields_deep_messages_and_its_anonymous_mcp(
    shop: Environment, tmp_path: Path
) -> None:
    from envfactory.integrations.openenv import make_app

    env_dir = shop.spec.save(tmp_path / "shop")
    client = TestClient(make_app(env_dir, {}, trajectories=tmp_path / "t.jsonl"))
    for body in ('{"task_id": ["a"]}', '{"task_id": {"a": 1}}', '{"seed": NaN}', '{"seed": 1e400}',
                 '{"seed": 100000000000000000000000}'):  # fmt: skip
        answer = client.post("/reset", content=body, headers={"content-type": "application/json"})
        assert answer.status_code in (400, 422) and answer.json()["error"]["message"], body
    assert client.post("/mcp", json=_rpc(1, "openenv/session/create")).status_code == 404
    with client.websocket_connect("/ws") as ws:
        ws.send_text("[" * 100_000 + "]" * 100_000)
        assert json.loads(ws.receive_text())["data"]["code"] == "INVALID_JSON"
        ws.send_text(json.dumps({"type": "reset", "data": {"seed": 1}}))
        assert json.loads(ws.receive_text())["type"] == "observation"  # the session goes on
        ws.send_text(json.dumps({"type": "state"}))
        assert set(json.loads(ws.receive_text())["data"]["verdict"]) == {"success", "reward"}  # mid-episode: no goal


def _held(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port)) as conn:
        conn.sendall(data)
        out = b""
        while chunk := conn.recv(4096):  # returns once the server closes the connection
            out += chunk
        return out


def test_slow_clients_are_cut_off_headers_and_bodies_alike() -> None:
    from envfactory.testing.guarded import guarded_echo

    with guarded_echo(0.5) as port:
        assert _held(port, b"GET / HTTP/1.1\r\nHost: x\r\n") == b""  # half a header: closed, unanswered
        assert b" 408 " in _held(port, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc")
        assert b" 200 " in _held(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")


@pytest.mark.parametrize(
    ("mode", "said"),
    [("die-on-list", "tools/list failed"), ("error-on-list", "listing is broken"), ("bad-schema", "tools/list failed"),
     ("hang", "did not start")],
)  # fmt: skip
def test_a_broken_live_server_is_one_clear_error_and_leaves_nothing_running(mode: str, said: str) -> None:
    from envfactory.ingest.mcp import load_mcp_server
    from envfactory.testing.broken_mcp import marked

    tag = f"t{os.getpid()}{mode}"
    command = f"{sys.executable} -m envfactory.testing.broken_mcp {mode} {tag}"
    with pytest.raises(SpecError, match=said):
        load_mcp_server(command, timeout=3, env={"PYTHONPATH": SRC})
    left = subprocess.run(["pgrep", "-f", marked(tag)], capture_output=True, text=True, check=False).stdout.split()
    assert left == []


def test_served_over_running_loopback_only(shop: Environment, tmp_path: Path) -> None:
    """The OpenEnv server behind the guard with a token: anonymous calls are 401 (``running`` binds 127.0.0.1)."""
    import httpx

    from envfactory.integrations.openenv import make_app

    app = make_app(shop.spec.save(tmp_path / "shop"), {}, token="t0k", trajectories=tmp_path / "t.jsonl")
    with running(app) as url:
        assert httpx.post(f"{url}/reset", json={}).status_code == 401
        assert httpx.post(f"{url}/reset", json={}, headers={"authorization": "Bearer t0k"}).status_code == 200

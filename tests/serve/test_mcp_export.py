"""An environment served over MCP (stdio), driven by the mcp SDK client through a full episode."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import envfactory
from envfactory.real.mcp import McpSession, McpTarget
from envfactory.runtime.environment import Environment
from envfactory.tasks.agents import report
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.taskset import write_tasks


def test_a_full_episode_over_mcp_stdio_succeeds_with_the_gold_plan(shop: Environment, tmp_path: Path) -> None:
    env_dir = shop.spec.save(tmp_path / "shop")
    task = next(t for t in generate_tasks(shop, 10, seed=0)[0] if not t.user.facts)
    write_tasks(tmp_path / "tasks.jsonl", [task])
    tasks = tmp_path / "tasks.jsonl"
    command = f"mcp+stdio:{sys.executable} -m envfactory.cli.main serve {env_dir} --mcp --control --tasks {tasks}"
    here = {"PYTHONPATH": str(Path(envfactory.__file__).parents[1])}  # the code under test, however installed
    with McpSession(McpTarget.parse(command, here), log=tmp_path / "server.log") as server:
        tools = {t["name"]: t for t in server.tools()}
        assert set(shop.spec.tools.names) | {"env_reset", "env_reply", "env_verify"} == set(tools)
        assert tools["list_customers"]["inputSchema"] == shop.spec.tools["list_customers"].input_schema
        opened = server.call("env_reset", {"task_id": task.id})
        assert opened.ok and opened.data["request"] == task.instruction
        refused = server.call("get_order", {"order_id": "no-such-order"})
        assert not refused.ok and json.loads(refused.error)["error"]["code"] == "not_found"
        for call in task.gold:
            assert server.call(call.tool, call.args).ok
        assert server.call("env_reply", {"text": report(task)}).data == {"user": None, "done": True}
        verdict = server.call("env_verify", {}).data
        assert verdict["success"] and verdict["reward"] == 1.0
        assert set(verdict) == {"success", "reward"}  # no reasons: they would state the goal
        fresh = server.call("env_reset", {"task_id": task.id})  # the same connection, a new episode
        assert fresh.ok and server.call("env_verify", {}).data["success"] is False
    assert "serving shop over MCP" in (tmp_path / "server.log").read_text()


def test_a_full_episode_over_mcp_streamable_http(shop: Environment, tmp_path: Path) -> None:
    import asyncio
    import socket
    import threading
    import time

    import uvicorn
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    from envfactory.serve.mcp import http_app

    env_dir = shop.spec.save(tmp_path / "shop")
    task = next(t for t in generate_tasks(shop, 10, seed=0)[0] if not t.user.facts)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = http_app(env_dir, {task.id: task}, control=True)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)

    async def play() -> dict:
        async with (
            streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write, *_),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            listed = {t.name for t in (await session.list_tools()).tools}
            assert {"env_reset", "env_verify"} <= listed and set(shop.spec.tools.names) <= listed
            await session.call_tool("env_reset", {"task_id": task.id})
            for call in task.gold:
                assert not (await session.call_tool(call.tool, call.args)).is_error
            await session.call_tool("env_reply", {"text": report(task)})
            verdict = await session.call_tool("env_verify", {})
            return json.loads(verdict.content[0].text)

    try:
        assert asyncio.run(play())["success"] is True
    finally:
        server.should_exit = True

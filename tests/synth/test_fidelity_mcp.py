"""Fidelity against live MCP servers: a published one from the npm registry (TypeScript) and the
Python test server; the server's stderr goes to a log, never to the console."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.conftest import FIXTURES, ROOT

from envfactory.errors import EnvFactoryError
from envfactory.ingest import load
from envfactory.ir.effect import Behaviour, FallbackEffect
from envfactory.ir.env import EnvSpec
from envfactory.real.instrument import measure
from envfactory.real.mcp import McpSession, McpTarget, parse_env
from envfactory.synth import synthesize
from envfactory.testing.foreign import FOREIGN_MCP, ensure_installed

MEMORY = FOREIGN_MCP["memory"]


@pytest.fixture(scope="module")
def memory() -> tuple[EnvSpec, str, dict[str, str]]:
    ensure_installed(ROOT)
    target = MEMORY.target(ROOT)
    return synthesize(load(target), state="empty"), target, dict(MEMORY.env)


def test_a_live_python_server_answers_through_a_session(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    target = McpTarget.parse(f"mcp+stdio:{sys.executable} {FIXTURES / 'mcp_server.py'}")
    with McpSession(target, log=log) as server:
        assert set(server.tool_names()) >= {"create_ticket", "get_ticket"}
        made = server.call("create_ticket", {"title": "Printer on fire", "priority": 1})
        assert made.ok and made.data["title"] == "Printer on fire"
        assert not server.call("no_such_tool", {}).ok
    assert log.is_file()


def test_a_server_that_cannot_start_is_a_clear_error() -> None:
    with pytest.raises(EnvFactoryError, match="could not start"):
        McpSession(McpTarget.parse("mcp+stdio:/nonexistent/server")).start()
    with pytest.raises(EnvFactoryError, match="KEY=VALUE"):
        parse_env(["NOVALUE"])


def test_the_memory_server_is_measured_beside_the_stub_and_twice_the_same(
    memory: tuple[EnvSpec, str, dict[str, str]], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    spec, target, env = memory
    log = tmp_path / "memory.log"
    first = measure(spec, target, env=env, sequences=6, length=8, log=log, seed=3)
    assert first.calls == 48 and first.final_state is not None  # through read_graph, the dump tool
    assert first.outcome >= 0.9 and first.outcome >= first.stub_outcome
    assert first.output_fields is not None and first.stub_output_fields is not None
    assert first.output_fields >= first.stub_output_fields + 0.3
    assert "Knowledge Graph MCP Server" in log.read_text()  # the server's banner went to the log...
    assert "Knowledge Graph" not in capfd.readouterr().err  # ...not to the console
    again = measure(spec, target, env=env, sequences=6, length=8, log=log, seed=3)
    assert again == first


def test_a_wrong_behaviour_is_not_graded_high_against_the_live_server(
    memory: tuple[EnvSpec, str, dict[str, str]],
) -> None:
    spec, target, env = memory
    broken = tuple(
        Behaviour(tool=b.tool, effect=FallbackEffect(reason="wrong on purpose"), prior="confident")  # claims high
        if b.tool == "read_graph" else b
        for b in spec.behaviours
    )  # fmt: skip
    grades = measure(spec.model_copy(update={"behaviours": broken}), target, env=env, sequences=6, length=8).grades()
    assert grades["read_graph"] != "high"


def test_the_filesystem_server_is_matched_as_a_tree(tmp_path: Path) -> None:
    ensure_installed(ROOT)
    server = FOREIGN_MCP["filesystem"]
    target = server.target(ROOT)
    spec = synthesize(load(target), state="empty")
    result = measure(spec, target, sequences=6, length=8, final_tool="directory_tree", log=tmp_path / "fs.log")
    assert result.outcome >= 0.9 and result.outcome >= result.stub_outcome + 0.2
    assert result.final_state is not None and result.final_state >= 0.6


def test_a_server_the_synthesizer_cannot_model_is_measured_low_not_high(tmp_path: Path) -> None:
    ensure_installed(ROOT)
    server = FOREIGN_MCP["git"]
    target = server.target(ROOT)
    spec = synthesize(load(target), state="empty")
    result = measure(spec, target, env=dict(server.env), sequences=4, length=8, log=tmp_path / "git.log")
    assert result.calls == 32 and "high" not in result.grades().values()

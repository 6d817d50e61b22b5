"""A live MCP server as the environment itself (``synth mcp+stdio:CMD --bind``): a fresh server per
episode, its state hashed through its read-everything tool, restored by replay, and tasks planned
on the synthesized model and proven on the server (the published memory server, TypeScript)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import ROOT

from envfactory.errors import EnvSpecError
from envfactory.ir.env import EnvSpec
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check
from envfactory.testing.foreign import FOREIGN_MCP, ensure_installed

MEMORY = FOREIGN_MCP["memory"]
ADA = {"entities": [{"name": "Ada", "entityType": "person", "observations": ["writes programs"]}]}


@pytest.fixture(scope="module")
def served() -> EnvSpec:
    ensure_installed(ROOT)
    return synthesize(MEMORY.target(ROOT), bind=True, server_env=dict(MEMORY.env))


def test_every_tool_is_answered_by_the_server_only_when_trusted(served: EnvSpec, tmp_path: Path) -> None:
    assert {b.effect.kind for b in served.behaviours} == {"served"} and {b.prior for b in served.behaviours} == {"real"}
    saved = EnvSpec.load(served.save(tmp_path / "memory"))
    with pytest.raises(EnvSpecError, match=r"runs code: mcp\+stdio:.*--trust-code"):
        Environment(saved).episode()  # starting a server runs code: asked for, never implied


def test_state_is_the_servers_and_restore_replays_it(served: EnvSpec) -> None:
    env = Environment(served, trust_code=True)
    episode = env.episode()
    empty = episode.state_hash()
    made = episode.call_tool("create_entities", ADA)
    assert made.ok and made.data["entities"][0]["name"] == "Ada"
    one = episode.state_hash()
    assert one != empty
    snap = episode.snapshot()
    noted = episode.call_tool("add_observations", {"observations": [{"entityName": "Ada", "contents": ["tea"]}]})
    assert noted.ok and episode.state_hash() not in (empty, one)
    missing = episode.call_tool("add_observations", {"observations": [{"entityName": "Bob", "contents": ["x"]}]})
    assert missing.error == "not_found" and "Bob" in missing.content  # the server's refusal, classed
    episode.restore(snap)  # a fresh server, the logged calls replayed
    assert episode.state_hash() == one
    assert episode.call_tool("read_graph", {}).data["entities"][0]["observations"] == ["writes programs"]
    episode.reset()  # a fresh server per episode
    assert episode.state_hash() == empty
    assert self_check(served, env=env).passed


def test_tasks_are_proven_on_the_server(served: EnvSpec) -> None:
    from envfactory.tasks.generate import baselines, generate_tasks

    env = Environment(served, trust_code=True)
    tasks, report = generate_tasks(env, 3, seed=0)
    assert len(tasks) == 3, report.as_json()
    assert all(t.goal.rows == {} and t.gold for t in tasks)  # the goal is the server's own state
    assert set(baselines(env, tasks).values()) == {0.0}


def test_setup_calls_give_every_fresh_server_its_starting_state(tmp_path: Path) -> None:
    import json

    from envfactory.real.instrument import measure
    from envfactory.tasks.generate import generate_tasks

    ensure_installed(ROOT)
    people = [{"name": who, "entityType": "person", "observations": [f"{who} joined"]} for who in ("Ada", "Bo", "Cy")]
    setup = tmp_path / "setup.json"
    setup.write_text(json.dumps([{"tool": "create_entities", "arguments": {"entities": people}}]))
    spec = synthesize(MEMORY.target(ROOT), bind=True, server_env=dict(MEMORY.env), scenario=str(setup))
    env = Environment(spec, trust_code=True)
    episode = env.episode()
    assert [e["name"] for e in episode.call_tool("read_graph", {}).data["entities"]] == ["Ada", "Bo", "Cy"]
    tasks, report = generate_tasks(env, 4, seed=0)  # the model starts with the three people too
    assert len(tasks) == 4, report.as_json()
    assert any(t.level > 1 or "Ada" in t.instruction or "Bo" in t.instruction or "Cy" in t.instruction for t in tasks)
    model = synthesize(MEMORY.target(ROOT), server_env=dict(MEMORY.env), state="empty")
    measured = measure(model, MEMORY.target(ROOT), env=dict(MEMORY.env), scenario=str(setup), sequences=3, length=6)
    assert measured.final_state is not None and measured.outcome >= 0.9
    setup.write_text(json.dumps([{"tool": "no_such_tool", "arguments": {}}]))
    broken = spec.model_copy(update={"config": spec.config.model_copy(update={"scenario": str(setup)})})
    with pytest.raises(EnvSpecError, match=r"entry 0 must be"):
        Environment(broken, trust_code=True).episode()

"""Simulated tools: a language model answers reads the templates cannot express; answers are
validated against the output schema, fall back when invalid, and replay from the cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import FIXTURES
from tests.llm.fake_openai import FakeOpenAI, completion
from typer.testing import CliRunner

from envfactory.cli.main import app
from envfactory.errors import EnvSpecError
from envfactory.ir.effect import Behaviour, SimulatedEffect
from envfactory.ir.env import EnvSpec
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize


def _spec(folder_url: str | None = None) -> EnvSpec:
    spec = synthesize(FIXTURES / "tickets_tally.json")
    effect = SimulatedEffect(model="openai:sim", base_url=folder_url, entities=("ticket",))
    behaviours = tuple(Behaviour(tool=b.tool, effect=effect, prior="simulated") if b.tool == "tally_workload"
                       else b for b in spec.behaviours)  # fmt: skip
    return spec.model_copy(update={"behaviours": behaviours})


def test_valid_answers_are_used_invalid_ones_fall_back_and_replays_come_from_the_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answers = iter(['Sure: {"open": 2, "closed": 3}', '{"open": "many"}', "no idea"])
    with FakeOpenAI(lambda body: (200, completion({"role": "assistant", "content": next(answers)}))) as server:
        monkeypatch.setenv("ENVFACTORY_BASE_URL", server.url)  # the user's configuration names the endpoint
        env = Environment(_spec(), trust_code=True)
        first = env.episode().call_tool("tally_workload", {})
        assert first.ok and first.data == {"open": 2, "closed": 3}
        prompt = server.requests[0]["messages"][0]["content"]
        assert "tally_workload" in prompt and '"ticket"' in prompt and "How many tickets" in prompt
        assert env.episode().call_tool("tally_workload", {}).data == first.data  # the same request: cached
        assert len(server.requests) == 1
        ep = env.episode()
        ep.call_tool("create_ticket", {"title": "New one", "status": "open"})  # other data: a new request
        fallback = ep.call_tool("tally_workload", {})
        assert len(server.requests) == 3  # one retry, then the schema-faithful fallback
        assert fallback.ok and set(fallback.data) == {"open", "closed"} and isinstance(fallback.data["open"], int)


def test_the_simulate_command_marks_read_only_fallbacks_and_refuses_writes(tmp_path: Path) -> None:
    env_dir = synthesize(FIXTURES / "tickets_tally.json").save(tmp_path / "tickets")
    runner = CliRunner()
    refused = runner.invoke(app, ["simulate", str(env_dir), "--tool", "create_ticket"])
    assert refused.exit_code != 0 and "never writes" in refused.output
    done = runner.invoke(app, ["simulate", str(env_dir), "--model", "openai:sim", "--base-url", "http://127.0.0.1:9"])
    assert done.exit_code == 0, done.output
    behaviours = json.loads((env_dir / "behaviours.json").read_text())
    tally = next(b for b in behaviours if b["tool"] == "tally_workload")
    assert tally["prior"] == "simulated" and tally["effect"]["model"] == "openai:sim"


def test_a_simulated_tool_needs_consent_and_never_sends_the_key_to_an_address_the_folder_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = completion({"role": "assistant", "content": '{"open": 1, "closed": 1}'})
    with FakeOpenAI(lambda body: (200, answer)) as trap:
        env_dir = _spec(folder_url=trap.url).save(tmp_path / "tickets")
        with pytest.raises(EnvSpecError, match="contacts a model: tally_workload"):
            Environment.load(env_dir)
        for command in (["check", str(env_dir)], ["tasks", str(env_dir), "--out", str(tmp_path / "t.jsonl")]):
            refused = CliRunner().invoke(app, command)
            assert refused.exit_code != 0 and "--trust-code" in refused.output, refused.output
        shown = CliRunner().invoke(app, ["inspect", str(env_dir)])
        assert shown.exit_code == 0 and shown.output.index("tally_workload: asks the model") < shown.output.index(
            "tickets"
        )
        assert f"{trap.url} is ignored" in shown.output
        monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
        monkeypatch.delenv("ENVFACTORY_BASE_URL", raising=False)
        monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens: the call fails
        result = Environment.load(env_dir, trust_code=True).episode().call_tool("tally_workload", {})
        assert trap.requests == []  # the folder's address never saw the request (nor the key)
        assert result.error in ("transient", None)

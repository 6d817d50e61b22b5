"""What an environment's build leaves for later: a large description's 242 argument validators
took 12 s to generate up front (``bench/startup.py``), so each is generated on its tool's first
call; and a schema repeated across tools is conformed by one function."""

from __future__ import annotations

import copy

import pytest

import envfactory.runtime.validation as validation
from envfactory.runtime.conform import compile_conformer
from envfactory.runtime.environment import Environment


def test_a_validator_is_generated_on_its_tools_first_call(shop: Environment, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[object] = []
    real = validation.compile_schema
    monkeypatch.setattr(validation, "compile_schema", lambda *a, **k: made.append(a) or real(*a, **k))
    env = Environment(shop.spec)
    assert made == []
    episode = env.episode()
    tool = next(iter(env.tools))
    refused = episode.call_tool(tool, {"no_such_argument": 1})
    assert not refused.ok and refused.error == "invalid_arguments" and len(made) == 1
    episode.call_tool(tool, {"no_such_argument": 2})
    assert len(made) == 1  # once per tool


def test_one_conformer_per_schema_by_content() -> None:
    user = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}}
    first, again = compile_conformer(user), compile_conformer(copy.deepcopy(user))
    assert first is not None and first is again
    assert first({"id": "12", "name": 3}) == {"id": 12, "name": "3"}
    assert compile_conformer(user, depth=1) is not first  # a depth cuts what it reaches: made apart

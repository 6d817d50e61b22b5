"""Regression tests for the Episode contract under hostile agent input (see bench/hostile.py)."""

from __future__ import annotations

import json
import random
import threading

import orjson
import pytest

from envfactory.errors import SnapshotError
from envfactory.gym_env import ToolEnv
from envfactory.ir.task import Goal, Task
from envfactory.runtime.environment import CompiledTool, Environment
from envfactory.synth.selfcheck import self_check
from envfactory.testing.hostile import hostile_action, hostile_arguments, hostile_name, snapshot_tampers, tampered


def test_hostile_arguments_are_error_results_and_snapshots_stay_strict_json(bundled_envs: dict) -> None:
    for name, env in bundled_envs.items():
        rng = random.Random(name)
        episode = env.episode(max_steps=10**6)
        names = list(env.tools)
        for _ in range(400):
            result = episode.call_tool(hostile_name(rng, names), hostile_arguments(rng, {}))
            assert isinstance(result.content, str)
        snap = episode.snapshot()
        orjson.dumps(snap)  # raises on NaN, surrogates or non-string keys
        twin = env.episode(max_steps=10**6)
        twin.restore(json.loads(json.dumps(snap)))
        assert twin.state_hash() == episode.state_hash()


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ('{"order_id": ' + "1" * 5000 + "}", "too large"),
        ({1: "x"}, "non-string key"),
        ({"order_id": float("nan")}, "JSON cannot carry"),
        ('{"order_id": Infinity}', "JSON cannot carry"),
        ({"order_id": "\ud800"}, "lone surrogate"),
        ({"order_id": 10**30}, "64-bit"),
        ({"order_id": (1, 2)}, "not a JSON value"),
    ],
)
def test_non_canonical_arguments_are_refused(shop: Environment, arguments: object, fragment: str) -> None:
    result = shop.episode().call_tool("get_order", arguments)  # type: ignore[arg-type]
    assert result.error == "invalid_arguments" and fragment in result.content


def test_an_integral_float_is_the_integer_in_state_and_hash(bundled_envs: dict) -> None:
    env = bundled_envs["library"]
    tool, schema = next(
        (t.name, t.input_schema)
        for t in env.spec.tools.tools
        if any(p.get("type") == "integer" for p in t.input_schema["properties"].values())
        and env.spec.behaviour(t.name).effect.kind in ("create", "update")
    )
    arg = next(a for a, p in schema["properties"].items() if p.get("type") == "integer")
    episode = env.episode()
    from envfactory.synth.arguments import sample_arguments
    from envfactory.values import ValueMaker

    args = sample_arguments(env.spec, env.spec.behaviour(tool), episode.store, ValueMaker(0))
    value = int(args[arg]) + 1
    assert episode.call_tool(tool, {**args, arg: value}).ok
    as_int = episode.state_hash()
    episode.reset()
    assert episode.call_tool(tool, {**args, arg: float(value)}).ok
    assert episode.state_hash() == as_int
    assert f"{value}.0".encode() not in orjson.dumps(episode.snapshot())


def test_state_is_a_copy_that_cannot_leak_into_other_episodes(shop: Environment) -> None:
    first = shop.episode()
    before = shop.episode().state_hash()
    rows = first.state()
    for table in rows.values():
        for row in table:
            row.clear()
    assert shop.episode().state() != rows
    assert shop.episode().state_hash() == before


def test_a_crashing_behaviour_is_an_internal_error_and_fails_the_self_check(bundled_specs: dict) -> None:
    env = Environment(bundled_specs["shop"])
    tool = next(b.tool for b in env.spec.behaviours if b.effect.kind == "action")

    def explode(ctx: object, args: object) -> object:
        raise RuntimeError("bug in the behaviour")

    env.tools[tool] = CompiledTool(tool, env.tools[tool].validate, explode, env.tools[tool].shape, False)
    from envfactory.synth.arguments import sample_arguments
    from envfactory.values import ValueMaker

    episode = env.episode()
    args = sample_arguments(env.spec, env.spec.behaviour(tool), episode.store, ValueMaker(0))
    result = episode.call_tool(tool, args)
    assert result.error == "internal_error" and "bug in the behaviour" in result.content
    report = self_check(env.spec, env=env)
    assert not report.passed
    assert any(c.status == "fail" for t in report.tools if t.tool == tool for c in t.checks)


def test_tampered_snapshots_are_refused_whole_or_restored_sanely(shop: Environment) -> None:
    episode = shop.episode()
    entity = "order" if "order" in shop.base.tables else next(iter(shop.base.tables))
    key = next(iter(shop.base.tables[entity]))
    episode.store.put(entity, key, {**shop.base.tables[entity][key], "touched": True})
    good = episode.snapshot()
    refused = 0
    for label, tamper in snapshot_tampers(entity, key):
        victim = shop.episode()
        victim.call_tool("get_order", {"order_id": "nope"})
        before = (victim.state_hash(), victim.steps, victim.snapshot())
        try:
            victim.restore(tampered(good, tamper))
        except SnapshotError:
            refused += 1
            assert (victim.state_hash(), victim.steps, victim.snapshot()) == before, label
            continue
        assert isinstance(victim.steps, int) and victim.steps >= 0, label
        orjson.dumps(victim.snapshot())
    assert refused >= 25  # every type error, unknown entity, other environment


def test_steps_cannot_be_granted_by_a_snapshot(shop: Environment) -> None:
    episode = shop.episode()
    snap = episode.snapshot()
    with pytest.raises(SnapshotError, match="steps"):
        episode.restore({**snap, "steps": -1000})
    with pytest.raises(SnapshotError, match="steps"):
        episode.restore({**snap, "steps": "abc"})


def test_fallback_values_agree_across_threads(bundled_envs: dict) -> None:
    env = bundled_envs["calendar"]
    tools = [b.tool for b in env.spec.behaviours if b.effect.kind == "fallback"] or list(env.tools)
    calls = [(tools[i % len(tools)], {"i": i}, i % 5) for i in range(400)]
    expected = [env.fallback_value(*c) for c in calls]
    got: list[object] = [None] * len(calls)

    def work(part: int) -> None:
        for i in range(part, len(calls), 4):
            got[i] = env.fallback_value(*calls[i])

    threads = [threading.Thread(target=work, args=(p,)) for p in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected


def test_gymnasium_step_never_raises_on_hostile_actions(shop: Environment) -> None:
    env = ToolEnv(shop)
    env.reset(seed=0)
    rng = random.Random(1)
    for i in range(600):
        _, _, terminated, truncated, _ = env.step(hostile_action(rng, list(shop.tools), {}))
        if terminated or truncated:
            env.reset(seed=i)


def test_a_goal_naming_an_unknown_entity_fails_verification_without_raising(shop: Environment) -> None:
    task = Task(env="shop", id="t", instruction="x", goal=Goal(rows={"ghost": {"1": None}}))
    episode = shop.episode()
    episode.reset(task=task)
    verdict = episode.verify()
    assert not verdict.success and "ghost" in verdict.reasons[0]


def test_surrogates_in_user_supplied_rows_still_hash(shop: Environment) -> None:
    episode = shop.episode()
    entity = next(iter(shop.base.tables))
    key = next(iter(shop.base.tables[entity]))
    episode.store.put(entity, key, {**shop.base.tables[entity][key], "name": "bad \ud800"})
    assert len(episode.state_hash()) == 32
    episode.verify()

"""An envfactory environment served in the OpenEnv protocol, driven by the openenv-core client
through full episodes; RemoteEpisode runs a policy and the rollout loop against it unchanged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integrations.serving import running

from envfactory.integrations.openenv import EnvfactoryClient, RemoteEpisode, ToolCallAction, make_app
from envfactory.rl.policy import GoldPolicy
from envfactory.rl.rollout import rollout
from envfactory.runtime.environment import Environment
from envfactory.tasks.agents import report
from envfactory.tasks.generate import generate_tasks


@pytest.fixture(scope="module")
def served(bundled_envs: dict[str, Environment], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    shop = bundled_envs["shop"]
    env_dir = shop.spec.save(tmp_path_factory.mktemp("served") / "shop")
    tasks = generate_tasks(shop, 12, seed=0)[0]
    with running(make_app(Path(env_dir), {t.id: t for t in tasks}, max_sessions=8)) as url:
        yield url, tasks


def _call(name: str, args: dict) -> dict:
    import json

    return {"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def test_the_openenv_client_plays_a_full_episode(served: tuple) -> None:
    url, tasks = served
    task = next(t for t in tasks if not t.user.facts)
    with EnvfactoryClient(base_url=url).sync() as env:
        first = env.reset(task_id=task.id, seed=1)
        assert first.observation.messages[-1]["content"] == task.instruction and first.observation.tools
        for call in task.gold:
            result = env.step(ToolCallAction(tool_calls=[_call(call.tool, call.args)]))
            assert not result.done and '"error"' not in result.observation.messages[0]["content"][:12]
        last = env.step(ToolCallAction(content=report(task)))
        assert last.done and last.reward == 1.0 and last.observation.verdict["success"]
        state = env.state()
        assert state.step_count == len(task.gold) + 1 and state.model_dump()["task_id"] == task.id


def test_sessions_are_isolated_and_bad_input_is_answered_not_fatal(served: tuple) -> None:
    url, tasks = served
    task = next(t for t in tasks if t.goal.state_hash)  # a task that changes the state
    with EnvfactoryClient(base_url=url).sync() as a, EnvfactoryClient(base_url=url).sync() as b:
        a.reset(task_id=task.id)
        b.reset(task_id=task.id)
        untouched = b.state().model_dump()["state_hash"]
        answer = a.step(ToolCallAction(tool_calls=[_call("no_such_tool", {})]))
        assert '"unknown_tool"' in answer.observation.messages[0]["content"]
        a.step(ToolCallAction(tool_calls=[_call(c.tool, c.args) for c in task.gold]))  # parallel calls, in order
        assert a.state().model_dump()["state_hash"] == task.goal.state_hash != untouched
        assert b.state().model_dump()["state_hash"] == untouched  # the other session saw nothing


def test_a_policy_and_the_rollout_loop_run_against_a_remote_episode_unchanged(served: tuple) -> None:
    url, tasks = served
    remote = RemoteEpisode(url)
    try:
        for task in tasks[:4]:
            trajectory = rollout(remote, task, GoldPolicy(), seed=3)
            assert trajectory.success and trajectory.reward == 1.0 and trajectory.tool_calls >= len(task.gold)
        remote.reset(task=tasks[0])
        assert remote.call_tool("get_order", {"order_id": "missing"}).error == "not_found"
    finally:
        remote.close()


SLOW = '''
import time


class Slow:
    def nap(self, seconds: float) -> dict:
        """Sleep a while.

        Args:
            seconds: How long.
        """
        time.sleep(seconds)
        return {"slept": seconds}
'''


def test_a_call_past_the_step_timeout_is_answered_and_the_session_must_reset(tmp_path: Path) -> None:
    from envfactory.synth import synthesize

    (tmp_path / "slow.py").write_text(SLOW)
    env_dir = synthesize(f"{tmp_path / 'slow.py'}:Slow", bind=True).save(tmp_path / "slow")
    app = make_app(Path(env_dir), {}, trust_code=True, step_timeout_s=0.5)
    with running(app) as url, EnvfactoryClient(base_url=url).sync() as env:
        env.reset()
        late = env.step(ToolCallAction(tool_calls=[_call("nap", {"seconds": 3})]))
        assert late.done and '"internal_error"' in late.observation.messages[0]["content"]
        again = env.step(ToolCallAction(tool_calls=[_call("nap", {"seconds": 0})]))
        assert '"episode_over"' in again.observation.messages[0]["content"]  # reset first
        env.reset()
        quick = env.step(ToolCallAction(tool_calls=[_call("nap", {"seconds": 0})]))
        assert not quick.done and '"slept"' in quick.observation.messages[0]["content"]

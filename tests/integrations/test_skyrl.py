"""SkyRL's text gym drives envfactory episodes: text actions in, tool results and a verdict out."""

from __future__ import annotations

import json
from pathlib import Path

import skyrl_gym

from envfactory.integrations.skyrl import register
from envfactory.runtime.environment import Environment
from envfactory.tasks.agents import report
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.taskset import write_tasks


def test_a_skyrl_episode_from_text_actions_to_the_reward(shop: Environment, tmp_path: Path) -> None:
    env_dir = shop.spec.save(tmp_path / "shop")
    task = next(t for t in generate_tasks(shop, 10, seed=0)[0] if not t.user.facts)
    write_tasks(tmp_path / "tasks.jsonl", [task])
    register()
    config = {"env_dir": str(env_dir), "tasks": str(tmp_path / "tasks.jsonl")}
    env = skyrl_gym.make("envfactory", env_config=config, extras={"task_id": task.id})
    prompt, info = env.init([{"role": "user", "content": task.instruction}])
    assert prompt[-1]["content"] == task.instruction and {t["function"]["name"] for t in info["tools"]} >= {
        c.tool for c in task.gold}  # fmt: skip
    system = prompt[0]["content"]  # what the model reads: every tool and the call format, not only metadata
    assert prompt[0]["role"] == "system" and "<tool_call>" in system and len(prompt) == 2
    assert all(f"- {name}(" in system for name in shop.tools)
    for call in task.gold:
        text = f'<tool_call>{{"name": "{call.tool}", "arguments": {json.dumps(call.args)}}}</tool_call>'
        out = env.step(text)
        assert not out["done"] and out["reward"] == 0.0 and out["observations"][0]["content"].startswith("Tool result")
    last = env.step(report(task))
    assert last["done"] and last["reward"] == 1.0
    again = skyrl_gym.make("envfactory", env_config=config, extras={"task_id": task.id})
    again.init([])
    assert again.step("All done.")["reward"] == 0.0  # nothing was done

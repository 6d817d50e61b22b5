"""TRL: an envfactory environment as GRPOTrainer's environment_factory (the real training step on the
embedded SmolLM2-135M is the README's TRL block, run by tests/test_readme.py)."""

from __future__ import annotations

import json

import pytest
from transformers.utils import get_json_schema

from envfactory.integrations.trl import environment_factory, task_dataset, with_tool_template
from envfactory.runtime.environment import Environment
from envfactory.tasks.generate import generate_tasks


def test_each_tool_becomes_a_typed_documented_method_and_rewards_come_from_verify(
    bundled_envs: dict[str, Environment],
) -> None:
    shop = bundled_envs["shop"]
    tasks = generate_tasks(shop, 6, seed=0)[0]
    factory = environment_factory(shop, tasks)
    env = factory()
    schema = get_json_schema(env.get_order)
    tool = shop.spec.tools["get_order"]
    assert schema["function"]["name"] == "get_order"
    assert schema["function"]["parameters"]["required"] == tool.required
    assert set(schema["function"]["parameters"]["properties"]) == set(tool.input_schema["properties"])
    task = next(t for t in tasks if not t.user.facts and not t.goal.answer)
    env.reset(task_id=task.id)
    for call in task.gold:
        answer = getattr(env, call.tool)(**call.args)
        assert '"error"' not in answer[:12]
    assert env.get_reward() == 1.0
    env.reset(task_id=task.id)
    assert json.loads(env.get_order(order_id="missing"))["error"]["code"] == "not_found"
    assert env.get_reward() == 0.0  # nothing done
    rows = task_dataset(tasks)
    assert rows[0]["task_id"] == tasks[0].id and rows[0]["prompt"][-1]["content"] == tasks[0].instruction


def test_the_tool_template_is_given_only_to_chatml_tokenizers_that_cannot_render_tools() -> None:
    from types import SimpleNamespace

    smol = SimpleNamespace(chat_template="{{'<|im_start|>' + message['role']}}")  # SmolLM2's: no tools
    assert "tools" in with_tool_template(smol).chat_template
    able = SimpleNamespace(chat_template="<|im_start|>{% if tools %}{{ tools }}{% endif %}")
    assert with_tool_template(able).chat_template == "<|im_start|>{% if tools %}{{ tools }}{% endif %}"  # kept
    with pytest.raises(ValueError, match="ChatML"):
        with_tool_template(SimpleNamespace(chat_template="[INST] {{ messages }} [/INST]"))


# One real GRPO step of TRL on the embedded SmolLM2 through environment_factory is the README's TRL block,
# which tests/test_readme.py runs as written (the lines a user copies are the ones tested).

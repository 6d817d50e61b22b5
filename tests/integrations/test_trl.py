"""TRL: an envfactory environment as GRPOTrainer's environment_factory, and one real GRPO step of
TRL on the embedded SmolLM2-135M through it (the README's TRL block, on a set of three tools whose
prompt is a fifth as long as the library's: the README test checks that block, this runs it)."""

from __future__ import annotations

import json
from pathlib import Path

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


LAMPS = [
    {"type": "function", "function": {"name": "add_lamp", "description": "Add a lamp to a room.", "parameters": {
        "type": "object", "properties": {"room": {"type": "string"}}, "required": ["room"]}}},
    {"type": "function", "function": {"name": "list_lamps", "description": "List every lamp.",
                                      "parameters": {"type": "object", "properties": {}}}},
]  # fmt: skip


def test_one_grpo_step_of_trl_on_the_embedded_model(tmp_path: Path) -> None:
    """The README's TRL block, as written but for the environment: the trainer's own step runs
    rollouts through ``environment_factory`` and logs the environment's reward."""
    from trl import GRPOConfig, GRPOTrainer

    from envfactory.llm.local import trainable
    from envfactory.synth import synthesize

    spec = tmp_path / "lamps.openai.json"
    spec.write_text(json.dumps(LAMPS))
    env = Environment(synthesize(str(spec)))
    tasks = generate_tasks(env, 4, seed=0)[0][:2]
    tokenizer, model = trainable()
    args = GRPOConfig(output_dir=str(tmp_path / "trl"), max_steps=1, per_device_train_batch_size=2, num_generations=2,
                      max_completion_length=8, use_cpu=True, bf16=False, gradient_checkpointing=False,
                      report_to=[], save_strategy="no")  # fmt: skip
    factory = environment_factory(env, tasks)
    trainer = GRPOTrainer(model=model, processing_class=with_tool_template(tokenizer), args=args,
                          train_dataset=task_dataset(tasks), environment_factory=factory)  # fmt: skip
    trainer.train()
    assert trainer.state.global_step == 1
    logged = trainer.state.log_history[0]
    name = factory.__name__  # LampsEnvironment: TRL logs each environment's reward
    assert 0.0 <= logged[f"rewards/{name}/mean"] <= 1.0 and logged["num_tokens"] > 0

"""TRL: an envfactory environment as GRPOTrainer's environment_factory, and one real training step
of TRL on the embedded SmolLM2-135M on the CPU."""

from __future__ import annotations

import json
import os
from pathlib import Path

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


def test_one_real_grpo_step_of_trl_on_the_embedded_model(bundled_envs: dict[str, Environment], tmp_path: Path) -> None:
    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    from trl import GRPOConfig, GRPOTrainer

    from envfactory.llm.local import trainable

    library = bundled_envs["library"]
    tasks = generate_tasks(library, 2, seed=0)[0]
    resets: list[str] = []
    base = environment_factory(library, tasks)

    class Counted(base):  # type: ignore[misc, valid-type]
        def reset(self, task_id: str | None = None, **example: object) -> str | None:
            resets.append(str(task_id))
            return super().reset(task_id=task_id, **example)

    tokenizer, model = trainable()
    args = GRPOConfig(output_dir=str(tmp_path), max_steps=1, per_device_train_batch_size=2, num_generations=2,
                      max_completion_length=8, use_cpu=True, report_to=[], logging_steps=1, save_strategy="no",
                      learning_rate=1e-6, bf16=False)  # fmt: skip
    trainer = GRPOTrainer(model=model, processing_class=with_tool_template(tokenizer), args=args,
                          train_dataset=task_dataset(tasks), environment_factory=Counted)  # fmt: skip
    trainer.train()
    logged = trainer.state.log_history[0]
    assert trainer.state.global_step == 1 and "rewards/Counted/mean" in logged
    assert len(resets) == 2 and set(resets) <= {t.id for t in tasks}  # one episode per rollout

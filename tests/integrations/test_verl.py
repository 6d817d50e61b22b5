"""verl (0.9.1, the real library): envfactory's estimators in its advantage registry, its tools
through verl's own tool config loader and call sequence (create, execute, release per call), one
episode per trajectory, and the task's verdict as the trajectory's reward — also through verl's
own tool agent loop (``run``), with a scripted model behind its server-manager interface."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import yaml
from omegaconf import OmegaConf
from transformers import AutoTokenizer
from verl.experimental.agent_loop.agent_loop import DictConfigWrap, ToolListWrap, _agent_loop_registry
from verl.experimental.agent_loop.tool_agent_loop import AgentData
from verl.tools.tool_registry import initialize_tools_from_config
from verl.trainer.ppo.core_algos import get_adv_estimator_fn
from verl.workers.rollout.replica import TokenOutput

from envfactory.errors import EnvFactoryError
from envfactory.integrations.trl import with_tool_template
from envfactory.integrations.verl import (
    AGENT,
    EnvfactoryAgentLoop,
    dataset_rows,
    finish,
    register_estimators,
    tool_config,
)
from envfactory.llm.local import weights_file
from envfactory.rl.advantages import erpo
from envfactory.runtime.environment import Environment
from envfactory.tasks.agents import report
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.taskset import write_tasks


def test_estimators_are_registered_in_verl_and_mask_spoiled_responses() -> None:
    assert register_estimators() == ["envfactory_erpo", "envfactory_dr_grpo", "envfactory_rloo"]
    register_estimators()  # again: a no-op, not verl's "already registered" error
    rewards = torch.tensor([[0.0, 1.0], [0.0, 0.0], [0.0, 1.0], [0.0, 0.5]])  # outcome on the last token
    mask = torch.tensor([[1, 1], [1, 1], [1, 1], [0, 0]])  # the last response was spoiled by the user
    index = np.array(["a", "a", "b", "b"], dtype=object)
    adv, returns = get_adv_estimator_fn("envfactory_erpo")(token_level_rewards=rewards, response_mask=mask,
                                                            index=index, config=None)  # fmt: skip
    expected = erpo([1.0, 0.0, 1.0, 0.5], ["a", "a", "b", "b"], mask=[True, True, True, False], env_ids=[0] * 4)
    # hand-computed: group a centred (+0.5, -0.5), b alone (0); batch std of (1, 0, 1) = 0.57735
    assert expected == pytest.approx([0.5 / 0.57735, -0.5 / 0.57735, 0.0, 0.0], abs=1e-4)
    assert adv[:, 0].tolist() == pytest.approx(expected.tolist(), abs=1e-5) and adv[3].abs().sum() == 0
    assert torch.equal(adv, returns)
    rloo, _ = get_adv_estimator_fn("envfactory_rloo")(token_level_rewards=rewards, response_mask=mask, index=index)
    assert rloo[:, 0].tolist() == pytest.approx([1.0, -1.0, 0.0, 0.0])


def _agent_data(row: dict, request: str) -> AgentData:
    return AgentData(messages=list(row["prompt"]), image_data=None, video_data=None, audio_data=None,
                     mm_processor_kwargs=None, metrics={}, request_id=request,
                     tools_kwargs=row["extra_info"]["tools_kwargs"])  # fmt: skip


async def _call(tools: dict, data: AgentData, name: str, args: dict) -> str:
    """What verl's ToolAgentLoop does for one call: create, execute, release."""
    tool = tools[name]
    instance, _ = await tool.create(create_kwargs={})
    try:
        response, _, _ = await tool.execute(instance, args, agent_data=data)
    finally:
        await tool.release(instance)
    return response.text


def test_tools_keep_one_episode_per_trajectory_and_the_verdict_is_the_reward(
    bundled_envs: dict[str, Environment], tmp_path: Path
) -> None:
    shop = bundled_envs["shop"]
    env_dir = shop.spec.save(tmp_path / "shop")
    tasks = [t for t in generate_tasks(shop, 12, seed=0)[0] if t.goal.state_hash and not t.user.facts]
    write_tasks(tmp_path / "tasks.jsonl", tasks)
    (tmp_path / "tools.yaml").write_text(yaml.safe_dump(tool_config(env_dir, tmp_path / "tasks.jsonl")))
    tools = {t.name: t for t in initialize_tools_from_config(str(tmp_path / "tools.yaml"))}  # verl's own loader
    assert set(tools) == set(shop.spec.tools.names)
    task = tasks[0]
    row = dataset_rows([task])[0]
    assert row["agent_name"] == AGENT and _agent_loop_registry[AGENT]["_target_"].endswith("EnvfactoryAgentLoop")
    solver, idle = _agent_data(row, "r1"), _agent_data(row, "r2")

    async def play() -> None:
        for call in task.gold:
            text = await _call(tools, solver, call.tool, call.args)
            assert not text.startswith('{"error"')
        await _call(tools, idle, task.gold[0].tool, {"bogus": 1})  # another trajectory: its own episode

    asyncio.run(play())
    alone = tools[task.gold[0].tool]
    with pytest.raises(EnvFactoryError, match="runs inside verl's tool agent loop"):  # outside verl's loop
        asyncio.run(alone.execute("x", dict(task.gold[0].args)))
    assert solver.extra_fields["envfactory_episode"] is not idle.extra_fields["envfactory_episode"]
    assert solver.extra_fields["envfactory_episode"].state_hash() == task.goal.state_hash
    assert idle.extra_fields["envfactory_episode"].state_hash() != task.goal.state_hash
    config = next(iter(tools.values())).config
    solver.messages.append({"role": "assistant", "content": report(task)})
    assert finish(solver.extra_fields, solver.messages, row["extra_info"]["tools_kwargs"], config) == (1.0, True)
    assert "envfactory_episode" not in solver.extra_fields  # verl batches extra fields: no live objects left
    reward, success = finish({}, list(row["prompt"]), row["extra_info"]["tools_kwargs"], config)  # no call made
    assert (reward, success) == (0.0, False)
    json.dumps(row)  # rows are plain data for parquet


class _Scripted:
    """verl's LLM server manager, answering each turn with the next scripted text (a model that
    plays the gold plan in Hermes tool calls, then reports) as token ids."""

    def __init__(self, tokenizer: Any, turns: list[str]) -> None:
        self.tokenizer, self.turns = tokenizer, list(turns)

    async def generate(self, request_id: str, prompt_ids: list[int], sampling_params: dict, **_: Any) -> TokenOutput:
        text = (self.turns.pop(0) if self.turns else "I am done.") + "<|im_end|>"
        return TokenOutput(token_ids=self.tokenizer.encode(text, add_special_tokens=False))


def test_the_agent_loop_runs_verls_tool_loop_and_scores_the_trajectory_by_the_verdict(
    bundled_envs: dict[str, Environment], tmp_path: Path
) -> None:
    shop = bundled_envs["shop"]
    env_dir = shop.spec.save(tmp_path / "shop")
    task = next(t for t in generate_tasks(shop, 12, seed=0)[0] if t.goal.state_hash and not t.user.facts)
    write_tasks(tmp_path / "tasks.jsonl", [task])
    (tmp_path / "tools.yaml").write_text(yaml.safe_dump(tool_config(env_dir, tmp_path / "tasks.jsonl")))
    tools = ToolListWrap(initialize_tools_from_config(str(tmp_path / "tools.yaml")))
    weights = weights_file()  # the embedded model's tokenizer, with the Hermes tool template TRL uses
    tokenizer = with_tool_template(AutoTokenizer.from_pretrained(str(weights.parent), gguf_file=weights.name))
    multi_turn = {"max_user_turns": 10, "max_assistant_turns": 10, "max_parallel_calls": 1, "format": "hermes",
                  "max_tool_response_length": 2048, "tool_response_truncate_side": "middle"}  # fmt: skip
    rollout = {"prompt_length": 4096, "response_length": 4096, "full_determinism": True, "multi_turn": multi_turn}
    config = DictConfigWrap(OmegaConf.create({"actor_rollout_ref": {"rollout": rollout}}))
    row = dataset_rows([task])[0]
    gold = [f"<tool_call>\n{json.dumps({'name': c.tool, 'arguments': c.args})}\n</tool_call>" for c in task.gold]

    async def trajectory(turns: list[str]) -> Any:
        loop = EnvfactoryAgentLoop(trainer_config=config, server_manager=_Scripted(tokenizer, turns),
                                   tokenizer=tokenizer, processor=None, dataset_cls=None,
                                   data_config=DictConfigWrap(OmegaConf.create({})), tools=tools)  # fmt: skip
        return await loop.run({"temperature": 1.0}, raw_prompt=row["prompt"], extra_info=row["extra_info"],
                              tools_kwargs=row["extra_info"]["tools_kwargs"])  # fmt: skip

    solved = asyncio.run(trajectory([*gold, report(task)]))
    assert solved.reward_score == 1.0 and solved.extra_fields["envfactory_success"] is True
    assert solved.num_turns == 2 * len(task.gold) + 2  # prompt, each call and its answer, the report
    mask = solved.response_mask  # the model's tokens are trained on, the tools' answers are not
    assert 0 < sum(mask) < len(mask) and "envfactory_episode" not in solved.extra_fields
    idle = asyncio.run(trajectory([]))  # a model that calls nothing: the task is not done
    assert idle.reward_score == 0.0 and idle.extra_fields["envfactory_success"] is False


def test_the_readme_launch_command_is_verls_own_config_and_its_module_hook(tmp_path: Path) -> None:
    """What can be run of the README's verl launch without a GPU: its overrides compose into verl's own
    PPO config (which refuses unknown keys), and VERL_USE_EXTERNAL_MODULES makes a fresh verl process
    register envfactory's estimators and agent loop."""
    import os
    import subprocess
    import sys

    import verl
    from hydra import compose, initialize_config_dir
    from hydra.errors import ConfigCompositionException
    from tests.readme_blocks import blocks, commands, readme

    root = Path(__file__).resolve().parents[2]
    launch = next(b for b in blocks(readme(root)) if "verl.trainer.main_ppo" in b.code)
    words = commands(launch.code)[0]
    hook = next(w for w in words if w.startswith("VERL_USE_EXTERNAL_MODULES="))
    overrides = [w for w in words[1:] if "=" in w and not w.startswith("VERL_")]
    config_dir = str(Path(verl.__file__).parent / "trainer" / "config")
    with initialize_config_dir(config_dir=config_dir, version_base=None):
        config = compose("ppo_trainer", overrides=overrides)
        with pytest.raises(ConfigCompositionException):
            compose("ppo_trainer", overrides=["actor_rollout_ref.rollout.multi_turn.no_such_key=1"])
    rollout = config.actor_rollout_ref.rollout
    assert config.algorithm.adv_estimator == "envfactory_erpo" and rollout.agent.default_agent_loop == AGENT
    assert rollout.multi_turn.enable and rollout.multi_turn.tool_config_path == "tools.yaml"
    probe = ("import verl\nfrom verl.trainer.ppo.core_algos import ADV_ESTIMATOR_REGISTRY as A\n"
             "from verl.experimental.agent_loop.agent_loop import _agent_loop_registry as L\n"
             "print('envfactory_erpo' in A, 'envfactory_agent' in L)")  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(root / "src"), hook.split("=")[0]: hook.split("=", 1)[1]}
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.stdout.split() == ["True", "True"], done.stderr[-2000:]

"""envfactory environments in verl (``verl==0.9.1``, the ``verl`` extra; installed without its
training stack, whose pins conflict with this project's ``transformers``).

Three pieces, each through verl's own extension points:

- :func:`register_estimators` puts envfactory's ERPO (and Dr.GRPO and RLOO with user-error masks)
  into verl's advantage-estimator registry (``register_adv_est``), so
  ``algorithm.adv_estimator=envfactory_erpo`` trains with it. verl passes a custom estimator the
  token rewards, the response mask and the group ids only: a response whose mask is all zero (a
  trajectory the user spoiled, zeroed by the agent loop) is left out of every statistic, and
  ERPO's environment spread is the batch's (one environment per run).
- :class:`EnvfactoryTool`: a verl ``BaseTool`` per envfactory tool. verl creates and releases a
  tool instance around every call; the episode lives with the trajectory instead
  (``agent_data.extra_fields``), so all calls of one trajectory act on one episode and different
  trajectories never share one.
- :class:`EnvfactoryAgentLoop` (registered as ``envfactory_agent``): verl's tool agent loop,
  which at the end hands the model's last answer to the episode and sets the trajectory's
  reward to the task's verdict (``reward_score``), so no reward function is needed.

Importing this module registers both (the estimators and the agent loop), so a launch with
``VERL_USE_EXTERNAL_MODULES=envfactory.integrations.verl`` needs nothing else: verl imports the
listed modules in every process that imports verl, the driver and its Ray workers alike (the
README gives the whole ``python -m verl.trainer.main_ppo`` command line).

:func:`tool_config` and :func:`dataset_rows` write what verl's config and data files need::

    rows = dataset_rows(tasks)                    # parquet rows: prompt, agent_name, extra_info
    yaml.safe_dump(tool_config("envs/shop", "shop.jsonl"), open("tools.yaml", "w"))
    # actor_rollout_ref.rollout.multi_turn.tool_config_path=tools.yaml
    # algorithm.adv_estimator=envfactory_erpo
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import torch
from verl.experimental.agent_loop.agent_loop import AgentLoopOutput, register
from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
from verl.tools.base_tool import BaseTool
from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse
from verl.trainer.ppo.core_algos import ADV_ESTIMATOR_REGISTRY, register_adv_est

from envfactory.errors import EnvFactoryError
from envfactory.ir.task import Task
from envfactory.rl.advantages import ESTIMATORS
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.tasks.taskset import TaskSet

JSON = dict[str, Any]
EPISODE = "envfactory_episode"  # where a trajectory's episode waits between its tool calls
AGENT = "envfactory_agent"
_CACHE: dict[tuple[str, str], tuple[Environment, dict[str, Task]]] = {}
_LOCK = threading.Lock()


def _estimator(name: str) -> Any:
    estimate = ESTIMATORS[name]

    def compute(token_level_rewards: torch.Tensor, response_mask: torch.Tensor, index: np.ndarray | None = None,
                config: Any = None, **_: Any) -> tuple[torch.Tensor, torch.Tensor]:  # fmt: skip
        scores = token_level_rewards.sum(dim=-1).tolist()
        kept = (response_mask.sum(dim=-1) > 0).tolist()
        groups = list(index) if index is not None else list(range(len(scores)))
        extra = {"env_ids": [0] * len(scores)} if name == "erpo" else {}
        adv = torch.tensor(estimate(scores, groups, mask=kept, **extra), dtype=token_level_rewards.dtype)
        advantages = adv.unsqueeze(-1) * response_mask
        return advantages, advantages

    compute.__name__ = f"envfactory_{name}"
    return compute


def register_estimators() -> list[str]:
    """Register ``envfactory_erpo``, ``envfactory_dr_grpo`` and ``envfactory_rloo`` in verl's
    advantage-estimator registry (again is a no-op); their names."""
    names = []
    for name in ("erpo", "dr_grpo", "rloo"):
        key = f"envfactory_{name}"
        if key not in ADV_ESTIMATOR_REGISTRY:
            register_adv_est(key)(_estimator(name))
        names.append(key)
    return names


def _served(env_dir: str, tasks: str) -> tuple[Environment, dict[str, Task]]:
    with _LOCK:
        if (env_dir, tasks) not in _CACHE:
            env = Environment.load(Path(env_dir))
            _CACHE[(env_dir, tasks)] = env, {t.id: t for t in TaskSet(Path(tasks))}
        return _CACHE[(env_dir, tasks)]


def trajectory_episode(extra_fields: JSON, tools_kwargs: JSON, config: JSON) -> Episode:
    """The episode of one trajectory: made (and reset on the task its row names) at its first
    tool call, kept in ``extra_fields`` for the next."""
    episode = extra_fields.get(EPISODE)
    if episode is None:
        env, tasks = _served(str(config["env_dir"]), str(config["tasks"]))
        task_id = next((kw.get("create_kwargs", {}).get("task_id") for kw in tools_kwargs.values()
                        if isinstance(kw, dict) and kw.get("create_kwargs", {}).get("task_id")), None)  # fmt: skip
        if task_id not in tasks:
            raise KeyError(f"no task {task_id!r} in {config['tasks']} (tools_kwargs.*.create_kwargs.task_id)")
        episode = env.episode()
        episode.reset(task=tasks[task_id])
        extra_fields[EPISODE] = episode
    return episode


class EnvfactoryTool(BaseTool):
    """One envfactory tool, as verl's tool config declares it (``config: {type: native, env_dir,
    tasks}``); its calls act on the trajectory's episode."""

    def __init__(self, config: JSON, tool_schema: OpenAIFunctionToolSchema) -> None:
        super().__init__(config, tool_schema)

    async def execute(self, instance_id: str, parameters: JSON, **kwargs: Any) -> tuple[ToolResponse, float, JSON]:
        agent_data = kwargs.get("agent_data")
        if agent_data is None or not hasattr(agent_data, "extra_fields"):
            raise EnvFactoryError(
                f"EnvfactoryTool {self.name!r} runs inside verl's tool agent loop (agent_name: {AGENT}, "
                "or tool_agent), which passes agent_data=: the trajectory whose episode its calls act on"
            )
        episode = trajectory_episode(agent_data.extra_fields, agent_data.tools_kwargs, self.config)
        result = episode.call_tool(self.name, parameters)
        return ToolResponse(text=result.content), 0.0, {"ok": result.ok}


def finish(extra_fields: JSON, messages: list[JSON], tools_kwargs: JSON, config: JSON) -> tuple[float, bool]:
    """End a trajectory's episode with the model's last answer; ``(reward, success)``. The episode
    leaves ``extra_fields`` (verl batches them as arrays)."""
    episode = extra_fields.pop(EPISODE, None) or trajectory_episode({}, tools_kwargs, config)
    if not episode.done:
        answer = next((m.get("content") for m in reversed(messages)
                       if m.get("role") == "assistant" and not m.get("tool_calls")), None)  # fmt: skip
        episode.act({"role": "assistant", "content": answer if isinstance(answer, str) else ""})
    verdict = episode.verify()
    return verdict.reward, verdict.success


@register(AGENT)
class EnvfactoryAgentLoop(ToolAgentLoop):
    """verl's tool agent loop with the task's verdict as the trajectory's reward. Its tools are
    :class:`EnvfactoryTool`; the environment and tasks come from their config."""

    _agent_data: Any = None

    async def _handle_pending_state(self, agent_data: Any, sampling_params: JSON) -> Any:
        self._agent_data = agent_data  # one loop per trajectory: keep its messages for the verdict
        return await super()._handle_pending_state(agent_data, sampling_params)

    async def run(self, sampling_params: JSON, priority: int = 0, **kwargs: Any) -> AgentLoopOutput:
        output = await super().run(sampling_params, priority, **kwargs)
        config = next((t.config for t in self.tools.values() if isinstance(t, EnvfactoryTool)), None)
        if config is None:
            raise ValueError(f"{AGENT}: no EnvfactoryTool in the tool config")
        messages = self._agent_data.messages if self._agent_data is not None else []
        reward, success = finish(output.extra_fields, messages, kwargs.get("tools_kwargs", {}), config)
        output.reward_score = reward
        output.extra_fields["envfactory_success"] = success
        return output


def tool_config(env_dir: str | Path, tasks: str | Path) -> JSON:
    """verl's tool config (``multi_turn.tool_config_path``) for every tool of the environment."""
    env = Environment.load(Path(env_dir))
    episode = env.episode()
    config = {"type": "native", "env_dir": str(Path(env_dir).resolve()), "tasks": str(Path(tasks).resolve())}
    return {"tools": [{"class_name": f"{__name__}.EnvfactoryTool", "config": config, "tool_schema": schema}
                      for schema in episode.tools]}  # fmt: skip


def dataset_rows(tasks: list[Task], data_source: str = "envfactory") -> list[JSON]:
    """One verl data row per task: the opening messages, the agent loop, and the task id every
    tool's ``create_kwargs`` carries (the tool config's tools)."""
    rows = []
    for task in tasks:
        kwargs = {"envfactory": {"create_kwargs": {"task_id": task.id}}}
        rows.append({"data_source": data_source, "agent_name": AGENT,
                     "prompt": [{"role": "user", "content": task.instruction}],
                     "reward_model": {"style": "rule", "ground_truth": task.id},
                     "extra_info": {"task_id": task.id, "tools_kwargs": kwargs}})  # fmt: skip
    return rows


register_estimators()  # importing this module is all verl's processes need (VERL_USE_EXTERNAL_MODULES=<it>)

__all__ = ["AGENT", "EnvfactoryAgentLoop", "EnvfactoryTool", "dataset_rows", "finish", "register_estimators",
           "tool_config", "trajectory_episode"]  # fmt: skip

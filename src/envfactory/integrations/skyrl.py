"""envfactory environments for SkyRL's text-in / text-out gym (``skyrl-gym``, the ``skyrl`` extra).

``register()`` makes ``skyrl_gym.make("envfactory", env_config={"env_dir": ..., "tasks": ...},
extras={"task_id": ...})`` return :class:`EnvfactoryTextEnv`: one episode per instance (SkyRL
makes one per trajectory). ``init`` starts the task and returns the prompt — the tools and the
``<tool_call>`` format in its system turn, then the request; each ``step`` takes the model's text, reads
tool calls from it (``<tool_call>{...}</tool_call>``, repaired like the embedded model's; or plain
words for the user), acts them out, and answers the tool results as a user turn; the reward is the
task's verdict when the episode ends.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput

from envfactory.ir.task import Task
from envfactory.llm.toolcalls import FORMAT, describe_tools, parse_tool_calls
from envfactory.runtime.environment import Environment
from envfactory.tasks.taskset import TaskSet
from envfactory.users.scripted import ScriptedUser

JSON = dict[str, Any]
ENV_ID = "envfactory"
_LOADED: dict[tuple[str, str], tuple[Environment, dict[str, Task]]] = {}
_LOCK = threading.Lock()


def _load(env_dir: str, tasks: str) -> tuple[Environment, dict[str, Task]]:
    """Environments and task files are loaded once per process, however many episodes use them."""
    with _LOCK:
        if (env_dir, tasks) not in _LOADED:
            _LOADED[(env_dir, tasks)] = (Environment.load(Path(env_dir)), {t.id: t for t in TaskSet(tasks)})
        return _LOADED[(env_dir, tasks)]


def _get(config: Any, key: str) -> Any:
    return config.get(key) if hasattr(config, "get") else getattr(config, key)


class EnvfactoryTextEnv(BaseTextEnv):
    def __init__(self, env_config: Any, extras: dict[str, Any] | None = None) -> None:
        super().__init__()
        extras = extras or {}
        self.env, tasks = _load(str(_get(env_config, "env_dir")), str(_get(env_config, "tasks")))
        task_id = extras.get("task_id")
        if task_id not in tasks:
            raise ValueError(f"no task {task_id!r} in {_get(env_config, 'tasks')}")
        self.task = tasks[task_id]
        self.episode = self.env.episode(user=ScriptedUser())
        self.max_turns = self.task.max_steps or 20
        self.names = [t["function"]["name"] for t in self.env.openai_tools]

    def init(self, prompt: list[JSON]) -> tuple[list[JSON], dict[str, Any]]:
        """The conversation the model starts from: a system turn that lists the tools and spells out the
        ``<tool_call>`` format ``step`` reads (SkyRL renders no tools of its own), then the request —
        the dataset's ``prompt`` where given, else the episode's opening."""
        opening = self.episode.reset(task=self.task)
        turns = [dict(m) for m in (prompt or opening)]
        system = "\n\n".join(str(m.get("content") or "") for m in turns if m.get("role") == "system")
        head = [system or "You are a helpful agent. Use the tools, then answer the user.",
                "Tools you can call:\n" + describe_tools(self.env.openai_tools), FORMAT]  # fmt: skip
        rest = [m for m in turns if m.get("role") != "system"]
        return [{"role": "system", "content": "\n\n".join(head)}, *rest], {"tools": self.env.openai_tools}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        self.turns += 1
        message, repairs = parse_tool_calls(action, self.names)
        answers = self.episode.act(message)
        lines = []
        for answer in answers:
            lines.append(f"Tool result: {answer['content']}" if answer["role"] == "tool" else answer["content"])
        done = self.episode.done or self.turns >= self.max_turns
        reward = self.episode.verify().reward if done else 0.0
        observations = [{"role": "user", "content": "\n".join(lines)}] if lines and not done else []
        return BaseTextEnvStepOutput(observations=observations, reward=reward, done=done,
                                     metadata={"repairs": list(repairs)}, postprocessed_action=action)  # fmt: skip


def register(env_id: str = ENV_ID) -> None:
    """Make ``skyrl_gym.make(env_id, env_config=..., extras=...)`` build envfactory episodes."""
    import skyrl_gym

    if env_id not in skyrl_gym.registry:
        skyrl_gym.register(id=env_id, entry_point="envfactory.integrations.skyrl:EnvfactoryTextEnv")


__all__ = ["ENV_ID", "EnvfactoryTextEnv", "register"]

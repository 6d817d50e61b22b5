"""ToolEnv: a Gymnasium adapter over an Episode (text observations, JSON tool calls as actions).

Action (a JSON string), any of:
  ``{"name": "get_order", "arguments": {"order_id": "order_0003"}}``      one tool call
  ``{"role": "assistant", "tool_calls": [...]}``                           an OpenAI message
  ``{"content": "Your order is cancelled."}``                              a reply to the user
Observation: JSON text of the messages the action produced. The reward is the verifier's,
given when the episode ends; malformed actions are observations, never exceptions.
"""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium
from gymnasium import spaces

from envfactory.core import EpisodeLike
from envfactory.ir.env import EnvSpec
from envfactory.ir.task import Task
from envfactory.runtime.canonical import NotCanonical, parse_json, safe_repr, safe_text
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.tasks.taskset import TaskSet
from envfactory.users.scripted import ScriptedUser

JSON = dict[str, Any]
MAX_TEXT = 32_768
CHARSET = string.printable
_UNPRINTABLE = re.compile(f"[^{re.escape(CHARSET)}]")


class ToolEnv(gymnasium.Env[str, str]):
    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012 - gymnasium's convention

    def __init__(
        self,
        env: Environment | EnvSpec | str | Path,
        *,
        tasks: list[Task] | str | Path | None = None,
        max_steps: int | None = None,
        render_mode: str | None = None,
        randomization: Any = None,
    ) -> None:
        if isinstance(env, (str, Path)):
            env = Environment.load(env)
        elif isinstance(env, EnvSpec):
            env = Environment(env)
        self.environment = env
        self.tasks = list(TaskSet(tasks) if isinstance(tasks, (str, Path)) else tasks or [])
        self.base: Episode = env.episode(max_steps=max_steps, user=ScriptedUser())
        self.episode: EpisodeLike = self.base  # the base episode, or randomization wrappers around it
        self.randomization = randomization
        self.render_mode = render_mode
        self.observation_space = spaces.Text(max_length=MAX_TEXT, charset=CHARSET)
        self.action_space = spaces.Text(max_length=MAX_TEXT, charset=CHARSET)
        self._last = ""

    @property
    def tools(self) -> list[JSON]:
        """The tools in OpenAI ``tools=[...]`` form, to put in the agent's prompt."""
        return self.episode.tools

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, JSON]:
        super().reset(seed=seed)
        options = options or {}
        task = options.get("task")
        if task is None and self.tasks:
            task = self.tasks[int(self.np_random.integers(len(self.tasks)))]
        episode_seed = seed if seed is not None else int(self.np_random.integers(2**31))
        if self.randomization is not None:
            from envfactory.wrappers import randomize

            self.episode = randomize(self.base, self.randomization, episode_seed)
        messages = self.episode.reset(task=task, seed=task.seed if task is not None else episode_seed)
        info = {
            "tools": self.tools,
            "task_id": task.id if task is not None else None,
            "randomization": getattr(self.episode, "randomization", {}),
        }
        return self._observe(messages), info

    def step(self, action: str) -> tuple[str, SupportsFloat, bool, bool, JSON]:
        messages, error = self._act(action)
        ep = self.episode
        if error is not None:  # a malformed action still spends a step
            messages = [{"role": "tool", "content": ep.reject(error).content}]
        reward = 0.0
        info: JSON = {"steps": ep.steps}
        if ep.done:
            verdict = ep.verify()
            reward = verdict.reward
            info["verdict"] = verdict.model_dump()
        return (
            self._observe(messages),
            reward,
            ep.terminated,
            ep.truncated and not ep.terminated,
            info,
        )

    def _act(self, action: Any) -> tuple[list[JSON], str | None]:
        if self.episode.done:
            return [], "the episode is over; call reset()"
        parsed, error = _parse_action(action)
        if error is not None:
            return [], error
        if not isinstance(parsed, dict):
            return [], "the action must be a JSON object"
        if "tool_calls" in parsed or "content" in parsed:
            return self.episode.act(parsed), None
        if "name" in parsed:
            result = self.episode.call_tool(parsed["name"], parsed.get("arguments"))
            name = parsed["name"]
            shown = safe_text(name, 200) if isinstance(name, str) else safe_repr(name)
            return [{"role": "tool", "name": shown, "content": result.content}], None
        return [], "unrecognised action: expected 'name', 'tool_calls' or 'content'"

    def _observe(self, messages: list[JSON]) -> str:
        text = json.dumps(messages, ensure_ascii=True) if messages else "[]"
        text = _UNPRINTABLE.sub("?", text)
        if len(text) > MAX_TEXT:
            text = text[: MAX_TEXT - 20] + '..."(truncated)"]'
        self._last = text
        return text

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._last
        if self.render_mode == "human":
            print(self._last)
        return None


def _parse_action(action: Any) -> tuple[Any, str | None]:
    if isinstance(action, dict):  # callers in Python may skip the JSON text
        return action, None
    if not isinstance(action, str):
        return None, "the action must be JSON text"
    try:
        return parse_json(action), None
    except NotCanonical as err:
        return (
            None,
            f"the action must be JSON ({err}): a tool call {{name, arguments}}, an assistant message, or {{content}}",
        )


# -- registration: gymnasium.make("envfactory/<name>") ---------------------------------------
DRAWN_TASKS = 30  # tasks drawn for an environment that comes without any


def drawn_tasks(env: Environment, n: int = DRAWN_TASKS, seed: int = 0) -> list[Task]:
    """Self-tested tasks for ``env`` (seeded: the same ones every time), for ``reset`` to draw from."""
    from envfactory.tasks.generate import generate_tasks

    return generate_tasks(env, n, seed=seed)[0]


def make_from_dir(path: str, tasks: list[Task] | str | Path | None = None, **kwargs: Any) -> ToolEnv:
    """``gymnasium.make`` of a registered folder: ``tasks`` given (a list or a JSON-lines file), else the
    folder's own ``tasks.jsonl``, else :data:`DRAWN_TASKS` drawn for it."""
    env = Environment.load(path)
    if tasks is None:
        own = Path(path) / "tasks.jsonl"
        tasks = own if own.is_file() else drawn_tasks(env)
    return ToolEnv(env, tasks=tasks, **kwargs)


def register_env_dir(path: str | Path, env_id: str | None = None) -> str:
    """Register a synthesized environment directory; returns the id for ``gymnasium.make``."""
    spec = EnvSpec.load(path)
    env_id = env_id or f"envfactory/{spec.name}"
    if env_id not in gymnasium.registry:
        gymnasium.register(
            env_id, entry_point="envfactory.gym_env:make_from_dir", kwargs={"path": str(path)},
            disable_env_checker=True,
        )  # fmt: skip
    return env_id


__all__ = ["DRAWN_TASKS", "ToolEnv", "drawn_tasks", "make_from_dir", "register_env_dir"]

"""envfactory environments for TRL's ``GRPOTrainer(environment_factory=...)`` (the ``trl`` extra).

TRL wants a class whose public methods are the tools (typed signatures and Google-style
docstrings, from which it renders the tool schemas), a ``reset(**example)`` that starts an
episode and returns text for the prompt, and a ``get_reward()`` read after the rollout.
``environment_factory(env, tasks)`` builds such a class from an environment: one method per tool,
with the signature its JSON schema gives; ``reset(task_id=...)`` starts the episode on that task;
``get_reward()`` is the task's verdict (final state and answer facts). ``task_dataset(tasks)`` is
the matching training set: one row per task with its instruction as the prompt::

    from trl import GRPOConfig, GRPOTrainer
    from envfactory.integrations.trl import environment_factory, task_dataset

    trainer = GRPOTrainer(model="...", args=GRPOConfig(...), train_dataset=task_dataset(tasks),
                          environment_factory=environment_factory(env, tasks))
"""

from __future__ import annotations

import inspect
import keyword
import re
from collections.abc import Callable
from typing import Any

from envfactory.ir.task import Task
from envfactory.ir.tool import ToolSpec
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.users.scripted import ScriptedUser

JSON = dict[str, Any]
_PY_TYPES: dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list,
                              "object": dict}  # fmt: skip
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class EnvfactoryEnvironment:
    """The base of the generated classes: the episode, its reset and its reward."""

    env: Environment
    tasks: dict[str, Task]

    def __init__(self) -> None:
        self.episode: Episode = self.env.episode(user=ScriptedUser())

    def reset(self, task_id: str | None = None, **example: Any) -> str | None:
        task = self.tasks.get(task_id) if task_id is not None else None
        self.episode.reset(task=task)
        return None  # the dataset's prompt already holds the instruction

    def get_reward(self) -> float:
        """The task's verdict on the episode's final state. TRL does not hand the model's last words to
        the environment, so the episode closes with a plain "All done." (answer facts the model wrote
        in its final message are not seen: tasks that ask for an answer score on their state only)."""
        if not self.episode.done:
            self.episode.respond("All done.")
        return self.episode.verify().reward

    def _call(self, tool: str, arguments: JSON) -> str:
        given = {k: v for k, v in arguments.items() if v is not None}
        return self.episode.call_tool(tool, given).content


def _tool_method(tool: ToolSpec) -> Callable[..., str] | None:
    props: JSON = tool.input_schema.get("properties") or {}
    required = set(tool.required)
    if not _IDENTIFIER.match(tool.name) or any(not _IDENTIFIER.match(p) or keyword.iskeyword(p) for p in props):
        return None  # TRL calls tools by Python name and keyword arguments
    ordered = [p for p in props if p in required] + [p for p in props if p not in required]
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {}
    docs = []
    for name in ordered:
        schema = props[name] if isinstance(props[name], dict) else {}
        declared = schema.get("type")
        typ = _PY_TYPES.get(declared if isinstance(declared, str) else "string", str)
        annotations[name] = typ if name in required else typ | None
        default = inspect.Parameter.empty if name in required else None
        params.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default,
                                        annotation=annotations[name]))  # fmt: skip
        about = " ".join(str(schema.get("description") or name.replace("_", " ")).split())
        docs.append(f"        {name}: {about}")
    name = tool.name

    def method(self: EnvfactoryEnvironment, *args: Any, **kwargs: Any) -> str:
        bound = method.__signature__.bind(self, *args, **kwargs)  # type: ignore[attr-defined]
        values = {k: v for k, v in bound.arguments.items() if k != "self"}
        return self._call(name, values)

    description = " ".join((tool.description or f"Call {name}.").split())
    method.__name__ = method.__qualname__ = name
    args_doc = "\n\n    Args:\n" + "\n".join(docs) if docs else ""
    method.__doc__ = f"{description}{args_doc}\n\n    Returns:\n        The tool's answer as JSON text."
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = {**annotations, "return": str}
    return method


def environment_factory(env: Environment, tasks: list[Task] | dict[str, Task]) -> type[EnvfactoryEnvironment]:
    """A class TRL instantiates once per rollout slot: one method per tool of ``env``."""
    by_id = tasks if isinstance(tasks, dict) else {t.id: t for t in tasks}
    namespace: JSON = {"env": env, "tasks": by_id, "__doc__": f"The {env.name} environment (envfactory)."}
    for tool in env.spec.tools.tools:
        method = _tool_method(tool)
        if method is not None and tool.name not in ("reset", "get_reward"):
            namespace[tool.name] = method
    class_name = "".join(w.capitalize() for w in re.split(r"[^A-Za-z0-9]+", env.name) if w) + "Environment"
    return type(class_name or "Environment", (EnvfactoryEnvironment,), namespace)


def task_dataset(tasks: list[Task], system: str | None = None) -> Any:
    """A ``datasets.Dataset`` with a conversational ``prompt`` (a system line, the instruction) and
    the ``task_id`` ``reset`` reads."""
    from datasets import Dataset

    def prompt(task: Task) -> list[JSON]:
        line = system or f"You are a helpful agent working with the {task.env} tools. Use them, then reply."
        return [{"role": "system", "content": line}, {"role": "user", "content": task.instruction}]

    return Dataset.from_list([{"prompt": prompt(t), "task_id": t.id} for t in tasks])


def with_tool_template(tokenizer: Any) -> Any:
    """Give a ChatML tokenizer whose template cannot render tool calls (SmolLM2's) the Qwen2.5
    template, which can and whose ``<tool_call>`` format TRL knows how to parse; same special tokens. A
    tokenizer whose template already renders tools is returned as it is."""
    template = tokenizer.chat_template or ""
    if "tools" in template:  # it renders tools already: leave it as it is
        return tokenizer
    from trl.chat_template_utils import qwen2_5_chat_template

    if "<|im_start|>" not in template:
        raise ValueError("with_tool_template only suits ChatML tokenizers (<|im_start|> ... <|im_end|>)")
    tokenizer.chat_template = qwen2_5_chat_template
    return tokenizer


__all__ = ["EnvfactoryEnvironment", "environment_factory", "task_dataset", "with_tool_template"]

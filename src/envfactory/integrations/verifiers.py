"""envfactory environments in verifiers (``verifiers==0.4.0``, its v1 stack).

verifiers runs OpenEnv environments through its bundled OpenEnv taskset: the model's reply is
parsed as an OpenEnv action (here a :class:`~envfactory.integrations.openenv.ToolCallAction`
in JSON), each observation comes back as the next user turn, and the rewards of the steps are
summed — envfactory's is the task's verdict, on the step that ends the episode. So a served
environment is a verifiers taskset with one task per envfactory task::

    envfactory serve envs/shop --tasks shop.jsonl --port 8000
    from envfactory.integrations.verifiers import taskset
    tasks = taskset("http://127.0.0.1:8000", shop_tasks)      # verifiers' OpenEnvTaskset

verifiers pins ``mcp==2.0.0`` and ``openai<3``, which this project's language-model code is past,
so it lives in its own environment (``tests/trainers/verifiers``, built by ``make test``); this
module imports it only when :func:`taskset` is called.
"""

from __future__ import annotations

from typing import Any

from envfactory.ir.task import Task

JSON = dict[str, Any]


def openenv_config(base_url: str, tasks: list[Task]) -> JSON:
    """The arguments of verifiers' ``OpenEnvConfig``: the server, and one reset per task."""
    return {"base_url": base_url.rstrip("/"), "resets": [{"task_id": t.id} for t in tasks]}


def taskset(base_url: str, tasks: list[Task]) -> Any:
    """verifiers' ``OpenEnvTaskset`` over the envfactory server at ``base_url``, one task each."""
    from verifiers.v1.tasksets.openenv import OpenEnvConfig, OpenEnvTaskset

    return OpenEnvTaskset(OpenEnvConfig(**openenv_config(base_url, tasks)))


__all__ = ["openenv_config", "taskset"]

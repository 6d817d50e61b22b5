"""envfactory environments in verifiers (``verifiers==0.4.0``, its v1 stack).

verifiers runs OpenEnv environments through its bundled OpenEnv taskset: the model's reply is
parsed as an OpenEnv action (here a :class:`~envfactory.integrations.openenv.ToolCallAction`
in JSON), each observation comes back as the next user turn, and the rewards of the steps are
summed — envfactory's is the task's verdict, on the step that ends the episode. So a served
environment is a verifiers taskset with one task per envfactory task, named by its id::

    envfactory serve envs/shop --tasks shop.jsonl --port 8000
    from envfactory.integrations.verifiers import taskset
    tasks = taskset("http://127.0.0.1:8000", "shop.jsonl")    # verifiers' OpenEnvTaskset

verifiers pins ``mcp==2.0.0`` and ``openai<3``, which this project's language-model code is past,
so it lives in its own environment (``tests/trainers/verifiers/python``, built by ``make test``,
which also puts this checkout's ``src`` on its path); this module imports it only when
:func:`taskset` is called.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from envfactory.ir.task import Task

JSON = dict[str, Any]


def _ids(tasks: Sequence[Task | str] | str | Path) -> list[str]:
    if isinstance(tasks, (str, Path)):
        from envfactory.tasks.taskset import TaskSet

        return [t.id for t in TaskSet(tasks)]
    return [t if isinstance(t, str) else t.id for t in tasks]


def openenv_config(base_url: str, tasks: Sequence[Task | str] | str | Path) -> JSON:
    """The arguments of verifiers' ``OpenEnvConfig``: the server, and one reset per task (tasks, their
    ids, or a task file)."""
    return {"base_url": base_url.rstrip("/"), "resets": [{"task_id": i} for i in _ids(tasks)]}


def taskset(base_url: str, tasks: Sequence[Task | str] | str | Path) -> Any:
    """verifiers' ``OpenEnvTaskset`` over the envfactory server at ``base_url``, one task each, each
    named by its envfactory task id (verifiers' own names are ``URL#index``)."""
    from verifiers.v1.tasksets.openenv import OpenEnvConfig, OpenEnvTaskset

    class EnvfactoryTaskset(OpenEnvTaskset):  # type: ignore[misc, valid-type]
        def load(self) -> Iterator[Any]:
            for task in super().load():
                yield task.with_data(name=task.data.reset["task_id"])

    return EnvfactoryTaskset(OpenEnvConfig(**openenv_config(base_url, tasks)))


__all__ = ["openenv_config", "taskset"]

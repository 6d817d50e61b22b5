"""Function lists written in the BFCL style (one JSON function per line), for synthesis tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envfactory.ingest import load
from envfactory.ir.env import EnvSpec
from envfactory.ir.task import Task
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check
from envfactory.tasks.generate import generate_tasks

JSON = dict[str, Any]
STR = {"type": "string"}


def function(name: str, description: str, props: JSON, required: list[str], response: JSON) -> JSON:
    """One function as BFCL publishes it: ``parameters`` of type ``dict`` and a ``response``."""
    return {"name": name, "description": description,
            "parameters": {"type": "dict", "properties": props, "required": required},
            "response": {"type": "dict", "properties": response}}  # fmt: skip


def synthesize_functions(tmp_path: Path, name: str, functions: list[JSON], **options: Any) -> EnvSpec:
    """Write ``functions`` as JSON lines and synthesize an environment from them (``options``:
    :func:`~envfactory.synth.synthesize`'s, ``state="empty"`` say)."""
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(json.dumps(f) for f in functions))
    return synthesize(path, name=name, **options)


def synthesize_tools(tmp_path: Path, name: str, tools: list[JSON], **options: Any) -> EnvSpec:
    """Write ``tools`` as an MCP tool list (``{"tools": [...]}``, ``inputSchema`` and all) and
    synthesize an environment from it, with no starting records unless ``options`` say otherwise."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"tools": tools}))
    return synthesize(load(path), name=name, **{"state": "empty", **options})


def checked_tasks(spec: EnvSpec, n: int) -> tuple[Environment, list[Task]]:
    """The environment of ``spec`` after its self-check passed, and ``n`` tasks generated on it."""
    env = Environment(spec)
    report = self_check(spec, env=env)
    assert report.passed, report.failures
    return env, generate_tasks(env, n, seed=0)[0]

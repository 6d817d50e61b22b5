"""verifiers (0.4.0, the real library, in its own environment: it pins mcp==2.0.0 and openai<3):
its OpenEnv taskset loads one task per envfactory task from `openenv_config`, and plays them
against a served envfactory environment the way its OpenEnvEnv does — the gold replies earn the
verdict's reward, an empty answer none."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.integrations.serving import running

from envfactory.integrations.openenv import make_app
from envfactory.integrations.verifiers import openenv_config
from envfactory.runtime.environment import Environment
from envfactory.tasks.agents import report
from envfactory.tasks.generate import generate_tasks
from envfactory.tasks.taskset import write_tasks

VERIFIERS = Path(__file__).resolve().parents[1] / "trainers" / "verifiers"
PYTHON = VERIFIERS / "python" / "bin" / "python"
SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(scope="module")
def served(bundled_envs: dict[str, Environment], tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    shop = bundled_envs["shop"]
    env_dir = shop.spec.save(tmp_path_factory.mktemp("vf") / "shop")
    tasks = [t for t in generate_tasks(shop, 12, seed=0)[0] if not t.user.facts][:3]
    with running(make_app(Path(env_dir), {t.id: t for t in tasks})) as url:
        yield url, tasks


def _reply(tool: str, args: dict) -> str:
    """A model's reply as verifiers hands it to OpenEnv: the action, in JSON."""
    call = {"id": "c", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}
    return json.dumps({"tool_calls": [call]})


def test_verifiers_plays_served_tasks_through_its_openenv_taskset(served: tuple, tmp_path: Path) -> None:
    assert PYTHON.is_file(), f"verifiers' environment is missing: run `make test` (it builds {PYTHON.parent.parent})"
    url, tasks = served
    config = openenv_config(url + "/", tasks)
    assert config == {"base_url": url, "resets": [{"task_id": t.id} for t in tasks]}
    write_tasks(tmp_path / "tasks.jsonl", tasks)
    assert openenv_config(url, tmp_path / "tasks.jsonl") == config == openenv_config(url, [t.id for t in tasks])
    gold = {t.id: [*(_reply(c.tool, c.args) for c in t.gold), json.dumps({"content": report(t)})] for t in tasks}
    idle = {t.id: [json.dumps({"content": "I could not do it."})] for t in tasks}
    (tmp_path / "config.json").write_text(json.dumps(config))
    for replies, expected in ((gold, 1.0), (idle, 0.0)):
        (tmp_path / "replies.json").write_text(json.dumps(replies))
        argv = [str(PYTHON), str(VERIFIERS / "probe.py"), str(tmp_path / "config.json"), str(tmp_path / "replies.json")]
        done = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(SRC)})
        assert done.returncode == 0, done.stderr[-2000:]
        rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        assert [r["reset"]["task_id"] for r in rows] == [t.id for t in tasks]
        assert [r["name"] for r in rows] == [t.id for t in tasks]  # named by the task, not the server's URL
        assert all(r["reward"] == expected for r in rows), rows

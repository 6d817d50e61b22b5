"""Tasks and trajectories exported as a dataset that Hugging Face `datasets` loads."""

from __future__ import annotations

import json
from pathlib import Path

from datasets import load_dataset

from envfactory.eval.runner import evaluate
from envfactory.export import export_dataset
from envfactory.rl.policy import GoldPolicy
from envfactory.runtime.environment import Environment
from envfactory.tasks.generate import generate_tasks


def test_tasks_and_trajectories_load_with_datasets(shop: Environment, tmp_path: Path) -> None:
    tasks = generate_tasks(shop, 5, seed=0)[0]
    trajs = evaluate(shop, tasks, lambda s: GoldPolicy(), keep_messages=True)
    out = export_dataset(tmp_path / "ds", tasks=tasks, trajectories=trajs, env=shop, name="shop tasks")
    loaded = load_dataset(str(out), "tasks", split="train")
    assert loaded.num_rows == 5 and loaded[0]["id"] == tasks[0].id
    assert json.loads(loaded[0]["gold"]) == [c.model_dump(mode="json") for c in tasks[0].gold]
    assert {t["function"]["name"] for t in json.loads(loaded[0]["tools"])} == set(shop.spec.tools.names)
    runs = load_dataset(str(out), "trajectories", split="train")
    assert runs.num_rows == 5 and all(runs["success"]) and json.loads(runs[0]["messages"])[1]["role"] == "user"
    as_json = load_dataset("json", data_files=str(out / "tasks.jsonl"), split="train")
    assert as_json.num_rows == 5
    card = (out / "README.md").read_text()
    assert card.startswith("---\nconfigs:") and "# shop tasks" in card and "success 100.0%" in card

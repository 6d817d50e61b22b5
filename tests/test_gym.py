import json
import random
import string
import warnings
from pathlib import Path

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import envfactory
from envfactory.bundled import BUNDLED
from envfactory.gym_env import ToolEnv, register_env_dir
from envfactory.ir.env import EnvSpec
from envfactory.ir.task import Goal, Task
from envfactory.runtime.environment import Environment
from envfactory.tasks.agents import report
from envfactory.tasks.taskset import write_tasks


@pytest.mark.parametrize("name", list(BUNDLED))
def test_check_env_passes_on_every_bundled_environment(name: str, bundled_envs: dict[str, Environment]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gymnasium's checker reports problems as warnings
        warnings.filterwarnings("ignore", message=".*render.*")
        check_env(ToolEnv(bundled_envs[name]), skip_render_check=True)


def test_gymnasium_make_finds_bundled_environments() -> None:
    assert envfactory.__version__
    env = gymnasium.make("envfactory/library")
    obs, info = env.reset(seed=0)
    assert json.loads(obs)[0]["role"] == "system"
    assert {t["function"]["name"] for t in info["tools"]} >= {"searchBooks", "createLoan"}
    obs, reward, terminated, _truncated, _ = env.step(
        json.dumps({"name": "getBook", "arguments": {"bookId": "book_0001"}})
    )
    assert '"book_0001"' in json.loads(obs)[0]["content"] and reward == 0.0 and not terminated


def test_gymnasium_make_draws_a_task_bundled_or_given(tmp_path: Path) -> None:
    env = gymnasium.make("envfactory/shop")
    obs, info = env.reset(seed=0)
    drawn = {t.id: t for t in env.unwrapped.tasks}  # type: ignore[attr-defined]
    assert len(drawn) >= 10 and info["task_id"] in drawn
    assert json.loads(obs)[-1]["content"] == drawn[info["task_id"]].instruction  # the task, not a stock greeting
    assert "Please help me with my request" not in obs
    assert len({env.reset(seed=s)[1]["task_id"] for s in range(8)}) > 1  # draws vary with the seed
    chosen = list(drawn.values())[:2]
    write_tasks(tmp_path / "two.jsonl", chosen)
    given = gymnasium.make("envfactory/shop", tasks=str(tmp_path / "two.jsonl"))
    assert {given.reset(seed=s)[1]["task_id"] for s in range(6)} <= {t.id for t in chosen}
    task = chosen[1]
    _, info = env.reset(options={"task": task})
    for call in task.gold:
        env.step(json.dumps({"name": call.tool, "arguments": call.args}))
    *_, info = env.step(json.dumps({"content": report(task)}))
    assert info["verdict"]["success"] is True


def test_registering_a_synthesized_folder(bundled_specs: dict[str, EnvSpec], tmp_path: Path) -> None:
    path = bundled_specs["notes"].save(tmp_path / "notes")
    env_id = register_env_dir(path, "envfactory-test/notes")
    env = gymnasium.make(env_id)
    env.reset(seed=1)
    obs, *_ = env.step('{"name": "list_notebooks", "arguments": {}}')
    assert "notebook_0001" in obs


def test_malformed_and_random_actions_are_observations(bundled_envs: dict[str, Environment]) -> None:
    env = ToolEnv(bundled_envs["shop"], max_steps=200)
    env.reset(seed=0)
    rng = random.Random(0)
    actions = [
        "",
        "{",
        "[]",
        "null",
        '{"name": 3}',
        '{"tool_calls": "x"}',
        '{"name": "get_order", "arguments": 7}',
    ]
    actions += ["".join(rng.choice(string.printable) for _ in range(rng.randint(1, 300))) for _ in range(100)]
    for action in actions:
        obs, reward, _terminated, _truncated, _ = env.step(action)
        assert env.observation_space.contains(obs) and reward == 0.0
        assert "error" in obs
    assert env.episode.steps == len(actions)


def test_reply_ends_the_episode_with_the_verifier_reward(bundled_envs: dict[str, Environment]) -> None:
    env = bundled_envs["petstore"]
    task = Task(env="petstore", id="t", instruction="Tell me the first pet's name.",
                goal=Goal(answer=(env.spec.initial_state["pet"][0]["name"],)))  # fmt: skip
    gym_env = ToolEnv(env, tasks=[task])
    obs, info = gym_env.reset(seed=4)
    assert info["task_id"] == "t" and task.instruction in obs
    name = env.spec.initial_state["pet"][0]["name"]
    obs, reward, terminated, truncated, info = gym_env.step(json.dumps({"content": f"It is {name}."}))
    assert terminated and not truncated and reward == 1.0 and info["verdict"]["success"]


def test_budget_truncates(bundled_envs: dict[str, Environment]) -> None:
    env = ToolEnv(bundled_envs["petstore"], max_steps=2)
    env.reset()
    env.step("nope")
    *_, terminated, truncated, info = env.step("nope")
    assert truncated and not terminated and "verdict" in info

import pytest

from envfactory.eval.metrics import breakdown, pass_hat_k, summarize
from envfactory.eval.runner import evaluate, robustness
from envfactory.rl.actions import Memory, candidates
from envfactory.rl.policy import GoldPolicy, NoopPolicy
from envfactory.rl.rollout import Trajectory
from envfactory.runtime.environment import Environment
from envfactory.tasks.generate import generate_tasks


def traj(task: str, ok: bool, level: int = 1, steps: int = 2, errors: int = 0) -> Trajectory:
    return Trajectory(env="e", task_id=task, level=level, policy="p", seed=0, reward=float(ok), success=ok,
                      steps=steps, tool_calls=2, tool_errors=errors)  # fmt: skip


def test_pass_hat_k_by_hand() -> None:
    assert pass_hat_k(3, 4, 1) == 0.75
    assert pass_hat_k(3, 4, 2) == 0.5  # C(3,2)/C(4,2) = 3/6
    assert pass_hat_k(3, 4, 4) == 0.0 and pass_hat_k(4, 4, 4) == 1.0
    with pytest.raises(ValueError):
        pass_hat_k(1, 2, 3)


def test_summary_and_breakdown() -> None:
    trajs = [traj("a", True), traj("a", True), traj("b", True, level=2, errors=1), traj("b", False, level=2)]
    s = summarize(trajs, ks=(1, 2))
    assert s["success"] == 0.75 and s["pass^1"] == 0.75 and s["pass^2"] == 0.5  # a: 1, b: 0
    assert s["tool_error_rate"] == 1 / 8 and s["tasks"] == 2
    assert breakdown(trajs, lambda t: t.level)[2]["success"] == 0.5


def test_candidates_come_from_the_instruction_answers_and_outputs() -> None:
    props = {"pet_id": {"type": "string"}, "price": {"type": "number"}, "tags": {"type": "array"}}
    tools = [
        {
            "function": {
                "name": "update_pet",
                "parameters": {"type": "object", "required": ["pet_id"], "properties": props},
            }
        }
    ]
    memory = Memory()
    text = "Update my pet pet_0003: set its price to 12.5 and its tags 'a', 'b' and a name you should ask me for."
    memory.read_instruction(text)
    options = candidates(tools, memory, text)
    calls = [c.args for c in options if c.kind == "call"]
    assert {"pet_id": "pet_0003", "price": 12.5, "tags": ["a", "b"]} in calls
    assert {"pet_id": "pet_0003"} in calls  # optional arguments may be left out
    assert any(c.text == "What is the name?" for c in options)
    memory.read_instruction("The name is Rex.", source="user")
    assert any(v.value == "Rex" and v.source == "user" for v in memory.values)
    memory.read_output('[{"id": "pet_0009", "price": 3}]')
    assert {"pet_id": "pet_0009"} in [c.args for c in candidates(tools, memory, text)]


def test_evaluate_and_robustness_with_reference_policies(bundled_envs: dict[str, Environment]) -> None:
    env = bundled_envs["petstore"]
    tasks = generate_tasks(env, 10, seed=2)[0]
    assert summarize(evaluate(env, tasks, lambda s: GoldPolicy(), trials=2), ks=(2,))["pass^2"] == 1.0
    assert summarize(evaluate(env, tasks, lambda s: NoopPolicy()))["success"] == 0.0
    table = robustness(env, tasks[:4], lambda s: GoldPolicy())
    assert set(table) == {"none", "output", "faults", "descriptions", "users"} and table["none"]["success"] == 1.0
    kept = evaluate(env, tasks[:1], lambda s: GoldPolicy(), keep_messages=True)[0]
    assert kept.messages[0]["role"] == "system" and kept.success


def test_evaluating_several_environments_at_once_plays_each_as_alone(bundled_envs: dict[str, Environment]) -> None:
    """Under faults (seeded per episode), the random policy: the same trajectories, in the order of
    the environments, as one evaluation per environment; a factory that plays together gets them all."""
    from envfactory.eval.runner import evaluate_sets
    from envfactory.rl.policy import RandomPolicy
    from envfactory.wrappers import condition

    envs = {name: bundled_envs[name] for name in ("petstore", "shop")}
    tasks = {name: generate_tasks(env, 3, seed=1)[0] for name, env in envs.items()}
    faults = condition("faults")
    alone = [t for name, env in envs.items()
             for t in evaluate(env, tasks[name], RandomPolicy, trials=2, seed=5, randomization=faults)]  # fmt: skip
    ticks: list[int] = []
    together = evaluate_sets(envs, tasks, lambda s: RandomPolicy(s), trials=2, seed=5, randomization=faults,
                             progress=ticks.append)  # fmt: skip
    assert [t.model_dump() for t in together] == [t.model_dump() for t in alone] and ticks == list(range(1, 13))

    class Together:
        def __init__(self) -> None:
            self.played: list[int] = []

        def __call__(self, seed: int) -> RandomPolicy:
            return RandomPolicy(seed)

        def play(self, jobs: list, progress: object = None) -> list[Trajectory]:
            self.played.append(len(jobs))
            return [job() for job in jobs]

    factory = Together()
    again = evaluate_sets(envs, tasks, factory, trials=2, seed=5, randomization=faults)
    assert factory.played == [12] and [t.model_dump() for t in again] == [t.model_dump() for t in alone]


def test_a_change_held_back_is_read_as_held_back() -> None:
    from envfactory.rl.actions import _ASK

    text = (
        "Edit the job with the latest date: change its name to 'Run' and its description to one you should ask me for."
    )
    labels = [said or changed or old for said, changed, old in _ASK.findall(text)]
    assert labels == ["description"]

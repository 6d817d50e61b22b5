import random

from envfactory.ir.task import Task, UserProfile
from envfactory.runtime.environment import Environment
from envfactory.tasks.agents import Replay, early_stop, gold, noop, read_only
from envfactory.tasks.curriculum import Curriculum
from envfactory.tasks.generate import TaskFactory
from envfactory.tasks.instantiate import Rejected
from envfactory.tasks.selftest import SelfTest, run_agent
from envfactory.users.scripted import REFUSAL, ScriptedUser


def first_task(env: Environment, want) -> Task:
    factory = TaskFactory(env)
    for attempt in range(400):
        try:
            task = factory.task(1, attempt)
        except Rejected:
            continue
        if want(task) and factory.selftest.check(task) is None:
            return task
    raise AssertionError("no such task")


def test_every_mutation_of_a_two_write_task_fails(bundled_envs: dict[str, Environment]) -> None:
    env = bundled_envs["shop"]
    writes = {"create_order", "update_product", "pay_order", "ship_order", "cancel_order", "refund_order"}
    task = first_task(env, lambda t: sum(c.tool in writes for c in t.gold) >= 2)
    test = SelfTest(env, seed=5)
    episode = test.episode
    assert run_agent(episode, task, gold(task))
    for agent in (noop(task), read_only(task, writes), early_stop(task)):
        assert not run_agent(episode, task, agent), agent.name
    mutations = test.mutations(task)
    kinds = {name.split(" ")[0] for name, _ in mutations}
    assert {"drop", "swap"} <= kinds
    for name, calls in mutations:
        assert not run_agent(episode, task, Replay(name, calls)), name


def test_self_test_catches_an_under_determined_task(bundled_envs: dict[str, Environment]) -> None:
    env = bundled_envs["shop"]
    task = first_task(env, lambda t: len(t.gold) == 1 and t.gold[0].tool == "cancel_order")
    # a goal that is just the initial state: the no-op agent would pass, so the task is not kept
    lazy = task.model_copy(update={"goal": task.goal.model_copy(update={"state_hash": env.base.hash, "rows": {}})})
    assert SelfTest(env).check(lazy) in ("gold plan fails", "no-op agent passes")


def test_scripted_user_reveals_only_what_it_holds() -> None:
    task = Task(env="x", id="t", instruction="Book it.", user=UserProfile(facts={"passenger name": "Ada Byron"}))
    user = ScriptedUser(task)
    assert user.opening(task) == "Book it."
    assert user.reply("What is the passenger name?") == "The passenger name is Ada Byron."
    assert user.reply("Which seat class do you want?") == REFUSAL  # never invents an answer
    assert user.reply("All done, your flight is booked.") is None  # a report ends the conversation


def test_hidden_facts_flow_through_an_episode(bundled_envs: dict[str, Environment]) -> None:
    env = bundled_envs["petstore"]
    task = first_task(env, lambda t: bool(t.user.facts))
    label, value = next(iter(task.user.facts.items()))
    held = (f"{label} you should ask me for", f"{label} to one you should ask me for")  # a new record's, a change's
    assert value not in task.instruction and any(h in task.instruction for h in held)
    episode = env.episode(user=ScriptedUser(task))
    episode.reset(task=task)
    assert episode.respond(f"What {label} should I use?") == [{"role": "user", "content": f"The {label} is {value}."}]


def test_curriculum_moves_up_as_success_rises_and_keeps_reviewing() -> None:
    cur = Curriculum(levels=[3, 1, 2], threshold=0.7, window=20, min_trials=10, review=0.25)
    rng = random.Random(0)
    assert cur.levels == [1, 2, 3] and cur.frontier == 1
    for _ in range(10):
        cur.record(1, False)  # failing: stays
    assert cur.frontier == 1 and cur.success_rate(1) == 0.0
    for _ in range(20):
        cur.record(1, True)  # the window fills with successes: level 2 opens
    assert cur.frontier == 2
    draws = [cur.next_level(rng) for _ in range(400)]
    assert set(draws) == {1, 2} and 0.15 < draws.count(1) / 400 < 0.35
    for outcome in [True] * 6 + [False] * 4:  # 60% < 70%: not yet
        cur.record(2, outcome)
    assert cur.frontier == 2
    for _ in range(10):
        cur.record(2, True)
    assert cur.frontier == 3
    for _ in range(30):
        cur.record(3, True)
    assert cur.frontier == 3  # the last level stays the frontier

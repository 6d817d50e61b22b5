import json
import warnings

import pytest
from gymnasium.utils.env_checker import check_env

from envfactory.gym_env import ToolEnv
from envfactory.runtime.environment import Environment
from envfactory.tasks.generate import generate_tasks
from envfactory.users.scripted import ScriptedUser
from envfactory.wrappers import (
    FAMILIES,
    Faults,
    Randomization,
    UserStyle,
    condition,
    conditions,
    randomize,
)
from envfactory.wrappers.output import recase

ALL_RANDOM = Randomization(output="random", faults="random", descriptions="random", users="random")


@pytest.fixture(scope="module")
def shop_tasks(bundled_envs: dict[str, Environment]):
    return generate_tasks(bundled_envs["shop"], 12, seed=5)[0]


def wrapped(env: Environment, task, **families):
    episode = randomize(env.episode(max_steps=200, user=ScriptedUser()), Randomization(**families), seed=1)
    episode.reset(task=task, seed=3)
    return episode


@pytest.mark.parametrize("family", [*FAMILIES, "all"])
def test_wrapped_environments_pass_check_env(bundled_envs, shop_tasks, family: str) -> None:
    randomization = ALL_RANDOM if family == "all" else Randomization(**{family: "random"})
    env = ToolEnv(bundled_envs["shop"], tasks=shop_tasks, randomization=randomization)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, skip_render_check=True)


def test_same_seed_same_perturbation(bundled_envs, shop_tasks) -> None:
    env = ToolEnv(bundled_envs["shop"], tasks=shop_tasks, randomization=ALL_RANDOM)
    first = env.reset(seed=11)
    action = json.dumps({"name": env.tools[0]["function"]["name"], "arguments": {}})
    step_a = env.step(action)[0]
    second = env.reset(seed=11)
    assert first[0] == second[0] and first[1]["tools"] == second[1]["tools"]
    assert env.step(action)[0] == step_a
    third = env.reset(seed=12)
    assert third[1]["randomization"] != first[1]["randomization"] or third[0] != first[0]
    assert set(first[1]["randomization"]) == {"output", "faults", "descriptions", "users"}


def test_output_shape_changes_the_dress_not_the_data(bundled_envs, shop_tasks) -> None:
    env = bundled_envs["shop"]
    shape = {"wrap": ["result", "data"], "key_case": "camel", "numbers_as_strings": True, "extra_fields": 1}
    ep = wrapped(env, shop_tasks[0], output=shape)
    data = ep.call_tool("get_order", {"order_id": "order_0001"}).data
    order = data["result"]["data"]
    assert order["customerId"] == "customer_0009" and isinstance(order["quantity"], str) and "requestId" in order
    paged = wrapped(env, shop_tasks[0], output={"paginate": True, "page_size": 5})
    page = paged.call_tool("search_products", {}).data
    assert page["has_more"] and page["next_page"] == 2 and len(page["items"]) == 5
    last = paged.call_tool("search_products", {"page": 3}).data
    assert not last["has_more"] and "next_page" not in last and len(last["items"]) == 2  # 12 products
    assert {p["id"] for p in page["items"]}.isdisjoint(p["id"] for p in last["items"])
    params = next(t for t in paged.tools if t["function"]["name"] == "search_products")["function"]["parameters"]
    assert params["properties"]["page"]["type"] == "integer"
    assert paged.call_tool("search_products", {"page": 0}).error == "invalid_arguments"
    assert "page" not in str(next(t for t in paged.tools if t["function"]["name"] == "get_order"))  # not a list
    assert recase("loyalty_tier", "pascal") == "LoyaltyTier" and recase("petId", "snake") == "pet_id"


def test_faults_succeed_on_retry_and_leave_state_alone(bundled_envs, shop_tasks) -> None:
    env = bundled_envs["shop"]
    ep = wrapped(env, shop_tasks[0], faults={"transient_rate": 1.0})
    first = ep.call_tool("get_order", {"order_id": "order_0001"})
    assert first.error == "transient" and "retry" in first.content
    assert ep.call_tool("get_order", {"order_id": "order_0001"}).ok  # the retry goes through
    assert ep.steps == 2 and ep.state_hash() == env.base.hash
    reworded = wrapped(env, shop_tasks[0], faults={"reword_errors": True})
    missing = reworded.call_tool("get_order", {"order_id": "order_9999"})
    assert missing.error == "not_found" and missing.data["error"]["code"] in ("NOT_FOUND", "404")
    busy = wrapped(env, shop_tasks[0], faults={"rate_limit_rate": 1.0, "reword_errors": True})
    limited = busy.call_tool("get_order", {"order_id": "order_0001"})
    assert limited.error == "transient" and limited.data["error"]["code"] in ("RESOURCE_EXHAUSTED", "429")


def test_retrying_gold_agent_still_solves_tasks_under_faults(bundled_envs, shop_tasks) -> None:
    env = bundled_envs["shop"]
    for task in shop_tasks:
        ep = wrapped(env, task, faults={"transient_rate": 0.3, "rate_limit_rate": 0.1})
        for label in task.user.facts:
            ep.respond(f"What is the {label}?")
        for call in task.gold:
            for _ in range(3):
                if ep.call_tool(call.tool, call.args).error != "transient":
                    break
        ep.respond("Done. " + ", ".join(task.goal.answer))
        assert ep.verify().success, task.id


def test_descriptions_rename_hide_and_distract_but_keep_the_needed_tools(bundled_envs, shop_tasks) -> None:
    env = bundled_envs["shop"]
    task = shop_tasks[0]
    ep = wrapped(env, task, descriptions={"rename": True, "paraphrase": True, "distractors": 2, "keep_fraction": 0.0})
    shown = {t["function"]["name"] for t in ep.tools}
    needed = {c.tool for c in task.gold}
    assert len(shown) == len(needed) + 2  # only what the task needs, plus two distractors
    real = {v: k for k, v in ep.real.items()}
    for tool in needed:
        assert real[tool] in shown
    distractor = next(iter(ep.distractors))
    assert ep.call_tool(distractor, {}).error == "precondition_failed"
    hidden = next(t for t in env.tools if t not in needed)
    assert ep.call_tool(hidden, {}).error == "unknown_tool"
    call = task.gold[-1]
    assert ep.call_tool(real[call.tool], call.args).ok
    described = [
        p for t in ep.tools for p in t["function"]["parameters"]["properties"].values() if p.get("description")
    ]
    original = [
        p for t in env.openai_tools for p in t["function"]["parameters"]["properties"].values() if p.get("description")
    ]
    assert not original or {p["description"] for p in described} - {p["description"] for p in original}


def test_deprecated_twins_look_like_the_real_tool_and_fail() -> None:
    from envfactory.bundled import BUNDLED, bundled_specs_dir
    from envfactory.synth import synthesize

    env = Environment(synthesize(bundled_specs_dir() / BUNDLED["banking"], name="banking"))
    task = generate_tasks(env, 3, seed=1)[0][0]
    twins = []
    for seed in range(6):
        ep = randomize(env.episode(), Randomization(descriptions={"distractors": 3}), seed=seed)
        ep.reset(task=task, seed=seed)
        shown = {t["function"]["name"]: t["function"] for t in ep.tools}
        for name in ep.distractors:
            original = next((shown[o] for o in shown if name.startswith(o) and o != name), None)
            if original is not None:
                twins.append(name)
                assert shown[name]["parameters"] == original["parameters"]
                assert shown[name]["description"].startswith("Deprecated")
                result = ep.call_tool(name, {})
                assert result.error == "precondition_failed" and "retired" in result.content
    assert twins  # some of the 18 distractors drawn are twins


def test_rename_and_paraphrase_swap_verbs_for_synonyms() -> None:
    import random

    from envfactory.wrappers.descriptions import paraphrase, rename
    from envfactory.wrappers.lexicon import NAME_SYNONYMS, USER_SYNONYMS, reword

    names = {rename("freeze_account", random.Random(s)) for s in range(20)}
    assert all("freeze" not in n.lower() and "account" in n.lower() for n in names) and len(names) > 3
    assert all("Freeze" not in paraphrase("Freeze an account.", random.Random(s)) for s in range(10))
    text = "Please cancel the order whose ship date is 'cancel me'. Then freeze my account account_0012."
    out = reword(text, USER_SYNONYMS, random.Random(0))
    assert "'cancel me'" in out and "ship date" in out and "account_0012" in out
    assert "cancel the" not in out and "freeze my" not in out
    assert reword("Book a flight.", NAME_SYNONYMS, random.Random(0)).startswith(("Reserve", "Ticket", "Hold"))
    assert reword("Add a new book.", USER_SYNONYMS, random.Random(0)).endswith("a new book.")  # nouns stay


def test_user_style_rephrases_requests_and_answers(bundled_envs, shop_tasks) -> None:
    env = bundled_envs["shop"]
    task = shop_tasks[0]
    ep = randomize(env.episode(user=ScriptedUser()), Randomization(users={"greeting": True, "sign_off": True}), seed=0)
    opening = ep.reset(task=task, seed=1)[-1]["content"]
    assert opening != task.instruction and task.instruction[1:40] in opening
    casual = randomize(env.episode(user=ScriptedUser()), Randomization(users=UserStyle(casual=True).model_dump()), 0)
    said = casual.reset(task=task, seed=1)[-1]["content"]
    assert said[0].islower() and said[1:20] == task.instruction[1:20]
    reworded = randomize(env.episode(user=ScriptedUser()), Randomization(users={"reword": True}), seed=0)
    changed = [reworded.reset(task=t, seed=1)[-1]["content"] != t.instruction for t in shop_tasks]
    assert any(changed)
    calm = wrapped(env, task, faults=Faults().model_dump())  # the default fault config injects nothing
    calm.reset(seed=3)  # no task: the 200-step budget of the episode
    assert all(calm.call_tool("get_order", {"order_id": "order_0001"}).ok for _ in range(50))


def test_randomization_is_recorded_in_snapshots(bundled_envs, shop_tasks) -> None:
    ep = wrapped(bundled_envs["shop"], shop_tasks[0], output="random", faults={"timeout_rate": 0.5})
    snap = json.loads(json.dumps(ep.snapshot()))
    assert snap["randomization"]["faults"]["timeout_rate"] == 0.5 and "output" in snap["randomization"]
    assert conditions(("stress",)) == ["none", *(f"{f}:stress" for f in FAMILIES)]
    assert condition("none") is None and condition("faults") == Randomization(faults="random")
    assert condition("users:stress") == Randomization(users="stress")
    stressed = Randomization(output="stress", faults="stress").resolve(__import__("random").Random(0))
    assert stressed["output"] == FAMILIES["output"].stress and stressed["faults"].reword_errors
    with pytest.raises(ValueError, match="expected 'random', 'stress' or an object"):
        Randomization(output="sometimes").resolve(__import__("random").Random(0))

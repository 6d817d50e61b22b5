"""The LLM user (personas, only the task's facts) and the LLM judge, over a scripted
OpenAI-compatible server; the judge's flags become the masks of a real training update."""

from __future__ import annotations

import json

from tests.llm.fake_openai import FakeOpenAI, completion

from envfactory.eval.runner import evaluate
from envfactory.llm import make_client
from envfactory.rl.policy import GoldPolicy
from envfactory.rl.trainer import TrainConfig, train
from envfactory.runtime.environment import Environment
from envfactory.tasks.generate import generate_tasks
from envfactory.users.judge import LLMJudge, make_judge
from envfactory.users.llm_user import UNKNOWN, LLMUser


def _say(text: str) -> tuple[int, dict]:
    return 200, completion({"role": "assistant", "content": text})


def _tasks_with_facts(env: Environment) -> list:
    return [t for t in generate_tasks(env, 40, seed=0)[0] if t.user.facts]


def test_the_llm_user_answers_from_the_task_facts_in_its_persona(shop: Environment) -> None:
    task = _tasks_with_facts(shop)[0]
    label, value = next(iter(task.user.facts.items()))
    with FakeOpenAI(lambda body: _say(f"The {label} is {value}.")) as server:
        user = LLMUser(make_client("openai:user", base_url=server.url, cache=None), persona="terse")
        assert user.opening(task) == task.instruction
        assert user.reply(f"What is the {label}?") == f"The {label} is {value}."
        assert user.reply("All done.") is None  # a report ends the conversation
        system = server.requests[0]["messages"][0]["content"]
    assert "as few words" in system and f"- {label}: {value}" in system and "Never make up a fact" in system


def test_an_unreachable_user_model_says_it_does_not_know() -> None:
    user = LLMUser(make_client("openai:user", base_url="http://127.0.0.1:9/v1", cache=None, retries=0, timeout=2))
    user.opening(None)
    assert user.reply("What is the colour?") == UNKNOWN


def test_the_llm_judge_reads_verdicts_and_never_masks_what_it_cannot_read(shop: Environment) -> None:
    task = _tasks_with_facts(shop)[0]
    messages = [{"role": "user", "content": task.instruction}, {"role": "assistant", "content": "What is it?"},
                {"role": "user", "content": "It is 12."}]  # fmt: skip
    answers = iter([_say('{"spoiled": true, "reasons": ["said 12"]}'), _say("not json at all"), _say("no")])
    with FakeOpenAI(lambda body: next(answers)) as server:
        judge = LLMJudge(make_client("openai:judge", base_url=server.url, cache=None))
        first = judge.judge(task, messages)
        assert first.spoiled and first.reasons == ("said 12",)
        assert not judge.judge(task, messages).spoiled and judge.unreadable == 1
        assert not judge.judge(task, messages).spoiled and judge.unreadable == 1  # a plain "no" is a verdict
        body = server.requests[0]
    assert body["response_format"]["type"] == "json_schema"  # constrained output where the server supports it


def test_evaluation_with_an_llm_judge_reports_its_masks(shop: Environment) -> None:
    tasks = _tasks_with_facts(shop)[:2]
    with FakeOpenAI(lambda body: _say('{"spoiled": true, "reasons": ["made up"]}')) as server:
        judge = make_judge("openai:judge", base_url=server.url, cache=None)
        trajs = evaluate(shop, tasks, lambda s: GoldPolicy(), judge=judge)
    assert all(t.masked and "made up" in t.reasons for t in trajs)


def test_train_uses_the_llm_judges_flags_as_user_error_masks(shop: Environment, tmp_path) -> None:
    asking = [t for t in generate_tasks(shop, 40, seed=0)[0] if t.user.facts]  # the user holds facts back
    tasks = {"shop": asking[:1]}  # many rollouts of one such task: some of them ask the user
    assert tasks["shop"]
    with FakeOpenAI(lambda body: _say('{"spoiled": true, "reasons": ["x"]}')) as server:
        config = TrainConfig(iterations=1, judge="openai:judge", judge_base_url=server.url, tasks_per_batch=1, group=32)
        train({"shop": shop}, tasks, config, tmp_path)
        judged = len(server.requests)
    metrics = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    # the judge is asked about every rollout in which the user spoke after the request (the same
    # transcript once: the client caches it) and flags each: those rollouts leave the update
    masked = round(metrics[0]["masked_fraction"] * 32)
    assert judged > 0 and masked >= judged and masked < 32

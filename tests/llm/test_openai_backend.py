"""The OpenAI-compatible backend over real HTTP (a scripted local server), with retries, the
response cache, and the LLM agent driving real episodes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.llm.fake_openai import FakeOpenAI, completion, tool_call

from envfactory.eval.runner import evaluate
from envfactory.llm import ChatRequest, LLMError, make_client
from envfactory.llm.agent import LLMAgent
from envfactory.runtime.environment import Environment
from envfactory.tasks.generate import generate_tasks


def _agent_script(body: dict) -> tuple[int, dict]:
    """Looks the first customer up, then reports; a model that does what it is told."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return 200, completion({"role": "assistant", "content": "All done."})
    return 200, completion(tool_call("list_customers", {}))


def test_a_served_model_drives_real_episodes_and_reruns_come_from_the_cache(shop: Environment, tmp_path: Path) -> None:
    tasks = generate_tasks(shop, 3, seed=1)[0]
    cache = tmp_path / "cache.sqlite"
    with FakeOpenAI(_agent_script) as server:
        client = make_client("openai:fake-model", base_url=server.url, cache=cache)
        first = evaluate(shop, tasks, lambda s: LLMAgent(client, seed=s), keep_messages=True, workers=2)
        sent = len(server.requests)
        assert sent == 2 * len(tasks)  # a call, then the report, per episode
        body = server.requests[0]
        assert body["model"] == "fake-model" and any(t["function"]["name"] == "list_customers" for t in body["tools"])
        again_client = make_client("openai:fake-model", base_url=server.url, cache=cache)
        again = evaluate(shop, tasks, lambda s: LLMAgent(again_client, seed=s), keep_messages=True)
        assert len(server.requests) == sent  # every answer came from the cache
    assert [t.messages for t in again] == [t.messages for t in first]
    stats = again_client.stats.as_dict()
    assert stats["cache_hits"] == sent and stats["cache_misses"] == 0 and stats["cache_hit_rate"] == 1.0
    assert client.stats.prompt_tokens == 12 * sent and client.stats.completion_tokens == 5 * sent
    transcript = first[0].messages
    assert transcript[2]["tool_calls"][0]["function"]["name"] == "list_customers"
    assert transcript[3]["role"] == "tool" and '"error"' not in transcript[3]["content"][:12]


def test_busy_servers_are_retried_and_refusals_are_not(tmp_path: Path) -> None:
    answers = iter([(503, {"error": {"message": "busy"}}), (200, completion({"role": "assistant", "content": "hi"}))])
    with FakeOpenAI(lambda body: next(answers)) as server:
        client = make_client("openai:m", base_url=server.url, cache=None, retries=2)
        client.sleep = lambda s: None
        assert client.chat(ChatRequest(messages=({"role": "user", "content": "hello"},))).text == "hi"
        assert client.stats.retries == 1 and len(server.requests) == 2
    with FakeOpenAI(lambda body: (400, {"error": {"message": "bad request"}})) as server:
        client = make_client("openai:m", base_url=server.url, cache=None, retries=2)
        with pytest.raises(LLMError, match="refused"):
            client.chat(ChatRequest(messages=({"role": "user", "content": "hello"},)))
        assert len(server.requests) == 1


def test_malformed_calls_from_a_model_are_repaired_or_answered_never_raised(shop: Environment) -> None:
    as_text = '<tool_call>{"name": "list_customer", "arguments": {}}</tool_call>'
    replies = iter([
        completion({"role": "assistant", "content": as_text}),
        completion(tool_call("no_such_tool", {"x": 1})),
        completion({"role": "assistant", "content": None}),
    ])  # fmt: skip
    with FakeOpenAI(lambda body: (200, next(replies))) as server:
        agent = LLMAgent(make_client("openai:m", base_url=server.url, cache=None))
        episode = shop.episode()
        agent.begin(None, episode.reset(), episode.tools)
        first = episode.act(agent.act([]))
        assert '"error"' not in first[0]["content"][:12]  # the text call was read, the name matched
        second = episode.act(agent.act(first))
        assert json.loads(second[0]["content"])["error"]["code"] == "unknown_tool"
        assert agent.act(second) == {"role": "assistant", "content": ""}
    assert any("read as 'list_customers'" in r for r in agent.repairs)


def test_an_unreachable_model_ends_the_episode_with_the_reason() -> None:
    client = make_client("openai:m", base_url="http://127.0.0.1:9/v1", cache=None, retries=0, timeout=2)
    agent = LLMAgent(client)
    agent.begin(None, [{"role": "user", "content": "hi"}], [])
    message = agent.act([])
    assert message["content"].startswith("I cannot continue") and agent.failures

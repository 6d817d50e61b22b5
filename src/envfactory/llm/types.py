"""The data that crosses the LLM boundary: a chat request, its response, token usage; the client
protocol every backend implements, its errors and its accounting (so backends need nothing of
:mod:`envfactory.llm.client`, which picks among them)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from envfactory.errors import EnvFactoryError

JSON = dict[str, Any]


class ChatRequest(BaseModel):
    """One chat completion: OpenAI-format ``messages`` and ``tools``; ``json_schema`` asks for a
    JSON answer of that shape (enforced where the backend can, else by prompt and validation)."""

    model_config = ConfigDict(frozen=True)

    messages: tuple[JSON, ...]
    tools: tuple[JSON, ...] = ()
    json_schema: JSON | None = None
    temperature: float = 0.0
    max_tokens: int = 256
    seed: int | None = 0


class Usage(BaseModel):
    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatResponse(BaseModel):
    """The assistant's message in OpenAI form (``content`` and/or ``tool_calls``)."""

    model_config = ConfigDict(frozen=True)

    message: JSON
    usage: Usage = Field(default_factory=Usage)
    model: str = ""
    cached: bool = False
    repaired: tuple[str, ...] = ()  # what the tool-call parser had to fix, if anything

    @property
    def text(self) -> str:
        content = self.message.get("content")
        return content if isinstance(content, str) else ""

    @property
    def tool_calls(self) -> list[JSON]:
        calls = self.message.get("tool_calls")
        return calls if isinstance(calls, list) else []


__all__ = ["ChatRequest", "ChatResponse", "LLMClient", "LLMError", "LLMUnavailable", "Stats", "Usage"]


class LLMError(EnvFactoryError):
    """A model refused a request or could not be reached (after the retries)."""


class LLMUnavailable(LLMError):
    """A failure worth retrying: a timeout, a lost connection, HTTP 408/409/429/5xx."""


class LLMClient(Protocol):
    model: str

    def chat(self, request: ChatRequest) -> ChatResponse: ...


@dataclass
class Stats:
    """What a client spent: requests, tokens, seconds, cache hits and misses, retries."""

    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cache_hits: int = 0
    cache_misses: int = 0
    retries: int = 0
    generated_tokens: int = 0  # answered by the model, not the cache
    generation_seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, response: ChatResponse, seconds: float) -> None:
        with self._lock:
            self.requests += 1
            self.prompt_tokens += response.usage.prompt_tokens
            self.completion_tokens += response.usage.completion_tokens
            self.seconds += seconds
            if not response.cached:
                self.generated_tokens += response.usage.completion_tokens
                self.generation_seconds += seconds

    def as_dict(self) -> dict[str, float]:
        names = ("requests", "prompt_tokens", "completion_tokens", "seconds", "cache_hits", "cache_misses", "retries")
        out: dict[str, float] = {k: getattr(self, k) for k in names}
        spent = self.generation_seconds
        out["tokens_per_second"] = self.generated_tokens / spent if spent > 0 else 0.0
        looked = self.cache_hits + self.cache_misses
        out["cache_hit_rate"] = self.cache_hits / looked if looked else 0.0
        return out

"""The data that crosses the LLM boundary: a chat request, its response, token usage."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

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


__all__ = ["ChatRequest", "ChatResponse", "Usage"]

"""Any OpenAI-compatible endpoint, through the official ``openai`` client (retries are ours)."""

from __future__ import annotations

from typing import Any

from envfactory.llm.types import ChatRequest, ChatResponse, LLMError, LLMUnavailable, Usage


class OpenAIClient:
    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0) -> None:  # fmt: skip
        try:
            import openai
        except ImportError as err:  # pragma: no cover - the llm extra is part of the dev install
            raise LLMError("the OpenAI-compatible backend needs `pip install envfactory[llm]`") from err
        self.model = model
        self._openai = openai
        # a local server needs no key, but the client insists on one
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout, max_retries=0)

    def chat(self, request: ChatRequest) -> ChatResponse:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": list(request.messages),
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.seed is not None:
            kwargs["seed"] = request.seed
        if request.tools:
            kwargs["tools"] = list(request.tools)
        if request.json_schema is not None:
            kwargs["response_format"] = {"type": "json_schema",
                                         "json_schema": {"name": "answer", "schema": request.json_schema}}  # fmt: skip
        try:
            completion = self._client.chat.completions.create(**kwargs)
        except self._openai.APIStatusError as err:
            if err.status_code in (408, 409, 429) or err.status_code >= 500:
                raise LLMUnavailable(f"{self.model}: HTTP {err.status_code}: {err.message}") from None
            raise LLMError(f"{self.model}: refused (HTTP {err.status_code}): {err.message}") from None
        except self._openai.APIError as err:  # connection errors, timeouts
            raise LLMUnavailable(f"{self.model}: {type(err).__name__}: {err}") from None
        if not completion.choices:
            raise LLMError(f"{self.model}: the endpoint answered no choices")
        message = completion.choices[0].message.model_dump(exclude_none=True)
        message = {k: v for k, v in message.items() if k in ("role", "content", "tool_calls")}
        message["role"] = "assistant"
        usage = completion.usage
        return ChatResponse(
            message=message,
            usage=Usage(prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens)
            if usage
            else Usage(),
            model=completion.model or self.model,
        )


__all__ = ["OpenAIClient"]

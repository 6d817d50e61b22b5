"""An LLM agent under evaluation: the ``Policy`` interface over OpenAI tool-call messages.

Each turn sends the conversation so far (system and opening request, then the most recent
``window`` messages) and the tools to the client, and returns the assistant message it answers:
tool calls (several at once are fine; the episode runs them in order), or words to the user.
Malformed calls are repaired where they can be (arguments that are not JSON, missing ids); a
token budget ends the episode politely once spent. Step limits are the episode's.
"""

from __future__ import annotations

import json
from typing import Any

from envfactory.ir.task import Task
from envfactory.llm.toolcalls import parse_tool_calls
from envfactory.llm.types import ChatRequest, LLMClient, LLMError

JSON = dict[str, Any]
OUT_OF_BUDGET = "I have used up my budget for this request and have to stop here."


class LLMAgent:
    def __init__(
        self,
        client: LLMClient,
        *,
        seed: int = 0,
        temperature: float = 0.0,
        max_tokens: int = 256,
        token_budget: int = 50_000,
        window: int = 16,
        name: str | None = None,
    ) -> None:
        self.client, self.seed, self.temperature = client, seed, temperature
        self.max_tokens, self.token_budget, self.window = max_tokens, token_budget, window
        self.name = name or client.model
        self.history: list[JSON] = []
        self.tools: list[JSON] = []
        self.spent = self.turn = 0
        self.repairs: list[str] = []
        self.failures: list[str] = []

    def begin(self, task: Task | None, messages: list[JSON], tools: list[JSON]) -> None:
        self.history, self.tools = [dict(m) for m in messages], list(tools)
        self.spent = self.turn = 0
        self.repairs, self.failures = [], []

    def act(self, new_messages: list[JSON]) -> JSON:
        self.history += [dict(m) for m in new_messages]
        if self.spent >= self.token_budget:
            return self._say(OUT_OF_BUDGET)
        request = ChatRequest(messages=tuple(self._context()), tools=tuple(self.tools), temperature=self.temperature,
                              max_tokens=self.max_tokens, seed=self.seed + self.turn)  # fmt: skip
        self.turn += 1
        try:
            response = self.client.chat(request)
        except LLMError as err:  # an unreachable model ends the episode, recorded, not raised
            self.failures.append(str(err))
            return self._say(f"I cannot continue: {err}")
        self.spent += response.usage.prompt_tokens + response.usage.completion_tokens
        self.repairs += response.repaired
        message = self._normalized(response.message)
        self.history.append(message)
        return message

    def _context(self) -> list[JSON]:
        head = [m for m in self.history[:2] if m.get("role") in ("system", "user")]
        tail = self.history[len(head) :][-self.window :]
        while tail and tail[0].get("role") == "tool":  # never start with results of calls cut away
            tail = tail[1:]
        return head + tail

    def _say(self, text: str) -> JSON:
        message = {"role": "assistant", "content": text}
        self.history.append(message)
        return message

    def _normalized(self, message: JSON) -> JSON:
        """Ids on every call, arguments as JSON text; calls written as text by a model that has
        native tool calls are read from the text."""
        calls = message.get("tool_calls") or []
        content = message.get("content")
        names = [t.get("function", t).get("name", "") for t in self.tools]
        if not calls and isinstance(content, str) and "<tool_call>" in content:
            parsed, repairs = parse_tool_calls(content, names)
            self.repairs += repairs
            calls, content = parsed.get("tool_calls") or [], parsed.get("content")
        fixed = []
        for i, call in enumerate(calls):
            fn = call.get("function") or {}
            arguments = fn.get("arguments")
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments if isinstance(arguments, dict) else {})
            fixed.append({"id": call.get("id") or f"call_{self.turn}_{i}", "type": "function",
                          "function": {"name": str(fn.get("name") or ""), "arguments": arguments}})  # fmt: skip
        out: JSON = {"role": "assistant", "content": content if isinstance(content, str) else None}
        if fixed:
            out["tool_calls"] = fixed
        elif out["content"] is None:
            out["content"] = ""
        return out


__all__ = ["OUT_OF_BUDGET", "LLMAgent"]

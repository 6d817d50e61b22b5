"""Language-model policies over the Policy interface, each keeping its conversation as token ids.

:class:`LMPolicy` lets the model write every assistant turn (greedy or sampled, seeded) and reads
its tool calls with the repairing parser. :class:`TeacherPolicy` plays a task's gold run (the
clarifying questions for facts the user holds back, the gold calls, the report) and writes each
turn as the text the model is to learn to write. Both render what the episode sends back the same
way (tool results as ``Tool result (name): ...``, cut to ``observe_chars``), so a demonstration and
a rollout of the same episode are the same ids wherever they make the same moves.
"""

from __future__ import annotations

import copy
import json
from functools import partial
from typing import Any

from envfactory.ir.task import Task
from envfactory.llm.toolcalls import CLOSE, OPEN, parse_tool_calls
from envfactory.rl.lm.chat import TokenChat
from envfactory.rl.lm.lockstep import Lockstep, Turn, decode
from envfactory.rl.lm.model import device_of
from envfactory.rl.policy import GoldPolicy

JSON = dict[str, Any]
OUT_OF_CONTEXT = "I have run out of room for this conversation and have to stop here."
OUT_OF_TURNS = "I have used up my turns for this request and have to stop here."


def render_turn(messages: list[JSON], names: dict[str, str], observe_chars: int) -> str:
    """What the episode sent back (tool results, the user's words) as the text of one turn."""
    parts = []
    for m in messages:
        content = str(m.get("content") or "")
        if m.get("role") == "tool":
            if len(content) > observe_chars:
                content = content[:observe_chars] + f" ...({len(content) - observe_chars} more characters)"
            parts.append(f"Tool result ({names.get(m.get('tool_call_id', ''), 'tool')}): {content}")
        else:
            parts.append(content)
    return "\n".join(parts)


def render_action(message: JSON) -> str:
    """An assistant message as the text the model writes: words, then one line per tool call."""
    lines = [message.get("content") or ""]
    for call in message.get("tool_calls") or ():
        fn = call.get("function") or {}
        arguments = fn.get("arguments") or "{}"
        arguments = arguments if isinstance(arguments, str) else json.dumps(arguments)
        lines.append(f'{OPEN}{{"name": {json.dumps(fn.get("name"))}, "arguments": {arguments}}}{CLOSE}')
    return "\n".join(line for line in lines if line)


class _ChatPolicy:
    """What both policies share: the conversation's ids and the names of the calls made."""

    name = "lm"

    def __init__(self, tokenizer: Any, *, observe_chars: int = 600) -> None:
        self.tokenizer, self.observe_chars = tokenizer, observe_chars
        self.chat = TokenChat(tokenizer)
        self.names: dict[str, str] = {}
        self.tool_names: list[str] = []
        self.turn = 0

    def begin(self, task: Task | None, messages: list[JSON], tools: list[JSON]) -> None:
        self.cache = None
        self.chat = TokenChat(self.tokenizer)
        self.chat.start(messages, tools)
        self.tool_names = [t.get("function", t).get("name", "") for t in tools]
        self.names, self.turn = {}, 0

    def _read(self, new_messages: list[JSON]) -> None:
        if new_messages:
            self.chat.add_turn(render_turn(new_messages, self.names, self.observe_chars))

    def _named(self, message: JSON) -> JSON:
        calls = []
        for i, call in enumerate(message.get("tool_calls") or ()):
            fn = call.get("function") or {}
            arguments = fn.get("arguments")
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments if isinstance(arguments, dict) else {})
            cid = f"call_{self.turn}_{i}"
            self.names[cid] = str(fn.get("name") or "")
            calls.append({"id": cid, "type": "function", "function": {"name": self.names[cid], "arguments": arguments}})
        self.turn += 1
        out: JSON = {"role": "assistant", "content": message.get("content") if not calls else None}
        if calls:
            out["tool_calls"] = calls
        elif not out["content"]:
            out["content"] = ""
        return out


class Prefixes:
    """The key-value caches of the parts of prompts every episode of an environment shares (the
    system text, the tools, the worked examples), computed once per model and copied into each
    episode, so that only the request and what follows are read per episode. Each is computed
    the same way whichever episode asks first, so an episode's numbers never depend on which ran
    before it. Valid only while the model's weights stay as they are: make a new store after an
    update."""

    def __init__(self, *, least: int = 32, most: int = 16) -> None:
        self.least, self.most = least, most
        self.entries: dict[tuple[int, ...], Any] = {}

    def start(self, model: Any, ids: list[int], shared: int) -> Any:
        """A fresh cache for a conversation whose first ``shared`` ids are a shared part."""
        import torch
        from transformers import DynamicCache

        if shared < self.least:
            return DynamicCache()
        key = tuple(ids[:shared])
        if key not in self.entries:
            cache = DynamicCache()
            prefix = torch.tensor([key], device=device_of(model))
            with torch.no_grad():
                model(input_ids=prefix, attention_mask=torch.ones_like(prefix), past_key_values=cache, use_cache=True)
            if len(self.entries) >= self.most:
                self.entries.pop(next(iter(self.entries)))
            self.entries[key] = cache
        return copy.deepcopy(self.entries[key])


class LMPolicy(_ChatPolicy):
    """The model writes each turn; ``sample`` draws with ``temperature`` from a generator seeded
    by the episode's seed and the turn. With a ``lockstep`` the turn is decoded in one batch with
    the other episodes that lockstep runs; alone otherwise. After ``max_turns`` turns, or when the
    next turn would pass ``max_context`` ids, the policy reports that it has to stop (those words
    are not the model's and are never trained on)."""

    def __init__(self, model: Any, tokenizer: Any, *, seed: int = 0, sample: bool = False, temperature: float = 1.0,
                 max_new_tokens: int = 96, max_context: int = 3072, max_turns: int = 8, observe_chars: int = 600,
                 name: str = "lm", prefixes: Prefixes | None = None,
                 lockstep: Lockstep | None = None) -> None:  # fmt: skip
        super().__init__(tokenizer, observe_chars=observe_chars)
        self.model, self.seed, self.sample, self.temperature = model, seed, sample, temperature
        self.max_new_tokens, self.max_context, self.max_turns = max_new_tokens, max_context, max_turns
        self.name, self.prefixes, self.lockstep = name, prefixes or Prefixes(), lockstep
        self.generated = 0
        self.cache: Any = None  # the key-value cache of the conversation so far (ids are only appended)

    def act(self, new_messages: list[JSON]) -> JSON:
        self._read(new_messages)
        last = OUT_OF_TURNS if self.turn >= self.max_turns else None
        if len(self.chat.ids) + self.max_new_tokens > self.max_context:
            last = OUT_OF_CONTEXT
        if last is not None:  # the policy's own last word: not the model's, not trained on
            self.chat.add_text(last, trained=False)
            return {"role": "assistant", "content": last}
        ids = self._generate()
        self.generated += len(ids)
        self.chat.add_model(ids)
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        message, _ = parse_tool_calls(text, self.tool_names)
        return self._named(message)

    def _generate(self) -> list[int]:
        turn = Turn(self.chat.ids, self.cache, seed=(self.seed * 7919 + self.turn) % 2**31, sample=self.sample,
                    temperature=self.temperature,
                    start=partial(self.prefixes.start, self.model, shared=self.chat.shared))  # fmt: skip
        self.cache = None  # the turn holds it now, and lets it go once the batch has copied it
        if self.lockstep is not None:
            ids = self.lockstep.generate(turn)
        else:
            eos = self.tokenizer.eos_token_id
            ids = decode(self.model, [turn], max_new_tokens=self.max_new_tokens, eos=eos)[0]
        self.cache = turn.cache  # the episode's first turn made it from the shared part's cache
        return ids


class TeacherPolicy(_ChatPolicy):
    """A task's gold run, written as the turns the model is to learn (a supervised demonstration)."""

    name = "teacher"

    def begin(self, task: Task | None, messages: list[JSON], tools: list[JSON]) -> None:
        super().begin(task, messages, tools)
        self.gold = GoldPolicy()
        self.gold.begin(task, messages, tools)

    def act(self, new_messages: list[JSON]) -> JSON:
        self._read(new_messages)
        message = self._named(self.gold.act(new_messages))
        self.chat.add_text(render_action(message))
        return message


__all__ = ["OUT_OF_CONTEXT", "OUT_OF_TURNS", "LMPolicy", "Prefixes", "TeacherPolicy", "render_action", "render_turn"]

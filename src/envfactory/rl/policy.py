"""Policies: anything that turns the conversation so far into the next assistant message.

Candidate-based policies keep a :class:`~envfactory.rl.actions.Memory` of what they have seen and
pick one admissible action; the learned DRRN policy will plug in as another ``choose``.
"""

from __future__ import annotations

import json
import random
from typing import Any

from envfactory.ir.task import Task
from envfactory.ir.tool import wrapped_args, wrapper_of
from envfactory.rl.actions import Candidate, Memory, candidates

JSON = dict[str, Any]


class CandidatePolicy:
    """Tracks values seen, builds admissible actions, delegates the pick to :meth:`choose`."""

    name = "candidates"

    def begin(self, task: Task | None, messages: list[JSON], tools: list[JSON]) -> None:
        self.memory = Memory()
        self.tools = tools
        self.instruction = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
        self.memory.read_instruction(self.instruction)
        self.steps = 0

    def act(self, new_messages: list[JSON]) -> JSON:
        for message in new_messages:
            if message["role"] == "tool":
                self.memory.read_output(message["content"], self.memory.calls[-1][0] if self.memory.calls else "")
            elif message["role"] == "user":
                self.memory.read_instruction(message["content"], source="user")
        options = candidates(self.tools, self.memory, self.instruction)
        pick = options[self.choose(options)]
        if pick.kind == "reply" and pick.text.startswith("What is the "):
            self.memory.asked.add(pick.text[len("What is the ") : -1])
        elif pick.kind == "call":
            self.memory.calls.append((pick.tool, pick.args))
        self.steps += 1
        return pick.message()

    def choose(self, options: list[Candidate]) -> int:
        raise NotImplementedError


class RandomPolicy(CandidatePolicy):
    """Uniform over admissible actions: the chance baseline."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, options: list[Candidate]) -> int:
        return self.rng.randrange(len(options))


class NoopPolicy:
    """Replies at once: a sanity baseline that must score zero on kept tasks."""

    name = "noop"

    def begin(self, task: Task | None, messages: list[JSON], tools: list[JSON]) -> None:
        return None

    def act(self, new_messages: list[JSON]) -> JSON:
        return {"role": "assistant", "content": "All done."}


def shown_wrappers(tools: list[JSON]) -> dict[str, str]:
    """The object each tool of an OpenAI ``tools`` list takes all its arguments wrapped in
    (:func:`envfactory.ir.tool.wrapper_of`), by tool name."""
    out = {}
    for entry in tools:
        fn = entry.get("function") if isinstance(entry, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("name"), str) and isinstance(fn.get("parameters"), dict):
            wrapper = wrapper_of(fn["parameters"])
            if wrapper is not None:
                out[fn["name"]] = wrapper
    return out


class GoldPolicy:
    """Replays a task's gold plan through the message interface (an upper bound for eval)."""

    name = "gold"

    def begin(self, task: Task | None, messages: list[JSON], tools: list[JSON]) -> None:
        if task is None:
            raise ValueError("the gold policy needs a task")
        self.queue: list[JSON] = [
            {"role": "assistant", "content": f"What is the {label}?"} for label in task.user.facts
        ]
        wrappers = shown_wrappers(tools)  # each call as the tools shown take it: wrapped, where they say so
        for i, call in enumerate(task.gold):
            wrapper = wrappers.get(call.tool)
            args = call.args if wrapper is None else wrapped_args(call.args, wrapper)
            fn = {"name": call.tool, "arguments": json.dumps(args)}
            tool_call = {"id": f"g{i}", "type": "function", "function": fn}
            self.queue.append({"role": "assistant", "content": None, "tool_calls": [tool_call]})
        self.queue.append({"role": "assistant", "content": "All done. " + ", ".join(task.goal.answer)})

    def act(self, new_messages: list[JSON]) -> JSON:
        return self.queue.pop(0) if self.queue else {"role": "assistant", "content": "All done."}

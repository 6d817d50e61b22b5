"""An LLM-played user: the person on the other side, in a persona, knowing only the task's facts.

The opening request is the task's own instruction (it is what the task verifies). Each reply is
the model's, prompted with the persona, the request and the held-back facts; it is told to say it
does not know anything else. A reply without a question from the agent ends the conversation,
as with the scripted user. Whatever the model says is kept as it is: when it contradicts or
invents a fact, that is the user's error, which the judge flags and training masks.
"""

from __future__ import annotations

from envfactory.ir.task import Task
from envfactory.llm.client import LLMClient, LLMError
from envfactory.llm.types import ChatRequest
from envfactory.registry import Registry

PERSONAS: Registry[str] = Registry("persona")
PERSONAS.add("cooperative", "You are friendly and helpful; answer exactly what is asked, in one sentence.")
PERSONAS.add("terse", "You are busy; answer in as few words as possible.")
PERSONAS.add("confused", "You are a little unsure of yourself and say so, but the facts you give are the ones below.")
PERSONAS.add("impatient", "You are in a hurry and a bit annoyed at being asked; answer briefly.")
UNKNOWN = "I don't know that, sorry - I only know what I told you."


class LLMUser:
    def __init__(self, client: LLMClient, *, persona: str = "cooperative", seed: int = 0, max_tokens: int = 60) -> None:
        self.client, self.persona, self.seed, self.max_tokens = client, PERSONAS[persona], seed, max_tokens
        self.task: Task | None = None
        self.turns: list[dict[str, str]] = []

    def opening(self, task: Task | None) -> str:
        self.task, self.turns = task, []
        return task.instruction if task is not None else "Please help me with my request."

    def reply(self, text: str) -> str | None:
        if "?" not in text:
            return None  # a report, not a question: the conversation is over
        facts = dict(self.task.user.facts) if self.task is not None else {}
        known = "\n".join(f"- {label}: {value}" for label, value in facts.items()) or "- (nothing beyond your request)"
        system = (
            f"You are a person who asked an assistant for help. {self.persona}\n"
            f"Your request was: {self.task.instruction if self.task else 'help'}\n"
            f"Facts only you know (state them exactly when asked):\n{known}\n"
            f"If you are asked anything else, answer: {UNKNOWN} Never make up a fact."
        )
        self.turns.append({"role": "user", "content": text})  # the assistant's words, as the model sees them
        request = ChatRequest(messages=({"role": "system", "content": system}, *self.turns[-6:]),
                              max_tokens=self.max_tokens, seed=self.seed + len(self.turns))  # fmt: skip
        try:
            answer = self.client.chat(request).text.strip() or UNKNOWN
        except LLMError:
            answer = UNKNOWN
        self.turns.append({"role": "assistant", "content": answer})
        return answer


__all__ = ["PERSONAS", "UNKNOWN", "LLMUser"]

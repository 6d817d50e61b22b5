"""ScriptedUser: a user simulator built from a task, with no model behind it.

It opens with the instruction, answers questions about the facts it holds back, refuses to
invent anything else, and ends the conversation when the agent reports back.
"""

from __future__ import annotations

from envfactory.ir.task import Task

REFUSAL = "I'm not sure about that - I can only tell you what I know about my request."


class ScriptedUser:
    def __init__(self, task: Task | None = None) -> None:
        self.task = task
        self.facts = dict(task.user.facts) if task is not None else {}
        self.revealed: set[str] = set()

    def opening(self, task: Task | None) -> str:
        if task is not None and task is not self.task:
            self.task, self.facts, self.revealed = task, dict(task.user.facts), set()
        return task.instruction if task is not None else "Please help me with my request."

    def reply(self, text: str) -> str | None:
        if "?" not in text:
            return None  # a report, not a question: the conversation is over
        asked = [name for name in self.facts if _mentions(text, name)]
        if not asked:
            return REFUSAL
        self.revealed.update(asked)
        return " ".join(f"The {name} is {self.facts[name]}." for name in asked)


def _mentions(text: str, name: str) -> bool:
    words = name.casefold().split()
    low = text.casefold()
    return all(w in low for w in words)

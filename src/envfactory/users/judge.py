"""Judges: was a trajectory spoiled by the (simulated) user rather than by the agent?

A user who contradicts the task's facts ("the title is X" when it is Y) or invents facts the task
does not hold makes success impossible or meaningless; ERPO and the other estimators leave such
trajectories out (the *user-error mask*). :class:`FactJudge` reads the user's turns against the
task's held-back facts; it understands statements of the form "the <label> is <value>", which is
how the scripted user (and its randomized phrasings) speak. An LLM judge plugs into the same
:class:`Judge` protocol.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from envfactory.ir.task import Task
from envfactory.registry import Registry

JSON = dict[str, Any]
_STATEMENT = re.compile(r"\bthe ([a-z0-9 _\-]{1,60}?) is (.+?)\.(?:\s|$)", re.IGNORECASE)


class Judgement(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    spoiled: bool
    reasons: tuple[str, ...] = ()


class Judge(Protocol):
    def judge(self, task: Task, messages: Sequence[JSON]) -> Judgement:
        """Did the user's turns in ``messages`` contradict or invent facts of ``task``?"""
        ...


class FactJudge:
    """Flags user turns that state a held-back fact with another value, or a fact the task lacks."""

    name = "facts"

    def judge(self, task: Task, messages: Sequence[JSON]) -> Judgement:
        facts = {label.casefold(): str(value) for label, value in task.user.facts.items()}
        reasons: list[str] = []
        users = [m for m in messages if m.get("role") == "user"][1:]  # the opening request is the task's own
        for message in users:
            content = message.get("content")
            text = content if isinstance(content, str) else ""
            for label, value in _STATEMENT.findall(text):
                label, value = label.casefold().strip(), value.strip()
                if label in facts:
                    if value.casefold() != facts[label].casefold():
                        reasons.append(f"the user said the {label} is {value!r}; the task says {facts[label]!r}")
                elif facts:
                    reasons.append(f"the user stated a {label!r} the task does not hold")
        return Judgement(spoiled=bool(reasons), reasons=tuple(reasons))


JUDGES: Registry[Callable[[], Judge]] = Registry("judge")
JUDGES.add("facts", FactJudge)

__all__ = ["JUDGES", "FactJudge", "Judge", "Judgement"]

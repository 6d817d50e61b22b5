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


VERDICT_SCHEMA: JSON = {
    "type": "object",
    "properties": {"spoiled": {"type": "boolean"}, "reasons": {"type": "array", "items": {"type": "string"}}},
    "required": ["spoiled", "reasons"],
}


class LLMJudge:
    """A language model reads the user's turns against the task's facts and answers
    ``{"spoiled": bool, "reasons": [...]}``; an answer it cannot give or that does not parse counts
    as not spoiled (a judge must not mask what it did not flag), and is counted in ``unreadable``."""

    def __init__(self, client: Any) -> None:
        self.client, self.name, self.unreadable = client, f"llm:{client.model}", 0

    def judge(self, task: Task, messages: Sequence[JSON]) -> Judgement:
        from envfactory.llm.client import LLMError
        from envfactory.llm.types import ChatRequest

        users = [str(m.get("content") or "") for m in messages if m.get("role") == "user"][1:]
        if not users:
            return Judgement(spoiled=False)
        facts = "\n".join(f"- {label}: {value}" for label, value in task.user.facts.items()) or "- (none)"
        said = "\n".join(f"- {text}" for text in users)
        prompt = (
            "A simulated user answered an assistant's questions. The user may only state these facts, with "
            f"exactly these values:\n{facts}\n\nThe user said:\n{said}\n\nDid the user state any fact with a "
            "different value, or state a fact that is not listed? Answer with JSON: "
            '{"spoiled": true or false, "reasons": ["..."]}'
        )
        request = ChatRequest(
            messages=({"role": "user", "content": prompt},), json_schema=VERDICT_SCHEMA, max_tokens=80
        )
        try:
            text = self.client.chat(request).text
        except LLMError:
            self.unreadable += 1
            return Judgement(spoiled=False)
        verdict = _verdict(text)
        if verdict is None:
            self.unreadable += 1
            return Judgement(spoiled=False)
        return verdict


def _verdict(text: str) -> Judgement | None:
    """A verdict read leniently: the JSON object asked for; else the first ``"spoiled": true|false``
    anywhere in the text (small models wrap it in schema-like JSON); else a leading yes or no."""
    from envfactory.llm.toolcalls import json_in

    data = json_in(text, "{")
    if isinstance(data, dict) and isinstance(data.get("spoiled"), bool):
        reasons = tuple(str(r) for r in data.get("reasons") or () if r)[:5]
        return Judgement(spoiled=data["spoiled"], reasons=reasons)
    found = re.search(r'"?spoiled"?\s*:\s*(true|false)', text, re.IGNORECASE)
    if found:
        return Judgement(spoiled=found.group(1).lower() == "true")
    word = re.match(r"\s*(yes|no)\b", text, re.IGNORECASE)
    return Judgement(spoiled=word.group(1).lower() == "yes") if word else None


class NoJudge:
    """Flags nothing: every episode counts."""

    name = "none"

    def judge(self, task: Task, messages: Sequence[JSON]) -> Judgement:
        return Judgement(spoiled=False)


JUDGES: Registry[Callable[[], Judge]] = Registry("judge")
JUDGES.add("facts", FactJudge)
JUDGES.add("none", NoJudge)


def make_judge(spec: str | None, *, base_url: str | None = None, cache: Any = "default") -> Judge | None:
    """``facts`` (the rule judge), ``local`` or ``openai:NAME`` (an LLM judge), or None for no judge."""
    if not spec:
        return None
    if spec in JUDGES:
        return JUDGES[spec]()
    from envfactory.llm.client import make_client

    return LLMJudge(make_client(spec, base_url=base_url, cache=cache))


__all__ = ["JUDGES", "FactJudge", "Judge", "Judgement", "LLMJudge", "NoJudge", "make_judge"]

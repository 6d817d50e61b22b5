"""User randomization: the same request and answers, phrased by different people.

Besides greetings, sign-offs and chatty answers, a user may ``reword`` the request: clause-opening
verbs are swapped for everyday synonyms ("freeze" -> "put a hold on", "cancel" -> "call off"),
quoted values and ids untouched. And a user makes ``mistakes``: with that probability an answer
states a held-back fact with a wrong value. Such episodes are the agent's bad luck, not its
fault; a :class:`~envfactory.users.judge.FactJudge` flags them and training masks them out.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from envfactory.wrappers.base import FAMILIES, EpisodeWrapper, Family
from envfactory.wrappers.lexicon import USER_SYNONYMS, reword

JSON = dict[str, Any]
_GREETINGS = ("", "Hi there. ", "Hello! ", "Good morning. ", "hey, ")
_SIGN_OFFS = ("", " Thanks!", " Thank you.", " Let me know when you're done.", " cheers")
_ANSWER = ("{a}", "Sure - {a}", "Oh right: {a}", "{a} Hope that helps.", "Sorry, should have said. {a}")


class UserStyle(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    greeting: bool = False
    sign_off: bool = False
    casual: bool = False  # lower-case, fewer full stops
    chatty_answers: bool = False
    reword: bool = False  # verbs swapped for synonyms
    mistakes: float = Field(default=0.0, ge=0.0, le=1.0)  # chance that an answer states a fact wrongly


def sample_users(rng: random.Random) -> UserStyle:
    return UserStyle(
        greeting=rng.random() < 0.5,
        sign_off=rng.random() < 0.5,
        casual=rng.random() < 0.3,
        chatty_answers=rng.random() < 0.5,
        reword=rng.random() < 0.5,
        mistakes=0.2 if rng.random() < 0.3 else 0.0,
    )


class UserStyleWrapper(EpisodeWrapper):
    family = "users"
    config: UserStyle

    def on_reset(self) -> None:
        self._opening = self._restyle(self.inner.opening())

    def opening(self) -> list[JSON]:
        return self._opening

    def _restyle(self, messages: list[JSON]) -> list[JSON]:
        text = messages[-1]["content"]
        if self.config.reword:
            text = reword(text, USER_SYNONYMS, self.rng)
        if self.config.casual:
            text = text[0].lower() + text[1:].replace(". ", ", ")
        if self.config.greeting:
            text = self.rng.choice(_GREETINGS[1:]) + text
        if self.config.sign_off:
            text += self.rng.choice(_SIGN_OFFS[1:])
        return [*messages[:-1], {"role": "user", "content": text}]

    def respond(self, text: str) -> list[JSON]:
        answers = self.inner.respond(text)
        if self.config.mistakes and answers:
            answers = [{**m, "content": self._mistaken(m["content"])} for m in answers]
        if not self.config.chatty_answers:
            return answers
        return [{**m, "content": self.rng.choice(_ANSWER).format(a=m["content"])} for m in answers]

    def _mistaken(self, text: str) -> str:
        task = self.inner.task
        for value in task.user.facts.values() if task is not None else ():
            if str(value) in text and self.rng.random() < self.config.mistakes:
                text = text.replace(str(value), wrong_value(str(value)))
        return text


def wrong_value(value: str) -> str:
    """A plausible wrong version of a fact: a number off by a little, a text with a word changed."""
    try:
        number = float(value.replace(",", ""))
    except ValueError:
        words = value.split()
        return " ".join([*words[:-1], words[-1] + "s"]) if words else "something else"
    return f"{number + 7:g}" if "." not in value else f"{number + 7:.2f}"


STRESS = UserStyle(greeting=True, sign_off=True, casual=True, chatty_answers=True, reword=True)
FAMILIES.add("users", Family(UserStyle, UserStyleWrapper, sample_users, STRESS))

"""User randomization: the same request and answers, phrased by different people.

Besides greetings, sign-offs and chatty answers, a user may ``reword`` the request: clause-opening
verbs are swapped for everyday synonyms ("freeze" -> "put a hold on", "cancel" -> "call off"),
quoted values and ids untouched.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, ConfigDict

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


def sample_users(rng: random.Random) -> UserStyle:
    return UserStyle(
        greeting=rng.random() < 0.5,
        sign_off=rng.random() < 0.5,
        casual=rng.random() < 0.3,
        chatty_answers=rng.random() < 0.5,
        reword=rng.random() < 0.5,
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
        if not self.config.chatty_answers:
            return answers
        return [{**m, "content": self.rng.choice(_ANSWER).format(a=m["content"])} for m in answers]


STRESS = UserStyle(greeting=True, sign_off=True, casual=True, chatty_answers=True, reword=True)
FAMILIES.add("users", Family(UserStyle, UserStyleWrapper, sample_users, STRESS))

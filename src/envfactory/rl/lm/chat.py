"""A conversation as the exact token ids a model reads and writes.

The prompt (system text, the tools, the request) is rendered once with the tokenizer's chat
template. After that nothing is re-tokenized: what the model wrote is kept as the ids it sampled,
and each new turn (tool results, the user's answer) is appended as the ids of that turn alone —
the template's text around a turn, read off the template once per tokenizer. ``mask`` marks the
ids the model produced: the only ones a loss is taken over.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from envfactory.llm.toolcalls import prompt_messages

JSON = dict[str, Any]
_ASSISTANT, _USER = "ASSISTANTMARK7", "USERMARK7"


@lru_cache(maxsize=8)
def _turn_frame(tokenizer: Any) -> tuple[str, str]:
    """The template's text before and after a user turn's content that follows an assistant turn
    (up to the next assistant turn's opening), less the end-of-turn token the model writes."""
    messages = [{"role": "system", "content": "S"}, {"role": "user", "content": "U"},
                {"role": "assistant", "content": _ASSISTANT}, {"role": "user", "content": _USER}]  # fmt: skip
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    after = text[text.index(_ASSISTANT) + len(_ASSISTANT) :]
    head, tail = after.split(_USER, 1)
    eos = tokenizer.eos_token or ""
    if eos and head.startswith(eos):
        head = head[len(eos) :]
    return head, tail


@dataclass
class TokenChat:
    """Ids and the mask of the model's own ids, built turn by turn."""

    tokenizer: Any
    ids: list[int] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    prompt_length: int = 0
    shared: int = 0

    def start(self, messages: list[JSON], tools: list[JSON]) -> None:
        """The prompt: the episode's opening messages and the tools, as the client renders them.
        ``shared`` is the length of its part before the request (the system text, the tools, the
        worked examples): the same in every episode of an environment."""
        rendered = prompt_messages(messages, tools)
        text = self.tokenizer.apply_chat_template(rendered, tokenize=False, add_generation_prompt=True)
        self.ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        self.mask = [0] * len(self.ids)
        self.prompt_length = len(self.ids)
        self.shared = 0
        if len(rendered) > 1:
            head = self.tokenizer.apply_chat_template(rendered[:-1], tokenize=False)
            if text.startswith(head):
                ids = list(self.tokenizer(head, add_special_tokens=False)["input_ids"])
                self.shared = len(ids) if self.ids[: len(ids)] == ids and len(ids) < len(self.ids) else 0

    def add_model(self, ids: list[int], *, trained: bool = True) -> None:
        """The model's turn, as the ids it wrote; closed with the end-of-turn id if it was cut off
        (that id is not the model's: it is not trained on)."""
        eos = self.tokenizer.eos_token_id
        self.ids += ids
        self.mask += [1 if trained else 0] * len(ids)
        if not ids or ids[-1] != eos:
            self.ids.append(eos)
            self.mask.append(0)

    def add_text(self, text: str, *, trained: bool = True) -> None:
        """A turn written for the model, given as text: a gold demonstration (trained on), or a
        canned last word such as running out of turns (not trained on)."""
        ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        self.ids += [*ids, self.tokenizer.eos_token_id]
        self.mask += [1 if trained else 0] * (len(ids) + 1)

    def add_turn(self, content: str) -> None:
        """A turn the model reads (tool results, the user's answer), then the next turn's opening."""
        head, tail = _turn_frame(self.tokenizer)
        ids = list(self.tokenizer(head + content + tail, add_special_tokens=False)["input_ids"])
        self.ids += ids
        self.mask += [0] * len(ids)

    @property
    def trained(self) -> int:
        return sum(self.mask)


__all__ = ["TokenChat"]

"""A compact DRRN-style policy: score each admissible action against the conversation.

State and action are bags of hashed text features (instruction words, tool-name and description
words, argument names, where each value came from, overlaps between them), embedded with
``EmbeddingBag``; the score is the dot product of the two embeddings plus a linear term on the
action. Features are words, not tool ids, so the policy can act on tools it never saw.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import torch
from torch import nn

from envfactory.rl.actions import Candidate
from envfactory.rl.policy import CandidatePolicy
from envfactory.synth.naming import tokens

DIM = 1 << 14
_STOP = {"the", "a", "an", "of", "to", "and", "with", "its", "it", "is", "my", "me", "you", "i", "please",
         "could", "need", "then", "next", "after", "that", "once", "done", "for", "whose", "one", "among"}  # fmt: skip


@lru_cache(maxsize=1 << 16)
def hashed(feature: str) -> int:
    return zlib.crc32(feature.encode()) % DIM


def words(text: str) -> list[str]:
    return [w for w in tokens(text) if w not in _STOP and not w.isdigit()]


class Featurizer:
    """Turns the policy's view and a candidate into hashed feature ids."""

    def __init__(self, tools: list[dict[str, Any]], instruction: str) -> None:
        self.instruction = set(words(instruction))
        self.state_base = [f"i:{w}" for w in sorted(self.instruction)]
        self.tool_words = {}
        for entry in tools:
            fn = entry["function"]
            name_words = words(fn["name"])
            desc_words = words(fn.get("description", ""))[:16]
            self.tool_words[fn["name"]] = (name_words, desc_words)

    def state(self, last: str, steps: int, pending_ask: bool, tools_used: int, error: Sequence[str] = ()) -> list[int]:
        """``last``: ok / more / error / user / start; ``tools_used``: distinct tools called so far."""
        feats = [
            *self.state_base,
            *(f"e:{w}" for w in error),
            f"last:{last}",
            f"step:{min(steps, 6)}",
            f"ask:{pending_ask}",
            f"calls:{min(tools_used, 4)}",
        ]
        return [hashed(f) for f in feats]

    def action(
        self, cand: Candidate, called: set[tuple[str, str]], tools_called: set[str], pending_ask: bool
    ) -> list[int]:
        if cand.kind == "reply":
            kind = "question" if cand.text.endswith("?") else "facts" if cand.text != "All done." else "done"
            feats = [
                f"reply:{kind}",
                f"reply:{kind}:ask:{pending_ask}",
                f"reply:{kind}:calls:{min(len(tools_called), 3)}",  # distinct tools: pages and retries do not count
            ]
            return [hashed(f) for f in feats]
        name_words, desc_words = self.tool_words.get(cand.tool, ([], []))
        overlap_name = [w for w in name_words if w in self.instruction]
        overlap_desc = sum(w in self.instruction for w in desc_words)
        feats = ["kind:call", f"ovn:{len(overlap_name)}", f"ovd:{min(overlap_desc, 4)}", f"ask:{pending_ask}"]
        feats += [f"t:{w}" for w in name_words] + [f"d:{w}" for w in desc_words]
        feats += [f"ov:{w}" for w in overlap_name]
        hints = cand.hints or ("",) * len(cand.arguments)
        for (arg, _), source, hint in zip(cand.arguments, cand.sources, hints, strict=True):
            feats += [f"a:{w}" for w in words(arg)] + [f"src:{source}", f"as:{words(arg)[-1:]}:{source}"]
            if hint and source in ("max", "min"):  # "max" after "latest": the pairing a scorer must learn
                feats.append(f"hint:{source}&{hint}")
        feats.append(f"nargs:{min(len(cand.arguments), 4)}")
        if (cand.tool, repr(cand.arguments)) in called:
            feats.append("repeat")
        if cand.tool in tools_called:
            feats.append("tool_again")
        return [hashed(f) for f in feats]


class DRRN(nn.Module):
    def __init__(self, hidden: int = 48) -> None:
        super().__init__()
        self.state = nn.EmbeddingBag(DIM, hidden, mode="sum")
        self.action = nn.EmbeddingBag(DIM, hidden, mode="sum")
        self.bias = nn.EmbeddingBag(DIM, 1, mode="sum")
        for table in (self.state, self.action):
            nn.init.normal_(table.weight, std=0.05)
        nn.init.zeros_(self.bias.weight)

    def forward(self, state: list[int], actions: list[list[int]]) -> torch.Tensor:
        """Logits over the candidates of one decision."""
        s = torch.tanh(self.state(torch.tensor(state), torch.tensor([0])))
        flat = [i for ids in actions for i in ids]
        offsets = torch.tensor([0, *torch.cumsum(torch.tensor([len(a) for a in actions[:-1]]), 0).tolist()])
        ids = torch.tensor(flat)
        a = torch.tanh(self.action(ids, offsets))
        return (a @ s.T).squeeze(1) + self.bias(ids, offsets).squeeze(1)


Decision = tuple[list[int], list[list[int]], int, float]  # state, candidates, index picked, its log-prob


class FeaturePolicy(CandidatePolicy):
    """A candidate policy that tracks what a DRRN sees and records each decision's features;
    subclasses decide (:class:`DRRNPolicy` by the model, the imitation teacher by the gold plan)."""

    record: list[Decision] | None = None

    def begin(self, task: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> None:
        super().begin(task, messages, tools)
        self.features = Featurizer(tools, self.instruction)
        self.last = "start"
        self.error: list[str] = []
        self.record = []

    def act(self, new_messages: list[dict[str, Any]]) -> dict[str, Any]:
        for message in new_messages:
            if message["role"] == "tool":
                self.last, self.error = _reading(message["content"])
            elif message["role"] == "user":
                self.last, self.error = "user", []
        return super().act(new_messages)

    def featurize(self, options: list[Candidate]) -> tuple[list[int], list[list[int]]]:
        """The state's and each candidate's hashed features at this decision."""
        pending = bool(self.memory.hidden_labels(self.instruction))
        called = {(t, repr(tuple(a.items()))) for t, a in self.memory.calls}
        tools_called = {t for t, _ in self.memory.calls}
        state = self.features.state(self.last, self.steps, pending, len(tools_called), self.error)
        return state, [self.features.action(c, called, tools_called, pending) for c in options]


class DRRNPolicy(FeaturePolicy):
    """Samples (or, with ``greedy``, takes the best) admissible action under a :class:`DRRN`."""

    name = "drrn"

    def __init__(self, model: DRRN, *, seed: int = 0, greedy: bool = False) -> None:
        self.model, self.greedy = model, greedy
        self.generator = torch.Generator().manual_seed(seed)

    def choose(self, options: list[Candidate]) -> int:
        state, actions = self.featurize(options)
        with torch.no_grad():
            logp = torch.log_softmax(self.model(state, actions), 0)
        index = int(logp.argmax()) if self.greedy else int(torch.multinomial(logp.exp(), 1, generator=self.generator))
        if self.record is not None:
            self.record.append((state, actions, index, float(logp[index])))
        return index


_MORE = re.compile(r'"has_?more":\s*true', re.IGNORECASE)


def _reading(content: str) -> tuple[str, list[str]]:
    """What a tool message tells the policy: ``ok``, ``more`` (a page of a longer list) or
    ``error``, and the error's words.

    The words of the code and message ("503", "busy", "retry", "not found") are the only hint
    whether retrying can help; nothing is special-cased, so a policy must learn it.
    """
    if not content.startswith('{"error"'):
        return ("more" if _MORE.search(content) else "ok"), []
    try:
        error = json.loads(content)["error"]
        text = f"{error.get('code', '')} {error.get('message', '')}" if isinstance(error, dict) else str(error)
    except (json.JSONDecodeError, KeyError, TypeError):
        text = content
    return "error", sorted(set(words(text[:200])))[:16]

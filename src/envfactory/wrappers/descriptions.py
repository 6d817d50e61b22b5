"""Description randomization: paraphrased and renamed tools, distractor tools, and a random
subset of the tools per episode (never one the task's gold plan needs).

Renaming and paraphrasing swap verbs for synonyms (:mod:`envfactory.wrappers.lexicon`), so a
policy cannot lean on one API's vocabulary. Distractors are either administrative tools or
*deprecated twins* of real ones (``freeze_account_v1``: same arguments, a description that says
it is deprecated, and an error when called), the kind of wart real API catalogues carry.
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, ConfigDict

from envfactory.runtime.result import ToolResult
from envfactory.synth.naming import tokens
from envfactory.wrappers.base import FAMILIES, EpisodeWrapper, Family
from envfactory.wrappers.lexicon import NAME_SYNONYMS, rename_verb, reword
from envfactory.wrappers.output import recase

JSON = dict[str, Any]
_LEADS = ("Use this to {d}", "{D}", "Call this tool to {d}", "This operation lets you {d}", "Tool: {D}")
_DISTRACTORS = ("export_report", "sync_cache", "archive_everything", "send_newsletter", "rebuild_index",
                "audit_log", "reset_all", "bulk_import")  # fmt: skip


class Descriptions(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    paraphrase: bool = False
    rename: bool = False
    distractors: int = 0
    keep_fraction: float = 1.0  # share of the tools not needed by the task that stay available


def sample_descriptions(rng: random.Random) -> Descriptions:
    return Descriptions(
        paraphrase=rng.random() < 0.6,
        rename=rng.random() < 0.4,
        distractors=rng.choice((0, 0, 1, 2, 3)),
        keep_fraction=rng.choice((1.0, 1.0, 0.8, 0.6)),
    )


def paraphrase(text: str, rng: random.Random) -> str:
    """A new lead-in, and the verbs swapped for synonyms ("Freeze an account" -> "Use this to block an account")."""
    first = (text.strip().split("\n")[0] or "Run this operation.").rstrip(".")
    lead = rng.choice(_LEADS)
    return reword(lead.format(d=first[0].lower() + first[1:], D=first) + ".", NAME_SYNONYMS, rng)


def rename(name: str, rng: random.Random) -> str:
    words = rename_verb(list(tokens(name)) or [name], rng)
    if len(words) > 1 and rng.random() < 0.4:
        words = [*words[1:], words[0]]  # order_get
    joined = "_".join(words)
    return recase(joined, rng.choice((None, "camel"))) if rng.random() < 0.5 else joined


class DescriptionsWrapper(EpisodeWrapper):
    family = "descriptions"
    config: Descriptions

    def on_reset(self) -> None:
        task = self.inner.task
        needed = {c.tool for c in task.gold} if task is not None else set()
        offered: list[JSON] = []
        self.real: dict[str, str] = {}  # shown name -> real name
        for entry in self.inner.tools:
            fn = entry["function"]
            real = fn["name"]
            if real not in needed and self.rng.random() > self.config.keep_fraction:
                continue
            shown = rename(real, self.rng) if self.config.rename else real
            while shown in self.real:
                shown += "_v2"
            self.real[shown] = real
            desc, params = fn.get("description", ""), fn.get("parameters") or {}
            if self.config.paraphrase:
                desc, params = paraphrase(desc, self.rng), self._paraphrase_params(params)
            offered.append(
                {"type": "function", "function": {**fn, "name": shown, "description": desc, "parameters": params}}
            )
        self.distractors: set[str] = set()
        self.retired: set[str] = set()  # the deprecated twins among the distractors
        twins = list(offered)
        for _ in range(self.config.distractors):
            twin = bool(twins) and self.rng.random() < 0.6  # a deprecated twin of a tool on offer
            if twin:
                fn = twins.pop(self.rng.randrange(len(twins)))["function"]
                name = fn["name"] + self.rng.choice(("_v1", "_legacy", "V1", "_old"))
                desc = f"Deprecated: {fn.get('description', '')} Kept for old clients; do not use."
                entry = {**fn, "name": name, "description": desc}
            else:
                name = self.rng.choice([d for d in _DISTRACTORS if d not in self.distractors])
                entry = {"name": name, "description": f"{name.replace('_', ' ').capitalize()} (administrative).",
                         "parameters": {"type": "object", "properties": {}}}  # fmt: skip
            if name in self.real or name in self.distractors:
                continue
            self.distractors.add(name)
            if twin:
                self.retired.add(name)
            offered.append({"type": "function", "function": entry})
        self.rng.shuffle(offered)
        self.offered = offered

    def _paraphrase_params(self, schema: JSON) -> JSON:
        """Parameter descriptions reworded too (names stay: they are the call's contract)."""
        props = {
            name: {**prop, "description": paraphrase(prop["description"], self.rng)}
            if prop.get("description")
            else prop
            for name, prop in (schema.get("properties") or {}).items()
        }
        return {**schema, "properties": props}

    @property
    def tools(self) -> list[JSON]:
        return self.offered

    def call_tool(self, name: str, arguments: JSON | str | None = None) -> ToolResult:
        if name in self.distractors:
            why = "has been retired" if name in self.retired else "is not permitted"
            return self.inner.reject(f"{name} {why} for this account", "precondition_failed")
        real = self.real.get(name) if isinstance(name, str) else None
        if real is None:  # hidden or unknown: the same error as for any unknown tool
            return self.inner.reject(
                f"unknown tool {str(name)[:80]!r}; available: {', '.join(self.real)}", "unknown_tool"
            )
        return self.inner.call_tool(real, arguments)


STRESS = Descriptions(paraphrase=True, rename=True, distractors=3, keep_fraction=0.6)
FAMILIES.add("descriptions", Family(Descriptions, DescriptionsWrapper, sample_descriptions, STRESS))

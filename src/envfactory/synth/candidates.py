"""Candidates and the proposers that put them forward, from the descriptions and from evidence.

A :class:`Candidate` is one behaviour for one tool, with the entities it implies (a changed key
format, say) and what would confirm it. A proposer reads the environment synthesized so far and
the :class:`Evidence` at hand — calls the real implementation answered, each beside what the
current model answered to the same call — and returns candidates; the chooser
(:mod:`envfactory.synth.chooser`) keeps the ones the evidence favours. Adding a way a tool can
behave is adding a proposer to :data:`PROPOSERS`; none is consulted before another.

The description-only synthesis (:func:`envfactory.synth.build.synthesize`) is the prior every
tool starts from: its behaviour is the ``descriptions`` candidate, kept unless evidence prefers
another.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from envfactory.ir.choice import Answer
from envfactory.ir.effect import Behaviour, CreateEffect, FallbackEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import Entity
from envfactory.registry import Registry
from envfactory.runtime.answers import REFUSED, args_key, fill

JSON = dict[str, Any]


@dataclass(frozen=True)
class Pair:
    """One call of the evidence: what the real side answered, and what the current model answered."""

    args: JSON  # as the real side was called
    real_ok: bool
    real: Any  # the real reply (ids translated to the model's), or the refusal's message
    model_ok: bool
    model: Any  # the model's reply, or its refusal's message


@dataclass(frozen=True)
class Evidence:
    """Calls per tool, in the order they were made."""

    pairs: dict[str, list[Pair]] = field(default_factory=dict)

    @property
    def calls(self) -> int:
        return sum(len(p) for p in self.pairs.values())


@dataclass(frozen=True)
class Candidate:
    tool: str
    proposer: str
    summary: str  # the behaviour in words
    behaviour: Behaviour
    entities: tuple[Entity, ...] = ()  # entities it replaces (by name)
    confirms: str = ""  # what would confirm it

    @property
    def key(self) -> tuple[str, str, str]:
        return self.tool, self.proposer, self.summary

    def applied(self, spec: EnvSpec) -> EnvSpec:
        """``spec`` with this candidate's behaviour and entities in place."""
        behaviours = tuple(self.behaviour if b.tool == self.tool else b for b in spec.behaviours)
        update: JSON = {"behaviours": behaviours}
        if self.entities:
            replaced = {e.name: e for e in self.entities}
            schema = spec.state_schema.model_copy(
                update={"entities": tuple(replaced.get(e.name, e) for e in spec.state_schema.entities)}
            )
            update["state_schema"] = schema
        return spec.model_copy(update=update)


Proposer = Callable[[EnvSpec, Evidence], list[Candidate]]
# registered from the most general to the most particular: between candidates the evidence scores
# the same, the chooser keeps the first (a template over replies recorded call by call)
PROPOSERS: Registry[Proposer] = Registry("proposer")


@PROPOSERS.register("template")
def reply_templates(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """Replies worded the same way every time — text or JSON — with what varies filled from the
    arguments and from the model's own answer (``"Created task {out.id}: {arg.title}"``,
    ``{"success": true, "message": "Entities deleted successfully"}``)."""
    out = []
    for tool, pairs in evidence.pairs.items():
        seen = [p for p in pairs if p.real_ok and p.model_ok and p.real not in (None, "", [], {})]
        if len(seen) < 2 or len(seen) * 2 < sum(p.real_ok for p in pairs):
            continue
        made = Counter(_canonical(template_of(p.real, p.args, p.model)) for p in seen)
        text, count = made.most_common(1)[0]
        template = orjson.loads(text)
        fits = sum(fill(template, p.args, p.model) == p.real for p in seen)
        if count < 2 or fits * 2 < len(seen) or template == _first_model(seen):
            continue
        behaviour = spec.behaviour(tool).model_copy(update={"answer": Answer(kind="template", template=template)})
        shown = text if len(text) <= 80 else text[:77] + "..."
        out.append(Candidate(tool, "template", f"answers {shown}", behaviour,
                             confirms="every accepted call answers this wording"))  # fmt: skip
    return out


def _canonical(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def _first_model(pairs: list[Pair]) -> Any:
    return pairs[0].model


@PROPOSERS.register("integer-keys")
def integer_keys(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A create whose real replies carry the counter the model's own key ends in (``3`` where the
    model minted ``task_0003``): the real keys are integers counted from one."""
    out = []
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if not isinstance(effect, CreateEffect) or effect.key_arg is not None:
            continue
        entity = spec.state_schema[effect.entity]
        if entity.key_type == "integer":
            continue
        made = [p for p in pairs if p.real_ok and p.model_ok]
        hits = sum(_counter_in(p.real, p.model, entity) for p in made)
        if not made or hits * 2 < len(made):
            continue
        changed = entity.model_copy(update={"key_type": "integer", "key_schema": {}})
        out.append(Candidate(tool, "integer-keys", f"{entity.name} keys are integers from 1", spec.behaviour(tool),
                             entities=(changed,), confirms="each create answers the next integer"))  # fmt: skip
    return out


@PROPOSERS.register("refuses")
def refuses(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A tool the real side refused on most calls the model accepted: it refuses (and changes nothing)."""
    out = []
    for tool, pairs in evidence.pairs.items():
        if not pairs or sum(not p.real_ok for p in pairs) * 5 < len(pairs) * 4:
            continue
        if all(not p.model_ok for p in pairs):
            continue
        reason = Counter(str(p.real) for p in pairs if not p.real_ok).most_common(1)[0][0]
        behaviour = Behaviour(tool=tool, effect=FallbackEffect(reason=reason[:200], writes=True), fidelity="low",
                              notes=("the real implementation refused it",))  # fmt: skip
        out.append(Candidate(tool, "refuses", "refuses", behaviour, confirms="the real side refuses every call"))
    return out


@PROPOSERS.register("accepts")
def accepts(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A tool the real side accepted where the model refused most calls: it answers without refusing."""
    out = []
    for tool, pairs in evidence.pairs.items():
        real_ok = [p for p in pairs if p.real_ok]
        refused = sum(not p.model_ok for p in real_ok)
        if len(real_ok) < 2 or refused * 2 < len(real_ok) or sum(p.real_ok for p in pairs) * 5 < len(pairs) * 4:
            continue
        behaviour = Behaviour(tool=tool, effect=FallbackEffect(reason="the real implementation accepts it"),
                              fidelity="low", notes=("accepts every call, as the real one did",))  # fmt: skip
        out.append(Candidate(tool, "accepts", "accepts every call", behaviour,
                             confirms="the real side accepts calls the descriptions' model refuses"))  # fmt: skip
    return out


@PROPOSERS.register("recorded")
def recorded_answers(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """Replies that did not depend on the state: the same arguments always answered the same (reference
    data, a schema, a fixed refusal). The effect still runs; the reply is the recorded one."""
    out = []
    for tool, pairs in evidence.pairs.items():
        table: dict[str, Any] = {}
        steady = True
        for p in pairs:
            reply = p.real if p.real_ok else {REFUSED: p.real or "refused"}
            key = args_key(p.args)
            if key in table and table[key] != reply:
                steady = False
                break
            table[key] = reply
        if not steady or not table:
            continue
        behaviour = spec.behaviour(tool)
        answer = Answer(kind="recorded", recorded=table)
        out.append(Candidate(tool, "recorded", f"replies recorded for {len(table)} argument set(s)",
                             behaviour.model_copy(update={"answer": answer}),
                             confirms="the same arguments answer the same at any point of a sequence"))  # fmt: skip
    return out


def template_of(real: Any, args: JSON, model: Any) -> Any:
    """``real`` (text or JSON) with the values it shares with the arguments and the model's answer
    as slots: a whole value becomes one slot (keeping its type), words inside a text become slots
    (arguments first, longer values first, whole words only)."""
    slots: dict[str, str] = {}
    for path, value in _leaves(args):
        slots.setdefault(_word(value), f"{{arg.{path}}}")
    for path, value in _leaves(model):
        slots.setdefault(_word(value), f"{{out.{path}}}")
    return _templated(real, slots)


def _templated(real: Any, slots: dict[str, str]) -> Any:
    if isinstance(real, dict):
        return {k: _templated(v, slots) for k, v in real.items()}
    if isinstance(real, list):
        return [_templated(v, slots) for v in real]
    if isinstance(real, bool) or real is None:
        return real
    if isinstance(real, (int, float)):
        return slots.get(str(real), real)
    if not isinstance(real, str) or not slots:
        return real
    if real in slots:
        return slots[real]
    values = sorted(slots, key=len, reverse=True)  # one pass, longest first: a slot is never rewritten
    pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(v) for v in values) + r")(?![\w-])")
    return pattern.sub(lambda m: slots[m.group(1)], real)


def _word(value: Any) -> str:
    return value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)


def _leaves(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """Scalar leaves worth a slot: non-empty strings and numbers, by dotted path."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value[:20]) for leaf in _leaves(v, f"{path}[{i}]")]
    if isinstance(value, bool) or value is None or (isinstance(value, str) and not value.strip()):
        return []
    return [(path, value)] if isinstance(value, (str, int, float)) else []


def _counter_in(real: Any, model: Any, entity: Entity) -> bool:
    """Whether the real reply carries, as an integer, the number the model's minted key ends in."""
    keys = [v for p, v in _leaves(model) if isinstance(v, str) and p.rsplit(".", 1)[-1] in _key_names(entity)]
    numbers = {int(m) for m in re.findall(r"\d+", keys[0])[-1:]} if keys else set()
    if not numbers:
        return False
    found = {int(v) for _p, v in _leaves(real) if isinstance(v, int) and not isinstance(v, bool)}
    if isinstance(real, str):
        found |= {int(m) for m in re.findall(r"(?<![\w.-])\d+(?![\w.-])", real)}
    found |= {int(v) for _p, v in _leaves(real) if isinstance(v, str) and v.isdigit()}
    return bool(numbers & found)


def _key_names(entity: Entity) -> set[str]:
    return {entity.key, f"{entity.name}_id", f"{entity.name}Id"}


__all__ = ["PROPOSERS", "Candidate", "Evidence", "Pair", "Proposer", "template_of"]

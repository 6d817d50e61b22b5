"""Service tasks: a person says who they are and what they want done to one of their records.

The shape a customer-service desk sees every day: "Hi, my e-mail is ana@example.com. Please
cancel my pending order, I ordered it by mistake." The agent must find the person by what they
said (a look-up, :mod:`envfactory.synth.look-ups`), read what they own (a list of their records),
tell which record they mean (the one in the state the request names, or the one holding the value
they mention), and act on it — an action or a change the descriptions allow only in some states.

A :class:`Plan` is one such chain in an environment: look-up → list of owned records → act. A
task draws a person whose records make the request unambiguous, says it in plain words (what
the person knows, never an id), and keeps the final state the gold calls reach as its goal; the
usual self-test then decides whether it is kept.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from envfactory.ir.effect import ActionEffect, ListEffect, UpdateEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.task import Call, Goal, Origin, Task
from envfactory.runtime.environment import Environment
from envfactory.seeding import derive_seed
from envfactory.synth.naming import tokens
from envfactory.synth.statuses import STATE_WORDS
from envfactory.tasks.errors import Rejected
from envfactory.tasks.render import show, words
from envfactory.values import ValueMaker

JSON = dict[str, Any]
_HELLO = ("Hi!", "Hello.", "Hi there.", "")
_ASK = ("Please", "Could you", "I'd like you to", "Can you")


@dataclass(frozen=True)
class Plan:
    """A look-up of a person, the list of their records, and a tool acting on one record."""

    lookup: str
    person: str
    listing: str
    owner_arg: str  # the listing's argument holding the person's key
    owner_field: str  # the record's field that refers to the person
    record: str
    act: str


def service_plans(spec: EnvSpec) -> list[Plan]:
    """Every look-up → owned-records list → act chain the environment's behaviours allow."""
    effects = {b.tool: b.effect for b in spec.behaviours}
    plans = []
    for lookup, found in effects.items():
        if not isinstance(found, ListEffect) or found.finds is None:
            continue
        person = found.entity
        for listing, listed in effects.items():
            if not isinstance(listed, ListEffect) or listed.finds is not None or listed.entity == person:
                continue
            record = spec.state_schema[listed.entity]
            owner = next((f for f in listed.filters if f.op == "eq" and record.refs.get(f.field or "") == person),
                         None)  # fmt: skip
            if owner is None or owner.field is None:
                continue
            for act, effect in effects.items():
                if isinstance(effect, (ActionEffect, UpdateEffect)) and effect.entity == record.name:
                    plans.append(Plan(lookup, person, listing, owner.arg, owner.field, record.name, act))
    return plans


class ServiceTasks:
    """``task(seed, attempt)`` like the walk-based factory, for the chains :func:`service_plans` finds."""

    def __init__(self, env: Environment) -> None:
        self.env, self.spec = env, env.spec
        self.plans = service_plans(env.spec)
        self.maker = ValueMaker(0, env.spec.config.clock_start, brief=True)

    def task(self, seed: int, attempt: int) -> Task:
        rng = random.Random(derive_seed(seed, "service", attempt))
        self.maker.reseed(derive_seed(seed, "service-values", attempt))
        plan = rng.choice(self.plans)
        episode = self.env.episode(max_steps=100)
        store, schema = episode.store, self.spec.state_schema
        person_key, record = schema[plan.person].key, schema[plan.record]
        lookup = self.spec.behaviour(plan.lookup).effect
        act = self.spec.behaviour(plan.act).effect
        assert isinstance(lookup, ListEffect) and isinstance(act, (ActionEffect, UpdateEffect))
        owner_field = plan.owner_field
        known = [f.field or f.arg for f in lookup.filters]
        people = [p for p in store.rows(plan.person) if all(p.get(f) is not None for f in known)]
        rng.shuffle(people)
        for person in people:
            said = {f.arg: person[f.field or f.arg] for f in lookup.filters}
            if sum(all(p.get(f.field or f.arg) == said[f.arg] for f in lookup.filters)
                   for p in store.rows(plan.person)) != 1:  # fmt: skip
                continue  # two people answer to what this one would say
            owned = [r for r in store.rows(record.name) if r.get(owner_field) == person[person_key]]
            picked = _singled_out(act, owned, rng, record.key)
            if picked is not None:
                break
        else:
            raise Rejected(f"nobody found by {plan.lookup} owns a {record.name} that {plan.act} can act on alone")
        row, how = picked
        args = {act.key_arg: row[record.key], **self._extra(plan, act)}
        calls = [
            Call(tool=plan.lookup, args=said),
            Call(tool=plan.listing, args={plan.owner_arg: person[person_key]}),
            Call(tool=plan.act, args=args),
        ]
        for call in calls:
            result = episode.call_tool(call.tool, call.args)
            if not result.ok:
                raise Rejected(f"the gold call {call.tool} fails: {result.content[:80]}")
        final = episode.state_hash()
        if final == self.env.base.hash:
            raise Rejected("the gold plan leaves the state unchanged")
        instruction = self._say(plan, act, said, how, args, rng)
        rows = {e: {str(k): r for k, r in changed.items()} for e, changed in store.changes().items()}
        return Task(env=self.spec.name, id=f"{self.spec.name}-{seed}-{attempt}", seed=attempt, instruction=instruction,
                    gold=tuple(calls), goal=Goal(state_hash=final, rows=rows), max_steps=2 * len(calls) + 6,
                    difficulty=float(len(calls)), level=len(calls),
                    origin=Origin(generator="service/1", seed=seed, attempt=attempt))  # fmt: skip

    def _extra(self, plan: Plan, act: ActionEffect | UpdateEffect) -> JSON:
        """The act's other required arguments, each a value its schema allows (an enum's: a reason)."""
        tool = self.spec.tools[plan.act]
        out: JSON = {}
        for arg in tool.required:
            if arg == act.key_arg or tool.is_transport(arg):
                continue
            prop = tool.properties.get(arg) or {}
            out[arg] = self.maker.value(prop, arg, plan.record)
        return out

    def _say(self, plan: Plan, act: ActionEffect | UpdateEffect, said: JSON, how: str, args: JSON,
             rng: random.Random) -> str:  # fmt: skip
        who = " and ".join(f"my {words(a)} is {show(v)}" for a, v in said.items())
        extra = {a: v for a, v in args.items() if a != act.key_arg}
        ask = rng.choice(_ASK)
        if isinstance(act, UpdateEffect):
            changes = " and its ".join(f"{words(act.args.get(a, a))} to {show(v)}" for a, v in extra.items())
            deed = f"{ask} change my {how}: set its {changes}." if changes else f"{ask} update my {how}."
        else:
            why = next((v for a, v in extra.items() if "reason" in tokens(a)), None)
            rest = [f"{words(a)} {show(v)}" for a, v in extra.items() if "reason" not in tokens(a)]
            deed = f"{ask} {_deed(plan.act, plan.record)} my {how}"
            deed += f" ({' and '.join(rest)})" if rest else ""
            deed += f"; the reason is {show(why)}." if why is not None else "."
        if ask.endswith("you") and deed.endswith("."):  # "Could you ...?" asks
            deed = deed[:-1] + "?"
        text = f"{rng.choice(_HELLO)} {who[0].upper() + who[1:]}. {deed}"
        return " ".join(text.split())


def _singled_out(act: ActionEffect | UpdateEffect, owned: list[JSON], rng: random.Random, record_key: str,
                 ) -> tuple[JSON, str] | None:  # fmt: skip
    """One of the person's records the act can take, and how the person names it: by the state the
    act needs when only that record is in it ("pending order"), else by a value no other of their
    records holds ("order whose city is 'Lyon'")."""
    ready = [r for r in owned if _ready(act, r)]
    if not ready:
        return None
    states = _needed(act)
    entity = act.entity
    if states and len(owned) > 1:
        field, values = states
        in_state = [r for r in owned if r.get(field) in values]
        if len(in_state) == 1 and in_state[0] in ready:
            return in_state[0], f"{in_state[0][field]} {words(entity)}"
    row = rng.choice(ready)
    if len(owned) == 1:
        return row, words(entity)
    for field, value in row.items():
        if field.startswith("_") or isinstance(value, (dict, list)) or value in (None, ""):
            continue
        if tokens(field)[-1:] == ("id",) or field == record_key or field in getattr(act, "args", {}).values():
            continue
        if sum(r.get(field) == value for r in owned) == 1:
            return row, f"{words(entity)} whose {words(field)} is {show(value)}"
    return None


def _needed(act: ActionEffect | UpdateEffect) -> tuple[str, tuple[Any, ...]] | None:
    if isinstance(act, ActionEffect) and act.allowed_from:
        return act.field, act.allowed_from
    if isinstance(act, UpdateEffect) and act.when:
        return next(iter(act.when.items()))
    return None


def _ready(act: ActionEffect | UpdateEffect, row: JSON) -> bool:
    if isinstance(act, ActionEffect):
        value = row.get(act.field)
        if act.allowed_from is not None and value not in act.allowed_from:
            return False
        return value not in act.forbidden_from and value != act.to
    return all(row.get(f) in allowed for f, allowed in act.when.items())


def _deed(tool: str, entity: str) -> str:
    """What the person asks done, in the tool's own words before the record's noun, less the states:
    ``cancel_pending_order`` -> "cancel", ``check_in_confirmed_booking`` -> "check in"."""
    named = set(tokens(entity))
    words_ = list(tokens(tool))
    at = next((i for i, t in enumerate(words_) if t in named), len(words_))
    verb = [t for t in words_[:at] if t not in STATE_WORDS]
    return " ".join(verb) or "update"


__all__ = ["Plan", "ServiceTasks", "service_plans"]

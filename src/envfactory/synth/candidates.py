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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from envfactory.ir.effect import Behaviour
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import Entity
from envfactory.registry import Registry
from envfactory.runtime.answers import opened_text

JSON = dict[str, Any]


@dataclass(frozen=True)
class Pair:
    """One call of the evidence: what the real side answered, and what the current model answered."""

    args: JSON  # as the model was called (the real side's ids translated to the model's)
    real_ok: bool
    real: Any  # the real reply (ids translated to the model's), or the refusal's message
    model_ok: bool
    model: Any  # the model's reply, or its refusal's message
    raw: Any = None  # what the model's effect produced before shaping (the whole record a create made)
    index: int = -1  # the call's place in its sequence
    fresh: bool = False  # no write was accepted before it in its sequence: it saw the starting state
    # how many records the model held just after the call, by ``{count:...}`` slot (:func:`state_tallies`)
    tallies: dict[str, int] = field(default_factory=dict)
    shaped: Any = None  # where the model's reply is a learned wording: what it worded (``None``: not worded)
    # the records the model held just after a call it accepted, by entity (:func:`state_rows`; rows are
    # never mutated; the real side may have refused it)
    state: dict[str, list[JSON]] = field(default_factory=dict)
    recorded: Any = None  # the real reply as the real side answered it, its ids not translated (accepted calls)
    called: JSON | None = None  # the arguments as the real side was called, its ids not translated
    # the records the model held when it refused a call of an action (which it left as they were):
    # what was under the record named, for :mod:`envfactory.synth.proposers.children`
    held: dict[str, list[JSON]] = field(default_factory=dict)
    sequence: Any = None  # the id of the call's sequence: with ``index``, what came before and after it
    said: str | None = None  # a refusal's words as the real side gave them (``TraceCall.message``)

    @property
    def answered(self) -> Any:
        """The real reply as the real side answered it, opened: its ids and numbers not the model's."""
        return opened_text(self.real if self.recorded is None else self.recorded)

    @property
    def given(self) -> JSON:
        """The arguments as the real side was given them: its own ids, not the model's."""
        return self.args if self.called is None else self.called

    @property
    def out(self) -> Any:
        """What a reply template's ``{out}`` fills from: the model's answer before any learned wording."""
        return self.model if self.shaped is None else self.shaped


@dataclass(frozen=True)
class Evidence:
    """Calls per tool, in the order they were made; calls known to be accepted (the user's setup
    calls, which every fresh copy accepted before its sequence), as ``(tool, arguments)``; the reads
    of each sequence's final state; and the reply places whose values the real thing does not
    reproduce."""

    pairs: dict[str, list[Pair]] = field(default_factory=dict)
    accepted: tuple[tuple[str, JSON], ...] = ()
    # reply places a fresh copy answers otherwise (``envfactory.real.volatile``): a template holds
    # a value of the real kind there, since every comparison marks them (prose: its numbered words)
    volatile: frozenset[str] = frozenset()
    # each sequence's end: what the real side's final state reads answered (in the model's ids),
    # beside the records the model then held by entity — the records its calls made, as the real
    # side shows them (:func:`envfactory.synth.proposers.keys.read_back`); no call, so no pair
    ends: tuple[tuple[tuple[Any, ...], dict[str, list[JSON]]], ...] = ()
    # the actions as the descriptions gave them, of the tools whose behaviour a choice has replaced by
    # a fallback (a refusal chosen while the model's keys were not the real side's): a proposer may
    # refine the action the evidence then refuted (:mod:`envfactory.synth.proposers.children`)
    described: dict[str, Behaviour] = field(default_factory=dict)
    # the reads of each sequence's final state, for the reads the sequences call often in between
    # (``chooser.FEW_CALLS``; the others' are among ``pairs``): kept apart, for what the model's drift by
    # then does not mislead — the values an accepted read's arguments took, the order of the rows both
    # sides list where no list in between showed one, the marks a status is worded by
    at_end: dict[str, list[Pair]] = field(default_factory=dict)

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
    rows: dict[str, list[JSON]] | None = None  # starting records it replaces, by entity
    # it corrects what the model holds (values of its records, read off the real ones) and not how a
    # tool answers: the chooser takes it on a tie as well as on a gain
    holds: bool = False
    # it tells by the state or the arguments what the current behaviour answers as a literal, and
    # changes nothing else: the evidence cannot prefer the literal, so the chooser takes it on a tie too
    explains: bool = False
    # it answers the replies it was fit on as they were (``recorded``): the evidence it was fit on
    # cannot judge it, so a tie on the folds is never broken by that evidence in its favour
    memorizes: bool = False
    # it changes what the tool does and leaves how the tool answers to a wording learned on top (a
    # create read off the records a reply answers): the chooser words it anew before judging it
    unworded: bool = False

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
        if self.rows:
            update["initial_state"] = {**spec.initial_state, **self.rows}
        return spec.model_copy(update=update)


Proposer = Callable[[EnvSpec, Evidence], list[Candidate]]


# registered from the most general to the most particular: between candidates the evidence scores
# the same, the chooser keeps the first (a template over replies recorded call by call)
PROPOSERS: Registry[Proposer] = Registry("proposer")


__all__ = ["JSON", "PROPOSERS", "Candidate", "Evidence", "Pair", "Proposer"]

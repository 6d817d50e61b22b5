"""Description proposers: readings of groups of tools, competing for each tool by what they pin down.

A *planner* reads tool descriptions and proposes :class:`Plan`\\ s: entities and one behaviour for
each tool it explains (``cd``/``ls``/``touch`` as a shell over a tree, ``create_entities`` as a
batch create, ``add(a, b)`` as a function). Every planner in :data:`PLANNERS` reads the same tools;
:func:`claim` keeps, round by round, the plan that pins its tools down furthest and gives the
tools it did not take to the next round, where every planner reads again what is left. A plan's
standing is its own (:attr:`Plan.standing`): its ``rank`` (what kind of reading it is), then how
many tools it explains, then how many entities it brings, then its planner's name — never the
order planners were registered in, so adding a reading is adding a planner.

The other plans that offered a tool are its runners-up (recorded in the environment's
``choices``). Tools no plan takes are read one by one as resources
(:mod:`envfactory.synth.intents`).

Ranks, highest first: ``function`` (the answer is a function of the arguments), ``tree``
(path-addressed state), ``structure`` (tools sharing one structure: batch tools over arrays, a
sign-in session), ``record`` (one record a keyless tool reads or changes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from envfactory.ir.choice import Choice, Scored
from envfactory.ir.effect import Behaviour
from envfactory.ir.state import SINGLETON_KEY, SINGLETON_ROW, Entity, StateSchema
from envfactory.ir.tool import ToolSet, ToolSpec
from envfactory.registry import Registry
from envfactory.synth.batches import plan_batches, plan_list_edits
from envfactory.synth.compute import plan_computations
from envfactory.synth.device import plan_device
from envfactory.synth.session import plan_session, session_gates, signed_creates
from envfactory.synth.shell import CWD, plan_shell
from envfactory.synth.singletons import plan_funds, plan_keyless_lists, plan_singletons
from envfactory.synth.tree import plan_tree, seed_tree

JSON = dict[str, Any]
Rank = Literal["function", "tree", "structure", "record"]
RANKS: dict[Rank, int] = {"function": 4, "tree": 3, "structure": 2, "record": 1}
# (behaviours, schema, tools) -> behaviours: what a plan adds once every tool has its behaviour
Finish = Callable[[list[Behaviour], StateSchema, ToolSet], list[Behaviour]]


@dataclass(frozen=True)
class Plan:
    """One planner's reading of some tools."""

    planner: str
    rank: Rank
    behaviours: dict[str, Behaviour]
    entities: tuple[Entity, ...] = ()
    singles: tuple[Entity, ...] = ()  # entities that always hold exactly one record
    start: JSON = field(default_factory=dict)  # rows every environment starts with, whatever its state source
    seeded: Callable[[int], JSON] | None = None  # rows a seeded environment starts with, by seed
    finish: Finish | None = None  # applied to the whole tool set when nothing is bound

    @property
    def entity_names(self) -> set[str]:
        return {e.name for e in (*self.entities, *self.singles)}

    @property
    def standing(self) -> tuple[int, int, int, str]:
        return RANKS[self.rank], len(self.behaviours), len(self.entities), self.planner


Planner = Callable[[list[ToolSpec]], list[Plan]]
PLANNERS: Registry[Planner] = Registry("description planner")


@dataclass(frozen=True)
class Claims:
    """The plans kept, in the order they were kept, and each claimed tool's runners-up."""

    plans: tuple[Plan, ...]
    runners_up: dict[str, tuple[Plan, ...]]
    order: dict[str, int]  # each tool's place in the tool set

    @property
    def behaviours(self) -> dict[str, Behaviour]:
        return {t: b for p in self.plans for t, b in p.behaviours.items()}

    @property
    def entities(self) -> list[Entity]:
        """The plans' entities, plan by plan in the order of the tools they explain (the first tool of
        each, as the tools were listed), not in the order the plans were kept."""
        return [e for p in self.in_tool_order for e in (*p.entities, *p.singles)]

    @property
    def in_tool_order(self) -> list[Plan]:
        return sorted(self.plans, key=lambda p: min(self.order[t] for t in p.behaviours))

    def planner_of(self, tool: str) -> str | None:
        return next((p.planner for p in self.plans if tool in p.behaviours), None)


def claim(tools: list[ToolSpec], planners: Registry[Planner] | None = None) -> Claims:
    """The plans that read ``tools`` (see the module docstring); a tool no plan takes is left out."""
    planners = planners if planners is not None else PLANNERS
    left, kept = list(tools), []
    runners: dict[str, list[Plan]] = {}
    taken_entities: set[str] = set()
    while left:
        offers = [p for _, planner in planners.items() for p in planner(left) if p.behaviours]
        offers = [p for p in offers if not p.entity_names & taken_entities]  # an entity is read once
        if not offers:
            break
        best = max(offers, key=lambda p: p.standing)
        for other in offers:
            if other is not best:  # what it offered of the tools the best plan takes, it lost
                for tool in other.behaviours.keys() & best.behaviours.keys():
                    runners.setdefault(tool, []).append(other)
        kept.append(best)
        taken_entities |= best.entity_names
        left = [t for t in left if t.name not in best.behaviours]
    return Claims(tuple(kept), {t: tuple(ps) for t, ps in runners.items()}, {t.name: i for i, t in enumerate(tools)})


def contested(claims: Claims, behaviours: list[Behaviour]) -> tuple[Choice, ...]:
    """A :class:`~envfactory.ir.choice.Choice` for each tool more than one plan read, on the
    descriptions' evidence: the plan kept and the others, in the order they stood."""
    final = {b.tool: b for b in behaviours}
    out = []
    for tool in sorted(claims.runners_up, key=lambda t: claims.order[t]):
        others = sorted(claims.runners_up[tool], key=lambda p: p.standing, reverse=True)
        kept = _scored(final[tool], claims.planner_of(tool) or "resources")
        out.append(
            Choice(tool=tool, chosen=kept, runners_up=tuple(_scored(p.behaviours[tool], p.planner) for p in others))
        )
    return tuple(out)


def _scored(behaviour: Behaviour, planner: str) -> Scored:
    return Scored(proposer="descriptions", summary=f"{behaviour.effect.kind} (from the descriptions: {planner})")


@PLANNERS.register("function")
def _functions(tools: list[ToolSpec]) -> list[Plan]:
    """``add(a, b)``, ``mean(numbers)``, ``gallon_to_liter``: exact functions, no state."""
    found = plan_computations(tools)
    return [Plan("function", "function", found)] if found else []


@PLANNERS.register("batches")
def _batches(tools: list[ToolSpec]) -> list[Plan]:
    """Batch tools over arrays, natural keys, list fields, dumps (:mod:`envfactory.synth.batches`)."""
    found = plan_batches(tools)
    return [Plan("batches", "structure", dict(found.behaviours), tuple(found.entities))] if found.behaviours else []


@PLANNERS.register("shell")
def _shell(tools: list[ToolSpec]) -> list[Plan]:
    """``cd``, ``ls``, ``touch``: names under a current folder of a tree."""
    entities, behaviours = plan_shell(tools)
    if not behaviours:
        return []
    tree = entities[0]

    def seeded(seed: int) -> JSON:
        rows = seed_tree(seed)
        return {tree.name: rows, CWD: [{SINGLETON_KEY: SINGLETON_ROW, "cwd": rows[0]["path"]}]}

    return [Plan("shell", "tree", behaviours, tuple(entities), seeded=seeded)]


@PLANNERS.register("tree")
def _tree(tools: list[ToolSpec]) -> list[Plan]:
    """A file server's path-addressed tree (``read_file(path)``, ``move_file(source, destination)``)."""
    tree, behaviours = plan_tree(tools)
    if tree is None:
        return []
    return [Plan("tree", "tree", behaviours, (tree,), seeded=lambda seed: {tree.name: seed_tree(seed)})]


@PLANNERS.register("session")
def _session(tools: list[ToolSpec]) -> list[Plan]:
    """``login`` / ``logout`` / ``status``, and the tools that need a signed-in user."""
    session, behaviours, row = plan_session(tools)
    if session is None:
        return []

    def finish(behaviours_: list[Behaviour], schema: StateSchema, toolset: ToolSet) -> list[Behaviour]:
        gates = session_gates(toolset.tools, session, behaviours)
        gated = [b.model_copy(update={"gate": gates[b.tool], "notes": (*b.notes, "needs a signed-in session")})
                 if b.tool in gates else b for b in behaviours_]  # fmt: skip
        return signed_creates(session, gated, schema, toolset)

    return [Plan("session", "structure", behaviours, (session,), start={session.name: [dict(row)]}, finish=finish)]


@PLANNERS.register("singletons")
def _singletons(tools: list[ToolSpec]) -> list[Plan]:
    """Keyless tools that read and change one record (a car's state, an account's balance)."""
    singles, behaviours = plan_singletons(tools)
    return [Plan("singletons", "record", behaviours, singles=tuple(singles))] if behaviours else []


@PLANNERS.register("keyless-lists")
def _keyless_lists(tools: list[ToolSpec]) -> list[Plan]:
    """``get_watchlist``, ``add_to_watchlist(stock)``: one record holding a list."""
    singles, behaviours = plan_keyless_lists(tools)
    return [Plan("keyless-lists", "record", behaviours, singles=tuple(singles))] if behaviours else []


def rereaders(schema: StateSchema) -> Registry[Planner]:
    """Planners for the tools every reading above left falling back, given the schema those readings
    made: keyless deposits and withdrawals on a singleton's balance, edits of a list a record holds,
    and keyless tools sharing output fields as one device record."""
    out = Registry[Planner]("re-reading of fallen-back tools")
    singles = [e for e in schema.entities if e.key == SINGLETON_KEY]

    def funds(tools: list[ToolSpec]) -> list[Plan]:  # ``withdraw_funds(amount)``
        found = plan_funds(tools, singles)
        return [Plan("funds", "record", found)] if found else []

    def list_edits(tools: list[ToolSpec]) -> list[Plan]:  # ``mention(tweet_id, usernames)``
        found = plan_list_edits(tools, schema)
        return [Plan("list-edits", "structure", found)] if found else []

    def device(tools: list[ToolSpec]) -> list[Plan]:
        # a device is a function-tool shape (a car's switches); an HTTP API's leftovers are not one thing
        entity, absorbed = plan_device([t for t in tools if t.source.http is None])
        if entity is None or entity.name in schema.names:
            return []
        return [Plan("device", "record", absorbed, singles=(entity,))]

    out.add("funds", funds)
    out.add("list-edits", list_edits)
    out.add("device", device)
    return out


__all__ = ["PLANNERS", "RANKS", "Claims", "Plan", "Planner", "claim", "contested", "rereaders"]

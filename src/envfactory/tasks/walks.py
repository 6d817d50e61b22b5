"""Seeded walks over the tool graph, merged into an abstract blueprint DAG.

A walk starts from a state-changing tool and walks the graph *backwards*: every reference
argument (a key, a foreign key, a transfer account) is traced to a tool that yields that entity,
and the step from a list to one row becomes a reasoning node (arg-max/min, a unique filter, a
comparison, a lookup across entities). Two walks are merged into one DAG with shared calls
deduplicated; answer branches (count, sum) and rules (if X then A else B) are added on top.
Field choices and values are left open: ``tasks.instantiate`` binds them to a state.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from dataclasses import field as _default
from typing import Any

import networkx as nx

from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import Entity
from envfactory.synth.arguments import reference_args
from envfactory.synth.naming import tokens
from envfactory.synth.session import ENTITY as SESSION
from envfactory.tasks.errors import Rejected
from envfactory.tasks.graph import WRITES


@dataclass
class Draft:
    """A mutable node while a blueprint is being built (frozen into ``ir.Node`` later)."""

    id: str
    kind: str
    tool: str | None = None
    entity: str | None = None
    field: str | None = None
    op: str | None = None
    value: Any = None
    inputs: list[str] = _default(default_factory=list)
    guard: tuple[str, bool] | None = None
    args: dict[str, Any] = _default(default_factory=dict)
    hidden: list[str] = _default(default_factory=list)
    write: bool = False
    direct: dict[str, str] = _default(default_factory=dict)  # arg -> entity: the user names the row by id


@dataclass
class Sketch:
    nodes: list[Draft] = _default(default_factory=list)
    edges: list[tuple[str, str, str | None, str | None]] = _default(default_factory=list)
    answers: list[str] = _default(default_factory=list)

    def add(self, kind: str, **kw: Any) -> Draft:
        node = Draft(id=f"n{len(self.nodes)}", kind=kind, **kw)
        self.nodes.append(node)
        return node

    def node(self, node_id: str) -> Draft:
        return next(n for n in self.nodes if n.id == node_id)


def splittable(entity: Entity) -> bool:
    """Whether rows of ``entity`` can be narrowed to a subset by a field: an enum or a boolean that
    is neither its key nor a reference (a prefilter on anything else can never bind)."""
    return any(
        _category(schema) and name != entity.key and name not in entity.refs for name, schema in entity.fields.items()
    )


@dataclass(frozen=True)
class Style:
    """Knobs of a walk: how often references are named directly, how deep walks go."""

    direct: float = 0.3
    max_depth: int = 2
    second_walk: float = 0.45
    answer: float = 0.35
    rule: float = 0.25
    compare: float = 0.15
    lookup: float = 0.25
    prefilter: float = 0.35


FIND = "find"  # the op of a call node that finds a row by a field the user states

# things people know by the number they were given (an order, a booking), not by a name
NUMBERED = frozenset(
    {
        "order",
        "booking",
        "reservation",
        "ticket",
        "invoice",
        "transaction",
        "payment",
        "shipment",
        "case",
        "issue",
        "incident",
        "request",
        "claim",
        "refund",
        "loan",
        "rental",
        "appointment",
    }
)


def opaque(entity: Entity) -> bool:
    """Is the entity keyed by an id people do not say (``plan_0007``, a uuid) rather than a natural
    key (a username, a permalink), an integer, or a number the user was given (an order)?"""
    return (entity.key_type == "string" and tokens(entity.key)[-1:] in (("id",), ("uuid",), ("key",))
            and (tokens(entity.name)[-1:] or ("",))[0] not in NUMBERED)  # fmt: skip


class Walker:
    def __init__(self, spec: EnvSpec, graph: nx.DiGraph, rng: random.Random, style: Style = Style()) -> None:
        self.spec, self.graph, self.rng, self.style = spec, graph, rng, style
        self.schema = spec.state_schema
        # effects are read by kind, field by field (entity, key_arg, filters...): typed as Any here
        self.effects: dict[str, Any] = {b.tool: b.effect for b in spec.behaviours}
        self.writes = [t for t, d in graph.nodes(data=True) if d["write"] and self._usable_write(t)]

    def _usable_write(self, tool: str) -> bool:
        effect = self.effects[tool]
        if getattr(effect, "entity", None) == SESSION:
            return False  # signing in or out is how, never what, a task asks
        if effect.kind == "create":  # a first booking needs no booking before it (the flights it refers to bind)
            return True
        return effect.kind in WRITES and bool(self.spec.initial_state.get(getattr(effect, "entity", ""), [1]))

    # -- the sketch ---------------------------------------------------------------------------
    def sketch(self) -> Sketch:
        sk = Sketch()
        if not self.writes:  # a read-only API (search, catalogue, reference data): answer tasks
            self._answer(sk)
            if not sk.answers:
                raise Rejected("no list to answer a question from")
            return merge_duplicates(sk)
        first = self.rng.choice(self.writes)
        if self.rng.random() < self.style.answer:
            self._answer(sk)
        self._write(sk, first)
        if self.rng.random() < self.style.second_walk:
            others = [t for t in self.writes if t != first] or self.writes
            self._write(sk, self.rng.choice(others))
        return merge_duplicates(sk)

    def _write(self, sk: Sketch, tool: str) -> None:
        effect = self.effects[tool]
        needs = self.needs(tool)
        rivals = self._rivals(tool)
        if rivals and self.rng.random() < self.style.rule:
            self._rule(sk, tool, self.rng.choice(rivals))
            return
        refs = {arg: self.reference(sk, entity, 0) for arg, entity in needs.items()}
        call = sk.add("call", tool=tool, entity=getattr(effect, "entity", None), write=True)
        self._connect(sk, call, refs)

    def _connect(self, sk: Sketch, call: Draft, refs: dict[str, tuple[str, str | None] | str]) -> None:
        for arg, ref in refs.items():
            if isinstance(ref, str):  # the entity name: the user states the id
                call.direct[arg] = ref
            else:
                sk.edges.append((ref[0], call.id, ref[1], arg))

    def _rivals(self, tool: str) -> list[str]:
        """Other argument-free writes on the same entity: the two branches of a rule."""
        effect = self.effects[tool]
        if effect.kind not in ("action", "delete"):
            return []
        return [
            t for t in self.writes
            if t != tool and self.effects[t].kind in ("action", "delete")
            and getattr(self.effects[t], "entity", None) == getattr(effect, "entity", None)
        ]  # fmt: skip

    def _rule(self, sk: Sketch, then_tool: str, else_tool: str) -> None:
        """If <a field of the row> is above a threshold, do one write, otherwise another."""
        entity = self.effects[then_tool].entity
        ref = self.reference(sk, entity, 0, allow_direct=False)
        if isinstance(ref, str) or ref[1] is None:  # no row to look at: a plain write instead
            call = sk.add("call", tool=then_tool, entity=entity, write=True)
            self._connect(sk, call, {self.effects[then_tool].key_arg: ref})
            return
        choose = sk.add("choose", entity=entity, op="gt", inputs=[ref[0]])
        for tool, branch in ((then_tool, True), (else_tool, False)):
            call = sk.add("call", tool=tool, entity=entity, write=True, guard=(choose.id, branch))
            self._connect(sk, call, {self.effects[tool].key_arg: ref})

    def needs(self, tool: str) -> dict[str, str]:
        """The reference arguments a write must be given; optional foreign keys half of the time."""
        effect = self.effects[tool]
        required = self.spec.tools[tool].required
        key_like = {
            getattr(effect, "key_arg", None),
            getattr(effect, "from_arg", None),
            getattr(effect, "to_arg", None),
        }
        return {
            arg: entity
            for arg, entity in reference_args(effect, self.schema).items()
            if arg in key_like or arg in required or self.rng.random() < 0.5
        }

    # -- references: how the agent finds a row --------------------------------------------------
    def reference(self, sk: Sketch, entity: str, depth: int, allow_direct: bool = True) -> tuple[str, str | None] | str:
        """A node yielding a row (or key) of ``entity``; or the entity name when the user states the id."""
        key = self.schema[entity].key
        lister = self._lister(entity)
        deep = depth >= self.style.max_depth
        sayable = lister is None or not opaque(self.schema[entity])  # "my order order_0003", not "plan_0007"
        direct = allow_direct and (deep or self.rng.random() < self.style.direct)
        if direct and (deep or sayable):
            return entity  # the user states the id
        finder = self._finder(entity)
        if finder is not None and (lister is None or opaque(self.schema[entity])):
            # "send it to Alice": the user names the row, the agent finds its id (``get_user_id(user)``)
            return sk.add("call", tool=finder, entity=entity, op=FIND).id, key
        if lister is None:
            return entity
        if direct:  # where a person would name it: "the board whose name is 'Roadmap'", found in its list
            rows = self._list_call(sk, lister, entity, depth)
            if rows is None:
                return entity
            return sk.add("filter", entity=entity, op="is", inputs=[rows]).id, key
        if depth == 0 and self.rng.random() < self.style.lookup:
            found = self._lookup(sk, entity, depth)
            if found is not None:
                return found
        rows = self._list_call(sk, lister, entity, depth)
        if rows is None:
            return entity
        if self.rng.random() < self.style.prefilter and splittable(self.schema[entity]):
            rows = sk.add("filter", entity=entity, inputs=[rows]).id
        if self.rng.random() < self.style.compare:
            a = sk.add("filter", entity=entity, op="is", inputs=[rows])
            b = sk.add("filter", entity=entity, op="is", inputs=[rows])
            pick = sk.add("compare", entity=entity, inputs=[a.id, b.id])
        else:
            pick = sk.add(self.rng.choice(("argmax", "argmin", "filter")), entity=entity, inputs=[rows])
            if pick.kind == "filter":
                pick.op = "is"  # a unique filter: exactly one row matches
        return pick.id, key

    def _lister(self, entity: str) -> str | None:
        listers = [t for t, e in self.effects.items() if e.kind == "list" and e.entity == entity and self._feedable(t)]
        return self.rng.choice(listers) if listers else None

    def _finder(self, entity: str) -> str | None:
        """A read that finds one row by what it holds (every required argument an exact match on a
        plain field: ``get_user_id(user)``), so that a person can name the row instead of its id."""
        found = self._finders(entity)
        return self.rng.choice(found) if found else None

    def _finders(self, entity: str, naming: bool = False) -> list[str]:
        """``naming``: only finders whose fields name a record (an iata code, a name), not a category
        it shares with others (a section, a flag): a question asks about one record."""
        schema = self.schema[entity]
        titled = naming_text(schema) is not None
        found = []
        for tool, effect in self.effects.items():
            if effect.kind != "list" or effect.entity != entity or not self.spec.tools[tool].required:
                continue
            by_arg = {f.arg: f for f in effect.filters}
            if all((f := by_arg.get(arg)) is not None and (self._names_by(f, schema, naming)
                                                            or (f.op == "search" and f.field is None and titled))
                   for arg in self.spec.tools[tool].required):  # fmt: skip
                found.append(tool)  # ``/books/{query}``: a search term, found by the book's title
        return sorted(found)

    @staticmethod
    def _names_by(flt: Any, schema: Entity, naming: bool) -> bool:
        """Whether a filter finds rows by what a person knows of them: an exact match on a plain
        field (not the key, a reference, or — ``naming`` — a category many records share)."""
        return (flt.op == "eq" and flt.field in schema.fields and flt.field != schema.key
                and flt.field not in schema.refs and not (naming and _category(schema.fields[flt.field])))  # fmt: skip

    def _feedable(self, lister: str) -> bool:
        """Can a walk fill the lister's required arguments (each a filter on a reference)?"""
        effect = self.effects[lister]
        refs = self.schema[effect.entity].refs
        by_arg = {f.arg: f.field for f in effect.filters if f.field}
        paged = effect.paging.args  # a required page size or offset: the call's own to fill
        return all(by_arg.get(arg) in refs or arg in paged for arg in self.spec.tools[lister].required)

    def _list_call(self, sk: Sketch, lister: str, entity: str, depth: int) -> str | None:
        tool = self.spec.tools[lister]
        effect = self.effects[lister]
        needs: dict[str, tuple[str, str | None] | str] = {}
        for arg in tool.required:  # upstream nodes first, so that the sketch stays in run order
            if arg in effect.paging.args:
                continue
            flt = next((f for f in effect.filters if f.arg == arg and f.field), None)
            target = self.schema[entity].refs.get(flt.field) if flt else None
            if target is None:
                return None
            needs[arg] = self.reference(sk, target, depth + 1)
        call = sk.add("call", tool=lister, entity=entity)
        self._connect(sk, call, needs)
        return call.id

    def _lookup(self, sk: Sketch, entity: str, depth: int) -> tuple[str, str | None] | None:
        """Find the row through another entity that references it ("the product of that order")."""
        holders = [
            (e.name, f) for e in self.schema.entities for f, t in e.refs.items() if t == entity and e.name != entity
        ]
        self.rng.shuffle(holders)
        for holder, fld in holders:
            if self._lister(holder) is None:
                continue
            ref = self.reference(sk, holder, depth + 1, allow_direct=False)
            if isinstance(ref, str):
                continue
            node = sk.add("lookup", entity=entity, field=fld, inputs=[ref[0]])
            return node.id, None
        return None

    def answerable(self) -> bool:
        """Can an answer task be built here (an entity with rows and a tool that lists them)?"""
        return bool(self._listed_entities())

    def _listed_entities(self) -> list[str]:
        """Entities with rows that a tool lists, or that one finds by what a person knows."""
        return [e for e in self.schema.names
                if (self._lister(e) or self._finders(e, naming=True)) and self.spec.initial_state.get(e)]  # fmt: skip

    def _answer(self, sk: Sketch) -> None:
        entities = self._listed_entities()
        if not entities:
            return
        entity = self.rng.choice(entities)
        lister = self._lister(entity)
        if lister is None:  # "what is the elevation of the airport whose IATA code is 'LHR'?": found, then read
            found = sk.add("call", tool=self.rng.choice(self._finders(entity, naming=True)), entity=entity, op=FIND)
            sk.answers.append(sk.add("lookup", entity=entity, inputs=[found.id]).id)
            return
        rows = self._list_call(sk, lister, entity, 1)
        if rows is None:
            return
        kind = self.rng.choice(("count", "sum", "lookup"))
        if kind == "lookup":  # "what is the <field> of the <entity> whose <identifying field> is <value>?"
            row = sk.add("filter", entity=entity, op="is", inputs=[rows])
            node = sk.add("lookup", entity=entity, inputs=[row.id])
        else:
            filtered = sk.add("filter", entity=entity, inputs=[rows])
            node = sk.add(kind, entity=entity, inputs=[filtered.id])
        sk.answers.append(node.id)


# the text fields a person names a record by, best first
NAMING_TEXT = ("title", "name", "label", "subject", "username", "email")


def naming_text(entity: Any) -> str | None:
    """The text field a person names one of ``entity``'s records by (a book's ``title``), if any."""
    return next((f for f in NAMING_TEXT if primary_type(entity.fields.get(f)) == "string"
                 and not entity.fields[f].get("enum")), None)  # fmt: skip


def _category(schema: Any) -> bool:
    """A field whose values many records share by design: one of a few declared values, or a flag."""
    return isinstance(schema, dict) and (bool(schema.get("enum")) or primary_type(schema) == "boolean")


def merge_duplicates(sk: Sketch) -> Sketch:
    """Merge read calls that are the same tool fed the same way (redundant calls)."""
    seen: dict[tuple[Any, ...], str] = {}
    rename: dict[str, str] = {}
    kept: list[Draft] = []
    for node in sk.nodes:
        if node.kind == "call" and not node.write:
            feeds = tuple(sorted((rename.get(s, s), f, a) for s, d, f, a in sk.edges if d == node.id))
            signature = (node.tool, feeds, tuple(sorted(node.direct.items())))
            if signature in seen:
                rename[node.id] = seen[signature]
                continue
            seen[signature] = node.id
        node.inputs = [rename.get(i, i) for i in node.inputs]
        kept.append(node)
    edges = [(rename.get(s, s), d, f, a) for s, d, f, a in sk.edges if d not in rename]
    return Sketch(nodes=kept, edges=edges, answers=sk.answers)

"""Bind a sketched blueprint to a seeded state and run it: the gold plan, final state and facts.

Nodes are visited in order on a live episode. Reasoning nodes pick fields and values that are
*decisive* on the data (a unique maximum, a filter that really splits the rows, a threshold the
value is clearly above or below), preferring rows the downstream write can act on. Any call of
the gold plan that fails, or any choice that cannot be made decisive, rejects the attempt.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from envfactory.ir.blueprint import Blueprint, Edge, Node
from envfactory.ir.effect import ActionEffect, TransferEffect, UpdateEffect
from envfactory.ir.jsonschema import data_path, primary_type
from envfactory.ir.task import Call
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.synth.arguments import action_ready, fill_wrapped_references, gate_arguments
from envfactory.synth.data import coerce_key
from envfactory.synth.naming import credential, same_field, tokens
from envfactory.tasks.errors import Rejected
from envfactory.tasks.walks import FIND, Draft, Sketch, naming_text

__all__ = ["Binder", "Bound", "Rejected"]
from envfactory.values import ValueMaker

JSON = dict[str, Any]
Accept = Callable[[JSON], bool]
_IDENTIFYING = ("name", "title", "email", "username", "isbn", "sku", "code", "subject", "owner")
_ADDITIVE = (
    "price",
    "amount",
    "balance",
    "quantity",
    "stock",
    "total",
    "capacity",
    "cost",
    "copies",
    "seats",
    "left",
    "points",
    "credits",
    "pages",
    "qty",
    "count",
    "units",
    "fee",
)
_LONG_TEXT = ("body", "description", "content", "text", "note", "notes", "message", "comment", "reason")


def _amount(value: Any) -> float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


@dataclass
class Bound:
    blueprint: Blueprint
    gold: list[Call]
    facts: list[str]
    hidden: dict[str, str]
    episode: Episode


@dataclass
class _State:
    values: dict[str, Any] = field(default_factory=dict)
    gold: list[Call] = field(default_factory=list)
    taken: dict[str, set[Any]] = field(default_factory=dict)  # input node -> rows already picked
    facts: list[str] = field(default_factory=list)
    hidden: dict[str, str] = field(default_factory=dict)


def as_parameters_take(args: JSON, props: JSON) -> JSON:
    """``args`` with each key a row gave passed as its parameter takes it: a record keyed ``7``
    named ``"7"`` where the parameter takes text, ``"7"`` as ``7`` where it takes a number."""
    return {a: coerce_key(v, props[a]) if primary_type(props.get(a)) in ("string", "integer") else v
            for a, v in args.items()}  # fmt: skip


class Binder:
    def __init__(self, env: Environment, rng: random.Random, maker: ValueMaker, hide: float = 0.25) -> None:
        self.env, self.spec, self.rng, self.maker, self.hide = env, env.spec, rng, maker, hide
        self.schema = self.spec.state_schema
        self.effects: dict[str, Any] = {b.tool: b.effect for b in self.spec.behaviours}  # read by kind

    def bind(self, sk: Sketch) -> Bound:
        episode = self.env.episode(max_steps=10_000)
        st = _State()
        self._sk, self._gold = sk, st.gold
        for node in sk.nodes:
            if node.guard and st.values.get(node.guard[0]) != node.guard[1]:
                continue  # the branch the rule did not take
            handler = getattr(self, f"_{node.kind}")
            st.values[node.id] = handler(node, st, episode)
        nodes = tuple(_freeze(n) for n in sk.nodes)
        edges = tuple(Edge(src=s, dst=d, src_field=f, dst_arg=a) for s, d, f, a in sk.edges)
        blueprint = Blueprint(nodes=nodes, edges=edges, answers=tuple(sk.answers))
        return Bound(blueprint, st.gold, st.facts, st.hidden, episode)

    # -- what a node's output must allow downstream ---------------------------------------------
    def accept(self, node_id: str) -> Accept:
        checks: list[Accept] = []
        for src, dst, _, arg in self._sk.edges:
            if src == node_id:
                checks.append(self._arg_accept(self._sk.node(dst), arg))
        for node in self._sk.nodes:
            if node_id in node.inputs and node.kind in ("argmax", "argmin", "filter", "compare"):
                checks.append(self.accept(node.id))
        return lambda row: all(c(row) for c in checks)

    def _arg_accept(self, call: Draft, arg: str | None) -> Accept:
        effect = self.effects.get(call.tool or "")
        if isinstance(effect, ActionEffect) and arg == effect.key_arg and not call.guard:
            return action_ready(effect)
        if isinstance(effect, UpdateEffect) and arg == effect.key_arg and effect.when:
            return lambda r: all(r.get(f) in allowed for f, allowed in effect.when.items())
        if isinstance(effect, TransferEffect):
            usable = effect.usable
            status = effect.status_field
            ok_status: Accept = (lambda r: r.get(status) in usable) if status else (lambda r: True)
            if arg == effect.from_arg:
                return lambda r: ok_status(r) and _amount(r.get(effect.field)) >= 10
            return ok_status
        return lambda row: True

    # -- node kinds ---------------------------------------------------------------------------------
    def _call(self, node: Draft, st: _State, episode: Episode) -> Any:
        effect = self.effects[node.tool]  # type: ignore[index]
        args: JSON = {}
        for src, dst, src_field, arg in self._sk.edges:
            if dst == node.id and arg is not None:
                value = st.values[src]
                if src_field is not None and (not isinstance(value, dict) or src_field not in value):
                    raise Rejected(f"the {node.tool} input {arg!r} comes from a field {src_field!r} the row lacks")
                args[arg] = value[src_field] if src_field is not None else value
        for arg, entity in node.direct.items():
            args[arg] = self._direct(node, arg, entity, episode, args)
        if node.op == FIND:
            self._find(node, effect, episode, args)
        args.update(gate_arguments(self.spec.behaviour(node.tool), episode.store))  # type: ignore[arg-type]
        if effect.kind == "list":
            self._widen_page(node, args)
        elif node.write:
            self._literals(node, effect, episode, args)
            self._rest_from_row(node, effect, episode, args)
            fill_wrapped_references(self.spec, node.tool, args, episode.store, self.rng)  # type: ignore[arg-type]
        args = as_parameters_take(args, self.spec.tools[node.tool].properties)  # type: ignore[index]
        result = episode.call_tool(node.tool, args)  # type: ignore[arg-type]
        if not result.ok:
            raise Rejected(f"gold call {node.tool} failed: {result.content[:120]}")
        node.args = {a: v for a, v in args.items() if a not in self._ref_args(node)}
        if node.write and node.args and self.rng.random() < self.hide:
            self._hide(node, st)
        st.gold.append(Call(tool=node.tool, args=args))  # type: ignore[arg-type]
        data = result.data
        if effect.kind == "list" and isinstance(data, dict):
            records = records_of(data, self.spec.tools[node.tool].output_schema)  # type: ignore[index]
            if node.op != FIND:
                data = records
            elif len(records) == 1:  # a finder answers the one row it found, enveloped or not
                data = records[0]
        if node.op == FIND and getattr(effect, "finds", None) == "key" and isinstance(data, (str, int)):
            data = episode.store.get(effect.entity, data) or data  # ``find_user_id_by_email``: that user's row
        if node.op == FIND and isinstance(data, list) and len(data) == 1:  # a search answering the one it found
            data = data[0]
        if node.op == FIND and not isinstance(data, dict):
            raise Rejected(f"{node.tool} answers no one record to find")
        return data

    def _find(self, node: Draft, effect: Any, episode: Episode, args: JSON) -> None:
        """The row a finder call finds: one whose stated fields no other row shares."""
        entity = self.schema[effect.entity]
        named = naming_text(entity)  # a search term names the row by its title
        required = self.spec.tools[node.tool].required  # type: ignore[index]
        by: dict[str, str] = {f.arg: fld for f in effect.filters if f.arg in required and (fld := f.field or named)}
        accept = self.accept(node.id)
        rows = [r for r in episode.store.rows(effect.entity) if all(r.get(f) is not None for f in by.values())]
        seen = Counter(tuple(str(r[f]) for f in by.values()) for r in rows)
        unique = [r for r in rows if seen[tuple(str(r[f]) for f in by.values())] == 1 and accept(r)]
        if not unique:
            raise Rejected(f"no {effect.entity} can be named by its {', '.join(by.values())}")
        row = self.rng.choice(unique)
        args.update({arg: row[f] for arg, f in by.items()})
        node.field = next(iter(by.values()))

    def _ref_args(self, node: Draft) -> set[str]:
        """Arguments fed by another node (the agent finds them; the instruction never states them)."""
        return {a for _, d, _, a in self._sk.edges if d == node.id and a}

    def _direct(self, node: Draft, arg: str, entity: str, episode: Episode, args: JSON) -> Any:
        accept = self._arg_accept(node, arg)
        key = self.schema[entity].key
        # never a row the task already reaches another way: naming its id would give that away
        used = {
            v
            for call in [*self._gold, Call(tool="", args=args)]
            for v in call.args.values()
            if isinstance(v, (str, int))
        }
        rows = [r for r in episode.store.rows(entity) if accept(r) and r[key] not in used]
        if not rows:
            raise Rejected(f"no {entity} the call can act on")
        return self.rng.choice(rows)[key]

    def _rest_from_row(self, node: Draft, effect: Any, episode: Episode, args: JSON) -> None:
        """Required arguments nothing fed yet (AWS's ``AccountId`` beside ``BudgetName``) take the
        value the row acted on holds in the field of that name, else a value drawn from the schema."""
        tool = self.spec.tools[node.tool]  # type: ignore[index]
        entity = self.schema[effect.entity] if getattr(effect, "entity", None) in self.schema else None
        key_arg = getattr(effect, "key_arg", None)
        key = args.get(key_arg) if key_arg else None
        row = episode.store.get(entity.name, key) if entity and isinstance(key, (str, int)) else None
        for arg in tool.required:
            if arg in args or tool.is_transport(arg):  # a header's value is the binding's, never the user's
                continue
            given = next((c.args[arg] for c in self._gold if arg in c.args), None) if credential(arg) else None
            if given is not None:  # one user, one token for the whole task
                args[arg] = given
                continue
            field = next((f for f in entity.fields if same_field(f, arg)), None) if entity else None
            if row is not None and field is not None and row.get(field) is not None:
                args[arg] = row[field]
            else:
                args[arg] = self.maker.value(tool.properties.get(arg) or {}, arg, getattr(effect, "entity", ""))

    def _widen_page(self, node: Draft, args: JSON) -> None:
        paging = self.effects[node.tool].paging  # type: ignore[index, union-attr]
        if paging.limit_arg:
            prop = self.spec.tools[node.tool].properties.get(paging.limit_arg, {})  # type: ignore[index]
            limit = int(prop.get("maximum", self.spec.config.max_list_rows))
            args[paging.limit_arg] = str(limit) if primary_type(prop) == "string" else limit  # Google's "100"
        required = self.spec.tools[node.tool].required  # type: ignore[index]
        for arg, first in ((paging.offset_arg, 0), (paging.page_arg, 1)):  # a required offset or page: the first
            if arg and arg in required and arg not in args:
                prop = self.spec.tools[node.tool].properties.get(arg, {})  # type: ignore[index]
                start = prop.get("minimum", first) if isinstance(prop.get("minimum"), int) else first
                args[arg] = str(start) if primary_type(prop) == "string" else start

    def _literals(self, node: Draft, effect: Any, episode: Episode, args: JSON) -> None:
        tool = self.spec.tools[node.tool]  # type: ignore[index]
        entity = self.schema[effect.entity] if getattr(effect, "entity", None) in self.schema else None
        if effect.kind == "transfer":
            src = episode.store.get(effect.entity, args[effect.from_arg]) or {}
            balance = _amount(src.get(effect.field))
            options = [a for a in (5, 10, 20, 25, 40, 50, 75, 100, 150, 200, 250) if a <= balance]
            if not options:
                raise Rejected("the source cannot cover any amount")
            args[effect.amount_arg] = self.rng.choice(options)
            return
        mapped: dict[str, str] = getattr(effect, "args", {})
        free = [
            a for a in mapped if a not in args and entity and mapped[a] not in entity.refs and not tool.is_transport(a)
        ]
        for wrapper in ("body_arg", "spread"):  # the wrapped record, or its free members: one object argument
            if effect.kind == "create" and (arg := getattr(effect, wrapper, None)) and arg not in args:
                free.append(arg)
        if effect.kind == "create":
            chosen = [a for a in free if a in tool.required]
            # an optional structure within a structure (HubSpot's associations: types of a target) is
            # not something a person dictates; a list of plain records (order lines) is
            optional = [a for a in free if a not in chosen and _depth(tool.properties.get(a)) < 3]
            # and a detail or two of the rest, as a person asks for a new thing: never every field it has
            chosen += self.rng.sample(optional, min(len(optional), self.rng.choice(OPTIONAL_SAID)))
            # a credential (Wordnik's ``auth_token``) is the user's to give, filled with the rest below
            unsaid = {a for a in tool.required if credential(a) or tool.is_transport(a)}
            missing = [a for a in tool.required if a not in args and a not in chosen and a not in unsaid]
            if missing:
                raise Rejected(f"cannot fill required arguments {missing}")
        elif effect.kind == "update":
            self.rng.shuffle(free)
            chosen = free[: self.rng.choice((1, 1, 2))]
            if not chosen:
                raise Rejected("nothing to update")
        else:
            return
        key = args.get(effect.key_arg) if effect.kind == "update" else None
        if isinstance(key, (list, dict)):
            raise Rejected(f"the {effect.key_arg} fed to {node.tool} is not one value")
        current = episode.store.get(effect.entity, key) if key is not None else None
        chosen = self._with_interval_partner(chosen, mapped, tool.properties)
        for arg in chosen:
            prop = tool.properties[arg]
            for _ in range(6):
                value = self.maker.value(prop, arg, effect.entity)
                if not current or current.get(mapped[arg]) != value:
                    break
            else:
                raise Rejected(f"no new value for {arg}")
            args[arg] = value
        _order_interval(args, tool.properties, current, mapped)

    @staticmethod
    def _with_interval_partner(chosen: list[str], mapped: dict[str, str], props: JSON) -> list[str]:
        """Setting a start without its end (or the reverse) could invert the interval: set both."""
        for first, second in _interval_pairs(props):
            if (first in chosen) != (second in chosen) and first in mapped and second in mapped:
                chosen = [*chosen, second if first in chosen else first]
        return chosen

    def _hide(self, node: Draft, st: _State) -> None:
        textual = [a for a, v in node.args.items() if isinstance(v, str) and len(v) <= 80 and a not in node.direct]
        if textual:
            arg = self.rng.choice(textual)
            node.hidden = [arg]
            st.hidden[label(arg)] = str(node.args[arg])

    def _filter(self, node: Draft, st: _State, episode: Episode) -> Any:
        rows = _as_rows(st.values[node.inputs[0]])
        accept = self.accept(node.id)
        if node.op == "is":
            return self._unique(node, rows, st, accept)
        return self._split(node, rows, accept)

    def _unique(self, node: Draft, rows: list[JSON], st: _State, accept: Accept) -> JSON:
        taken = st.taken.setdefault(node.inputs[0], set())
        key = self.schema[node.entity].key  # type: ignore[index]

        def ident(row: JSON) -> Any:  # records a tool shows without their key (NYT's lists) by their content
            held = row.get(key)  # (a key held as a list, a listing's view of it: by its content too)
            return held if isinstance(held, (str, int, float)) else json.dumps(row, sort_keys=True, default=str)

        candidates = [r for r in rows if ident(r) not in taken]
        self.rng.shuffle(candidates)
        candidates.sort(key=lambda r: not accept(r))
        fields = self._fields(node.entity, rows, _IDENTIFYING)  # type: ignore[arg-type]
        for row in candidates:
            for fld in fields:
                value = at(row, fld)
                if value is not None and sum(1 for r in rows if at(r, fld) == value) == 1:
                    node.field, node.value = fld, value
                    taken.add(ident(row))
                    return row
        raise Rejected("no row can be singled out by a field")

    def _split(self, node: Draft, rows: list[JSON], accept: Accept) -> list[JSON]:
        options = []
        for fld, schema in self._members(node.entity):  # type: ignore[arg-type]
            if schema.get("enum") or primary_type(schema) == "boolean":
                # sorted: iterating a set of strings follows PYTHONHASHSEED, which differs per process
                held = {at(r, fld) for r in rows if isinstance(at(r, fld), (str, int, float))}
                for value in sorted(held, key=repr):
                    subset = [r for r in rows if at(r, fld) == value]
                    if 2 <= len(subset) < len(rows):
                        options.append((all(accept(r) for r in subset), fld, "eq", value, subset))
        if not options:
            raise Rejected("no field splits the rows")
        self.rng.shuffle(options)
        options.sort(key=lambda o: not o[0])
        _, node.field, node.op, node.value, subset = options[0]
        return subset

    def _extreme(self, node: Draft, st: _State, episode: Episode) -> JSON:
        rows = _as_rows(st.values[node.inputs[0]])
        accept = self.accept(node.id)
        options = []
        for fld in self._ordered_fields(node.entity):  # type: ignore[arg-type]
            values: list[Any] = [v for r in rows if (v := at(r, fld)) is not None]
            if len(values) < 2 or len(values) < len(rows) or not _ordered(values):
                continue
            best = max(values) if node.kind == "argmax" else min(values)
            if values.count(best) != 1:
                continue
            row = next(r for r in rows if at(r, fld) == best)
            options.append((accept(row), fld, row))
        if not options:
            raise Rejected("no field has a unique extreme")
        self.rng.shuffle(options)
        options.sort(key=lambda o: not o[0])
        node.field = options[0][1]
        return options[0][2]

    _argmax = _extreme
    _argmin = _extreme

    def _compare(self, node: Draft, st: _State, episode: Episode) -> JSON:
        a, b = st.values[node.inputs[0]], st.values[node.inputs[1]]
        accept = self.accept(node.id)
        options = []
        for fld in self._ordered_fields(node.entity):  # type: ignore[arg-type]
            x, y = at(a, fld), at(b, fld)
            if x is None or y is None or x == y or not _ordered([x, y]):
                continue
            for op in ("gt", "lt"):
                win = a if (x > y) == (op == "gt") else b
                options.append((accept(win), fld, op, win))
        if not options:
            raise Rejected("the two rows do not differ in any ordered field")
        self.rng.shuffle(options)
        options.sort(key=lambda o: not o[0])
        _, node.field, node.op, win = options[0]
        return win

    def _lookup(self, node: Draft, st: _State, episode: Episode) -> Any:
        row = st.values[node.inputs[0]]
        if node.id in self._sk.answers:
            return self._reported(node, row, st)
        value = row.get(node.field) if isinstance(row, dict) else None  # type: ignore[arg-type]
        if value is None:
            raise Rejected("the reference is empty")
        return value

    def _reported(self, node: Draft, row: JSON, st: _State) -> Any:
        """An answer: one field of the row the request singled out (not the field that singles it out)."""
        entity = self.schema[node.entity]  # type: ignore[index]
        chooser = self._sk.node(node.inputs[0])
        fields = [
            f for f in sorted(_scalar_paths(row))
            if f not in (entity.key, chooser.field) and f not in entity.refs
            and isinstance(v := at(row, f), (str, int, float)) and not isinstance(v, bool) and 0 < len(str(v)) <= 60
        ]  # fmt: skip
        if not fields:
            raise Rejected("the row has nothing else to report")
        node.field = self.rng.choice(fields)
        value = at(row, node.field)
        st.facts.append(_number(value) if isinstance(value, (int, float)) else str(value))
        return value

    def _count(self, node: Draft, st: _State, episode: Episode) -> int:
        n = len(_as_rows(st.values[node.inputs[0]]))
        st.facts.append(str(n))
        return n

    def _sum(self, node: Draft, st: _State, episode: Episode) -> float:
        rows = _as_rows(st.values[node.inputs[0]])
        entity = self.schema[node.entity]  # type: ignore[index]
        numeric = [
            f for f, s in entity.fields.items()
            if primary_type(s) in ("number", "integer") and tokens(f)[-1:] and tokens(f)[-1] in _ADDITIVE
        ]  # fmt: skip
        if not numeric:
            raise Rejected("nothing to add up")
        node.field = self.rng.choice(numeric)
        total = sum(r.get(node.field) or 0 for r in rows)
        total = round(total, 2) if isinstance(total, float) else total
        st.facts.append(_number(total))
        return total

    def _choose(self, node: Draft, st: _State, episode: Episode) -> bool:
        row = st.values[node.inputs[0]]
        branches = {n.guard[1]: n for n in self._sk.nodes if n.guard and n.guard[0] == node.id}
        allowed = [b for b, call in branches.items() if self._can_run(call, row)]
        if not allowed:
            raise Rejected("neither branch of the rule can act on the row")
        branch = self.rng.choice(allowed)
        numeric = [f for f in self._ordered_fields(node.entity) if isinstance(at(row, f), (int, float))]  # type: ignore[arg-type]
        if not numeric:
            raise Rejected("no number to base the rule on")
        node.field = self.rng.choice(numeric)
        value = at(row, node.field)
        step = 1 if isinstance(value, int) else max(1, round(abs(value) * 0.1))
        node.value = value - step if branch else value + step
        node.op = "gt"
        return branch

    def _can_run(self, call: Draft, row: JSON) -> bool:
        effect = self.effects[call.tool]  # type: ignore[index]
        return action_ready(effect)(row) if isinstance(effect, ActionEffect) else True

    # -- field helpers ------------------------------------------------------------------------------
    def _members(self, entity: str) -> list[tuple[str, JSON]]:
        """The fields a request may name a row by, with their schemas: the row's own, and the plain
        members of a record it holds (an address's ``city``; JSON:API's ``attributes.name``), as
        ``address.city``; never its key or a reference."""
        ent = self.schema[entity]
        out = []
        for fld, schema in ent.fields.items():
            if fld == ent.key or fld in ent.refs:
                continue
            out.append((fld, schema))
            hypermedia = fld.lower() in _HYPERMEDIA  # ``links.self``: where to fetch it, nothing it holds
            members = schema.get("properties") if primary_type(schema) == "object" and not hypermedia else None
            for member, sub in (members or {}).items():
                if isinstance(sub, dict) and primary_type(sub) in _PLAIN and "." not in member:
                    out.append((f"{fld}.{member}", sub))
        return out

    def _fields(self, entity: str, rows: list[JSON], prefer: tuple[str, ...]) -> list[str]:
        out = []
        for fld, schema in self._members(entity):
            toks = tokens(fld.rsplit(".", 1)[-1])
            if toks and toks[-1] in _LONG_TEXT:
                continue
            if primary_type(schema) == "string" and not schema.get("enum"):
                out.append(fld)
        out.sort(key=lambda f: not (tokens(f) and tokens(f)[-1] in prefer))
        return out

    def _ordered_fields(self, entity: str) -> list[str]:
        out = []
        for fld, schema in self._members(entity):
            typ = primary_type(schema)
            if typ in ("integer", "number") or schema.get("format") in ("date", "date-time"):
                out.append(fld)
        return out


_PLAIN = ("string", "integer", "number", "boolean")
_HYPERMEDIA = frozenset({"links", "_links", "meta", "relationships", "_embedded"})


def at(row: Any, path: str) -> Any:
    """``row[path]``, where ``address.city`` is the ``city`` of the row's ``address`` (a name with no
    dot, or one the row holds whole, is read as it is)."""
    if not isinstance(row, dict):
        return None
    if "." not in path or path in row:
        return row.get(path)
    outer, _, inner = path.partition(".")
    held = row.get(outer)
    return held.get(inner) if isinstance(held, dict) else None


def _scalar_paths(row: JSON) -> list[str]:
    """The row's fields and the plain members of the records it holds (``attributes.name``)."""
    out = list(row)
    for fld, held in row.items():
        if isinstance(held, dict) and fld.lower() not in _HYPERMEDIA:
            out += [f"{fld}.{m}" for m, v in held.items() if isinstance(v, (str, int, float)) and "." not in str(m)]
    return out


def _ordered(values: list[Any]) -> bool:
    """Whether the values compare with each other (all numbers, or all texts)."""
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values) or all(
        isinstance(v, str) for v in values
    )


def _interval_pairs(props: JSON) -> list[tuple[str, str]]:
    starts = [a for a in props if tokens(a)[:1] in (("start",), ("begin",), ("from",), ("check",))
              and props[a].get("format") in ("date", "date-time")]  # fmt: skip
    pairs = []
    for start in starts:
        rest = tokens(start)[1:]
        for end in props:
            if (
                end != start
                and tokens(end)[:1] in (("end",), ("until",), ("to",), ("check",))
                and tokens(end)[1:] == rest
            ):
                pairs.append((start, end))
    return pairs


def _order_interval(args: JSON, props: JSON, current: JSON | None, mapped: dict[str, str]) -> None:
    """Make an end come after its start (an hour later), whichever of the two was chosen."""
    for start, end in _interval_pairs(props):
        begin = args.get(start, (current or {}).get(mapped.get(start, start)))
        if isinstance(begin, str) and end in args and isinstance(args[end], str) and args[end] <= begin:
            args[end] = _plus_hour(begin)


def _plus_hour(stamp: str) -> str:
    from datetime import datetime, timedelta

    moment = datetime.fromisoformat(stamp.replace("Z", "+00:00")) + timedelta(hours=1)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ") if "T" in stamp else moment.strftime("%Y-%m-%d")


def records_of(data: JSON, schema: JSON | None) -> list[Any]:
    """The records inside a list tool's envelope (``{data: {plans: [...]}}``), as the shaper put them."""
    node: Any = data
    for key, _ in data_path(schema)[0]:
        node = node.get(key) if isinstance(node, dict) else None
    if isinstance(node, list):
        return node
    return next((v for v in data.values() if isinstance(v, list)), [])


OPTIONAL_SAID = (0, 1, 1, 2, 2, 3)  # how many optional fields a request for a new record says


def _depth(schema: Any) -> int:
    """How many containers nest in a schema: a scalar 0, a list of strings 1, a list of plain
    records 2, a list of records holding records or lists 3 or more."""
    if not isinstance(schema, dict):
        return 0
    inner = [schema["items"]] if isinstance(schema.get("items"), dict) else []
    inner += [v for v in (schema.get("properties") or {}).values() if isinstance(v, dict)]
    for combined in ("allOf", "anyOf", "oneOf"):
        inner += [v for v in schema.get(combined) or () if isinstance(v, dict)]
    own = 1 if primary_type(schema) in ("array", "object") or "properties" in schema else 0
    return own + max((_depth(v) for v in inner), default=0)


def _as_rows(value: Any) -> list[JSON]:
    if isinstance(value, list):
        return [r for r in value if isinstance(r, dict)]
    return [value] if isinstance(value, dict) else []


def _number(value: float | int) -> str:
    return str(value) if isinstance(value, int) or value != int(value) else str(int(value))


def label(name: str) -> str:
    """``loyalty_tier`` / ``dueDate`` -> ``loyalty tier`` / ``due date``."""
    return " ".join(tokens(name))


def _freeze(node: Draft) -> Node:
    return Node(
        id=node.id, kind=node.kind, tool=node.tool, entity=node.entity, field=node.field, op=node.op,  # type: ignore[arg-type]
        value=node.value, inputs=tuple(node.inputs), guard=node.guard, args=dict(node.args),
        hidden=tuple(node.hidden), write=node.write,
    )  # fmt: skip

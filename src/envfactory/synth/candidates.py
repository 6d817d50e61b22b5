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

import itertools
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from envfactory.ir.choice import Answer, ArgCheck
from envfactory.ir.effect import (
    ActionEffect,
    Behaviour,
    CreateEffect,
    DeleteEffect,
    FallbackEffect,
    Filter,
    FilterOp,
    ListEffect,
    UpdateEffect,
)
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import enum_values, primary_type
from envfactory.ir.state import SINGLETON_KEY, Entity, names_key
from envfactory.real.keypool import MINTED, matched_records
from envfactory.registry import Registry
from envfactory.runtime.answers import COUNT, REFUSED, ROWS, args_key, fill, leaf, opened_text, shape_of, token

JSON = dict[str, Any]


@dataclass(frozen=True)
class Pair:
    """One call of the evidence: what the real side answered, and what the current model answered."""

    args: JSON  # as the real side was called
    real_ok: bool
    real: Any  # the real reply (ids translated to the model's), or the refusal's message
    model_ok: bool
    model: Any  # the model's reply, or its refusal's message
    raw: Any = None  # what the model's effect produced before shaping (the whole record a create made)
    index: int = -1  # the call's place in its sequence
    fresh: bool = False  # no write was accepted before it in its sequence: it saw the starting state
    # how many records the model held just after the call, by ``{count:...}`` slot (:func:`state_tallies`)
    tallies: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Evidence:
    """Calls per tool, in the order they were made; and calls known to be accepted (the user's setup
    calls, which every fresh copy accepted before its sequence), as ``(tool, arguments)``."""

    pairs: dict[str, list[Pair]] = field(default_factory=dict)
    accepted: tuple[tuple[str, JSON], ...] = ()

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
        best: tuple[int, Any, JSON] | None = None
        for defaults in _default_sets(spec, tool):  # declared defaults; absent flags read as false or true
            made = Counter(_canonical(template_of(p.real, {**defaults, **p.args}, p.model, p.raw)) for p in seen)
            text, count = made.most_common(1)[0]
            shaped = orjson.loads(text)
            fits = sum(fill(shaped, p.args, p.model, defaults, p.raw) == p.real for p in seen)
            if count >= 2 and (best is None or fits > best[0]):
                best = (fits, shaped, defaults)
        if best is None or best[0] * 2 < len(seen) or best[1] == _first_model(seen):
            continue
        _, template, defaults = best
        answer = Answer(kind="template", template=template, defaults=defaults)
        behaviour = spec.behaviour(tool).model_copy(update={"answer": answer})
        shown = text if len(text) <= 80 else text[:77] + "..."
        out.append(Candidate(tool, "template", f"answers {shown}", behaviour,
                             confirms="every accepted call answers this wording"))  # fmt: skip
    return out


def _default_sets(spec: EnvSpec, tool: str) -> list[JSON]:
    """What an omitted argument stands for, as candidates: the declared defaults; with every
    undeclared boolean argument false; or true."""
    declared = declared_defaults(spec, tool)
    props = spec.tools[tool].input_schema.get("properties") or {}
    flags = [k for k, v in props.items() if isinstance(v, dict) and primary_type(v) == "boolean" and k not in declared]
    if not flags:
        return [declared]
    return [declared, {**declared, **dict.fromkeys(flags, False)}, {**declared, **dict.fromkeys(flags, True)}]


MAX_TALLIED_ROWS = 5000  # an entity this large is not counted call by call
MAX_CATEGORIES = 12  # a field with more distinct values than this is not a category to count by


def state_tallies(spec: EnvSpec, store: Any) -> dict[str, int]:
    """Every count a reply might state, by its slot: each entity's records (``{count:todo}``), and
    for each categorical field — a flag, an enum, a field of a few values — the records holding
    each value (``{count:todo.completed=false}``; a flag's and an enum's other values count zero)."""
    out: dict[str, int] = {}
    for entity in spec.state_schema.entities:
        if entity.key == SINGLETON_KEY:
            continue
        rows = list(itertools.islice(store.rows(entity.name), MAX_TALLIED_ROWS + 1))
        if len(rows) > MAX_TALLIED_ROWS:
            continue
        out[f"{{count:{entity.name}}}"] = len(rows)
        for name, schema in entity.fields.items():
            if name == entity.key:
                continue
            held = Counter(token(r.get(name)) for r in rows if not isinstance(r.get(name), (dict, list)))
            flags = {"true", "false"} if primary_type(schema) == "boolean" else set()
            domain = {token(m) for m in enum_values(schema)} | flags
            if len(held) > MAX_CATEGORIES or len(domain | set(held)) > MAX_CATEGORIES:
                continue
            for value in sorted(domain | set(held)):
                out[f"{{count:{entity.name}.{name}={value}}}"] = held.get(value, 0)
    return out


@PROPOSERS.register("counts")
def state_counts(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """Numbers in a reply that are counts of the state (``{"total_todos": 3, "completed_todos": 1}``):
    an integer the real side answered at one place, equal on every accepted call to how many records
    of one kind the model then held (of all, or of those with a value), and not always zero. The
    reply keeps its wording (the tool's template, else the last real reply's) with those places
    counted; the simplest count explaining a place is taken."""
    out = []
    for tool, pairs in evidence.pairs.items():
        seen = [p for p in pairs if p.real_ok and p.tallies and isinstance(opened_text(p.real), dict)]
        if len(seen) < 2:
            continue
        places: dict[str, str] = {}
        for path, _ in _leaves(opened_text(seen[-1].real)):
            values = [_at(opened_text(p.real), path) for p in seen]
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in values) or not any(values):
                continue
            fits = [slot for slot in seen[-1].tallies
                    if all(p.tallies.get(slot) == v for p, v in zip(seen, values, strict=True))]  # fmt: skip
            if fits:
                places[path] = min(fits, key=lambda slot: (slot.count("="), len(slot), slot))
        if not places:
            continue
        current = spec.behaviour(tool).answer
        base = current.template if current is not None and current.kind == "template" else None
        last = seen[-1]
        template = (
            base if isinstance(base, dict) else template_of(opened_text(last.real), last.args, last.model, last.raw)
        )
        if not isinstance(template, dict):
            continue
        for path, slot in places.items():
            template = _placed(template, path, slot)
        answer = Answer(kind="template", template=template, defaults=current.defaults if current is not None else {})
        behaviour = spec.behaviour(tool).model_copy(update={"answer": answer})
        shown = ", ".join(f"{p} = {s}" for p, s in sorted(places.items()))
        out.append(Candidate(tool, "counts", f"counts {shown[:100]}", behaviour,
                             confirms="every accepted call states these counts of the state"))  # fmt: skip
    return out


def _at(value: Any, path: str) -> Any:
    try:
        return leaf(value, path)
    except KeyError:
        return None


def _placed(template: JSON, path: str, slot: str) -> JSON:
    """``template`` with the value at a dotted ``path`` (objects only) replaced by ``slot``."""
    head, _, rest = path.partition(".")
    if head not in template or ("[" in head):
        return template
    inner = template[head]
    if not rest:
        return {**template, head: slot}
    return {**template, head: _placed(inner, rest, slot)} if isinstance(inner, dict) else template


@PROPOSERS.register("list-envelope")
def list_envelopes(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A list whose real replies wrap its rows (``{"todos": [...], "count": 2}``) where the model's
    output schema made it answer one row or a bare list: the rows it found, wrapped as the real
    thing wraps them, the count counted."""
    out = []
    for tool, pairs in evidence.pairs.items():
        if spec.behaviour(tool).effect.kind != "list":
            continue
        template = _envelope(pairs)
        if template is None:
            continue
        text = _canonical(template)
        answer = Answer(kind="template", template=template, defaults=declared_defaults(spec, tool))
        behaviour = spec.behaviour(tool)
        every = behaviour.effect.model_copy(update={"every": True})
        out.append(Candidate(tool, "list-envelope", f"answers its rows as {text[:80]}",
                             behaviour.model_copy(update={"answer": answer, "effect": every}),
                             confirms="every list answers its rows inside this envelope"))  # fmt: skip
    return out


def _envelope(pairs: list[Pair]) -> Any:
    """The envelope most of the real replies wrap their rows in (at least two), or ``None``."""
    shapes = Counter(_canonical(t) for p in pairs if p.real_ok and (t := _enveloped(p.real, p.args)) is not None)
    if not shapes:
        return None
    text, count = shapes.most_common(1)[0]
    return orjson.loads(text) if count >= 2 else None


def _enveloped(real: Any, args: JSON) -> Any:
    """``real`` as a template whose one list of records (or empty list) is ``{rows}`` and whose
    count of it is ``{count}``, or ``None`` when it is no such envelope."""
    if not isinstance(real, dict):
        return None
    lists = [k for k, v in real.items() if isinstance(v, list) and all(isinstance(x, dict) for x in v)]
    if len(lists) != 1:
        return None
    rows = real[lists[0]]
    return {k: ROWS if k == lists[0] else _counted(v, len(rows), args) for k, v in real.items()}


def _counted(value: Any, rows: int, args: JSON) -> Any:
    """A member beside the rows: a number equal to how many there are is ``{count}``, inside a
    nested object too (``pagination: {total: 4, returned: 4}``)."""
    if isinstance(value, int) and not isinstance(value, bool) and value == rows:
        return COUNT
    if isinstance(value, dict):
        return {k: _counted(v, rows, args) for k, v in value.items()}
    return template_of(value, args, None)


def declared_defaults(spec: EnvSpec, tool: str) -> JSON:
    """The defaults a tool's input schema declares for its top-level arguments."""
    props = spec.tools[tool].input_schema.get("properties") or {}
    return {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}


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


@PROPOSERS.register("record-fields")
def record_fields(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A create whose real record holds fields the model's record lacks, or leaves empty, with the
    same value every time (``completed: false``, ``projects: []``, ``priority: null``): the entity
    holds them, and every create stores that value, so later reads answer them too."""
    out = []
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if not isinstance(effect, CreateEffect):
            continue
        entity = spec.state_schema[effect.entity]
        records = [(r, m, p.args) for p in pairs if p.real_ok and p.model_ok
                   for r, m in [(_record(p.real, p.model), p.model)] if r is not None]  # fmt: skip
        if len(records) < 2:
            continue
        from_args = {field: arg for arg, field in effect.args.items()}
        constant: JSON = {}
        for name in set.intersection(*(set(r) for r, _, _ in records)) - {entity.key}:
            # the value a record holds when no argument gave it
            left = [(r[name], m) for r, m, a in records if from_args.get(name) not in a]
            values = [v for v, _ in left]
            mine = [m[name] if isinstance(m, dict) and name in m else _ABSENT for _, m in left]  # null is a value
            if len(left) >= 2 and all(v == values[0] for v in values) and any(v != values[0] for v in mine):
                constant[name] = values[0]
        if not constant:
            continue
        fields = {**entity.fields, **{f: _schema_of(v) for f, v in constant.items() if f not in entity.fields}}
        changed = entity.model_copy(update={"fields": fields})
        behaviour = spec.behaviour(tool)
        made = effect.model_copy(update={"defaults": {**effect.defaults, **constant}})
        named = ", ".join(f"{k}={orjson.dumps(v).decode()}" for k, v in sorted(constant.items()))
        out.append(Candidate(tool, "record-fields", f"{entity.name} records start with {named}"[:120],
                             behaviour.model_copy(update={"effect": made}), entities=(changed,),
                             confirms="every created record holds these values"))  # fmt: skip
    return out


_ABSENT = object()


def _record(real: Any, model: Any) -> JSON | None:
    """The record inside a real reply that answers the model's record: the reply itself, or its one
    member sharing the most keys with it (``{"success": true, "todo": {...}}``)."""
    if not isinstance(real, dict) or not isinstance(model, dict):
        return None
    inner = [v for v in real.values() if isinstance(v, dict)]
    best = max([real, *inner], key=lambda d: len(d.keys() & model.keys()))
    return best if best.keys() & model.keys() else None


def _schema_of(value: Any) -> JSON:
    kinds = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}
    kind = kinds.get(type(value))
    return {"type": kind} if kind else {}


@PROPOSERS.register("writes")
def keyed_writes(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A tool the descriptions could not model (a fallback) that names a record by its key
    (``complete_todo(todo_id)``) and that the real side accepted: it deletes the record, sets the
    fields its other arguments are named after, or sets one of its status values or flags (each
    value a candidate, a repeat refused or accepted) — what the reads after it and the final state
    show decides."""
    out = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        if not isinstance(behaviour.effect, FallbackEffect) or not any(p.real_ok for p in pairs):
            continue
        named = _keyed(spec, tool)
        if named is None:
            continue
        entity, arg = named
        effects: list[tuple[str, Any]] = [(f"deletes the {entity.name}", DeleteEffect(entity=entity.name, key_arg=arg))]
        # its other arguments named after fields of the record: it sets them (``update_deal_stage(deal_id, stage)``)
        sets = {a: a for a in spec.tools[tool].input_schema.get("properties") or {} if a != arg and a in entity.fields}
        if sets:
            effects.append((f"sets {', '.join(sorted(sets))} of the {entity.name}",
                            UpdateEffect(entity=entity.name, key_arg=arg, args=sets)))  # fmt: skip
        # a status value only if the real side ever answered it; a repeat accepted only if one was
        answered = _answered_values(evidence)
        agains = (False, True) if _repeat_accepted(pairs) else (False,)
        for name, schema in entity.fields.items():
            members = [m for m in enum_values(schema) if isinstance(m, str) and m in answered][:6]
            values: list[Any] = [*members, *((True, False) if primary_type(schema) == "boolean" else ())]
            for value in values:
                for again in agains:
                    effects.append((f"sets {entity.name}.{name} to {value!r}{' (again accepted)' if again else ''}",
                                    ActionEffect(entity=entity.name, key_arg=arg, field=name, to=value,
                                                 again=again)))  # fmt: skip
        for summary, effect in effects:
            made = Behaviour(tool=tool, effect=effect, prior="plausible", notes=(f"learned: {summary}",))
            out.append(Candidate(tool, "writes", summary, made, confirms="reads after the call show the change"))
    return out


def _answered_values(evidence: Evidence) -> set[str]:
    """Every text value the real side answered anywhere in the evidence."""
    return {v for pairs in evidence.pairs.values() for p in pairs if p.real_ok
            for _path, v in _leaves(p.real) if isinstance(v, str)}  # fmt: skip


def _repeat_accepted(pairs: list[Pair]) -> bool:
    """Whether the real side accepted a call with arguments it had already accepted."""
    seen: set[str] = set()
    for p in pairs:
        key = args_key(p.args)
        if p.real_ok and key in seen:
            return True
        if p.real_ok:
            seen.add(key)
    return False


def _keyed(spec: EnvSpec, tool: str) -> tuple[Entity, str] | None:
    """The entity a tool's required argument names by its key (``todo_id``, ``id``), if one does."""
    effect = spec.behaviour(tool).effect
    needs = getattr(effect, "needs", {}) or {}
    for arg, name in needs.items():
        if name in spec.state_schema:
            return spec.state_schema[name], arg
    entities = [e for e in spec.state_schema.entities if e.key != SINGLETON_KEY]
    for arg in spec.tools[tool].required:
        for e in entities:
            own = arg in (f"{e.name}_id", f"{e.name}Id") or names_key(arg, e.name, e.key)
            if own or (arg == e.key and len(entities) == 1):
                return e, arg
    return None


@PROPOSERS.register("checks")
def argument_checks(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """Checks the real side makes that the model does not: an argument whose every accepted value had
    one of a few shapes and whose refused calls the model accepted all had another (``limit: 34.65``
    refused, whole numbers accepted; a priority ``high`` refused, ``A`` accepted). Calls refused for
    another reason besides (a value of an accepted shape) do not hide the check: the chooser weighs it."""
    out = []
    for tool, pairs in evidence.pairs.items():
        missed = [p for p in pairs if not p.real_ok and p.model_ok]
        if not missed:
            continue
        behaviour = spec.behaviour(tool)
        given = [a for t, a in evidence.accepted if t == tool]
        for arg in sorted({a for p in missed for a in p.args}):
            accepted = {shape_of(p.args[arg]) for p in pairs if p.real_ok and arg in p.args}
            accepted |= {shape_of(a[arg]) for a in given if arg in a}
            refused = [p for p in missed if arg in p.args and shape_of(p.args[arg]) not in accepted]
            if not accepted or len(accepted) > 4 or not refused:
                continue
            message = str(refused[0].real)[:200] if isinstance(refused[0].real, str) else f"invalid {arg}"
            check = ArgCheck(arg=arg, shapes=tuple(sorted(accepted)), message=message)
            made = behaviour.model_copy(update={"checks": (*behaviour.checks, check)})
            out.append(Candidate(tool, "checks", f"{arg} must be shaped {' or '.join(sorted(accepted))}", made,
                                 confirms="values of other shapes are refused"))  # fmt: skip
    return out


def _list_reads(spec: EnvSpec, evidence: Evidence) -> list[tuple[str, list[Pair], Entity]]:
    """The list tools of the evidence, their calls, and the entity each lists."""
    out = []
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if isinstance(effect, ListEffect) and effect.entity in spec.state_schema:
            out.append((tool, pairs, spec.state_schema[effect.entity]))
    return out


@PROPOSERS.register("include-flags")
def include_flags(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A list's boolean argument that includes records it otherwise leaves out
    (``list_todos(include_completed)``): where the real side listed fewer records than the model
    with the flag off or omitted, each boolean field of the entity is a candidate for what the flag
    lets through; reads and final states decide."""
    out = []
    for tool, pairs, entity in _list_reads(spec, evidence):
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        assert isinstance(effect, ListEffect)
        props = spec.tools[tool].input_schema.get("properties") or {}
        taken = {f.arg for f in effect.filters}
        flags = [a for a, s in props.items() if isinstance(s, dict) and primary_type(s) == "boolean" and a not in taken]
        fields = [f for f, s in entity.fields.items() if isinstance(s, dict) and primary_type(s) == "boolean"]
        for flag in flags:
            if not any(not p.args.get(flag) and _fewer(p) for p in pairs):
                continue
            for name in fields:
                kept = Filter(arg=flag, field=name, op="unless")
                made = effect.model_copy(update={"filters": (*effect.filters, kept)})
                out.append(Candidate(tool, "include-flags",
                                     f"lists {entity.name} records with {name} set only when {flag}",
                                     behaviour.model_copy(update={"effect": made}),
                                     confirms="with the flag off, records with it set are not listed"))  # fmt: skip
    return out


@PROPOSERS.register("list-filters")
def list_filters(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A list argument the model ignores that the real side honours (``list_tasks(status="open")``):
    where the real side listed fewer records than the model with it given, each field whose values
    the argument matched among the model's rows is a candidate — equal, one of a list field's
    values, or inside a text — and reads decide."""
    out = []
    for tool, pairs, entity in _list_reads(spec, evidence):
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        assert isinstance(effect, ListEffect)
        paging = effect.paging
        used = {f.arg for f in effect.filters} | {paging.limit_arg, paging.offset_arg, paging.page_arg,
                                                   paging.cursor_arg}  # fmt: skip
        fewer = [p for p in pairs if _fewer(p)]
        for arg in sorted({a for p in fewer for a, v in p.args.items() if a not in used and _scalar(v)}):
            ops: Counter[tuple[str, FilterOp]] = Counter()
            for p in fewer:
                if arg not in p.args:
                    continue
                value = _fold(p.args[arg])
                for row in p.raw:
                    for name, held in row.items() if isinstance(row, dict) else ():
                        if isinstance(held, list) and value in {_fold(x) for x in held if _scalar(x)}:
                            ops[(name, "any")] += 1
                        elif _scalar(held) and _fold(held) == value:
                            ops[(name, "eq")] += 1
                        elif isinstance(held, str) and isinstance(value, str) and value and value in held.casefold():
                            ops[(name, "contains")] += 1
            for (name, op), _n in ops.most_common(3):
                made = effect.model_copy(update={"filters": (*effect.filters, Filter(arg=arg, field=name, op=op))})
                out.append(Candidate(tool, "list-filters", f"lists {entity.name} records whose {name} {op} {arg}",
                                     behaviour.model_copy(update={"effect": made}),
                                     confirms="records that do not match are not listed"))  # fmt: skip
    return out


def _listed(p: Pair) -> tuple[int, int] | None:
    """How many records a list call's real reply and the model's rows held, where both are lists."""
    real = _records_in(p.real) if p.real_ok and isinstance(p.raw, list) else None
    return None if real is None else (len(real), len(p.raw))


def _fewer(p: Pair) -> bool:
    """Whether the real side listed fewer records than the model on this call."""
    n = _listed(p)
    return n is not None and n[0] < n[1]


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _fold(value: Any) -> Any:
    return value.casefold() if isinstance(value, str) else value


@PROPOSERS.register("record-reads")
def record_reads(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A read the descriptions could not model (a fallback that writes nothing) whose real replies
    hold records of an entity the model keeps (``context_get`` answering the items ``context_save``
    made): it lists that entity's records, its arguments named after fields filtering them, every
    match answered; an envelope around them is the ``list-envelope`` proposer's, once it lists."""
    out = []
    entities = [e for e in spec.state_schema.entities if e.key != SINGLETON_KEY]
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        if not isinstance(effect, FallbackEffect) or effect.writes:
            continue
        shown = [rows for p in pairs if p.real_ok and (rows := _records_in(p.real))]
        if len(shown) < 2:
            continue
        names = {k for rows in shown for r in rows for k in r}
        props = spec.tools[tool].input_schema.get("properties") or {}
        envelope = _envelope(pairs)  # the rows inside the real envelope, as a list answers
        for entity in entities:
            if len((set(entity.fields) & names) - {entity.key}) < 2:
                continue
            filters = tuple(Filter(arg=a, field=a, op="eq") for a in props if a in entity.fields)
            made = ListEffect(entity=entity.name, filters=filters, every=True)
            summary = f"lists {entity.name} records" + (f" by {', '.join(f.arg for f in filters)}" if filters else "")
            behaviour = Behaviour(tool=tool, effect=made, prior="plausible", notes=(f"learned: {summary}",))
            if envelope is not None:
                answer = Answer(kind="template", template=envelope, defaults=declared_defaults(spec, tool))
                behaviour = behaviour.model_copy(update={"answer": answer})
            out.append(Candidate(tool, "record-reads", summary, behaviour,
                                 confirms="its replies hold the records the model keeps"))  # fmt: skip
            # the records a fresh copy starts with show only through this read: offered with it
            first = _first_records(entity, [p for p in pairs if p.real_ok and p.fresh and not p.args])
            seeded = _completed(spec.initial_state.get(entity.name) or [], first, entity.key)
            if seeded:
                added = {n: _schema_of(v) for r in seeded for n, v in r.items() if n not in entity.fields}
                changed = entity.model_copy(update={"fields": {**entity.fields, **added}})
                out.append(Candidate(tool, "record-reads", f"{summary}, starting as a first read showed",
                                     behaviour, entities=(changed,), rows={entity.name: seeded},
                                     confirms="a first read answers these records"))  # fmt: skip
    return out


def _completed(held: list[JSON], real: list[JSON], key: str) -> list[JSON]:
    """The model's starting records with the fields the real ones it matches hold besides (by what
    neither side minted); the real records themselves where the model starts with none."""
    if not held:
        return real
    extra = {id(m): {k: v for k, v in r.items() if k not in m and k != key and not k.endswith(MINTED)}
             for r, m in matched_records(real, held)}  # fmt: skip
    return [{**row, **extra.get(id(row), {})} for row in held] if any(extra.values()) else []


def _first_records(entity: Entity, fresh: list[Pair]) -> list[JSON]:
    """The records the first fresh read answered: every fresh copy starts the same, and its keys
    may be minted anew in each (a stamp, compared by presence)."""
    for p in fresh:
        records = [r for r in _records_in(p.real) or () if r.get(entity.key) not in (None, "", [], {})]
        if records:
            return records
    return []


@PROPOSERS.register("page-size")
def page_sizes(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A list that never answered more than ``n`` records, at least twice exactly ``n``, where the
    model listed more: the real side pages its answers by ``n`` when no limit is given."""
    out = []
    for tool, pairs, entity in _list_reads(spec, evidence):
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        assert isinstance(effect, ListEffect)
        limit_arg = effect.paging.limit_arg
        shown = [n for p in pairs if not (limit_arg and p.args.get(limit_arg) is not None) and (n := _listed(p))]
        if not shown:
            continue
        most = max(n for n, _ in shown)
        if most == 0 or sum(n == most for n, _ in shown) < 2 or not any(m > most for _, m in shown):
            continue
        if effect.paging.default_limit == most:
            continue
        paging = effect.paging.model_copy(update={"default_limit": most})
        made = effect.model_copy(update={"paging": paging})
        out.append(Candidate(tool, "page-size", f"lists at most {most} {entity.name} records at a time",
                             behaviour.model_copy(update={"effect": made}),
                             confirms="no answer holds more records than that"))  # fmt: skip
    return out


@PROPOSERS.register("start-rows")
def start_rows(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """The records the real thing starts with, as it answers them: a list read before any write of
    its sequence shows the starting records, matched to the model's by what neither side minted (a title,
    a name); the fields they hold that the model's records lack or hold otherwise (a null included)
    are added to its starting records (``completed: false`` where the model knew nothing). Where fresh
    reads disagree on a value, it is a stamp: the first is kept, and compared by its presence."""
    out = []
    for tool, pairs, entity in _list_reads(spec, evidence):
        mine = {str(r.get(entity.key)): r for r in spec.initial_state.get(entity.name, [])}
        learned: dict[str, JSON] = {}
        for p in pairs:
            real_rows = _records_in(p.real) if p.real_ok and p.fresh else None
            if real_rows is None or not isinstance(p.raw, list):
                continue
            for real, model in matched_records(real_rows, [r for r in p.raw if isinstance(r, dict)]):
                key = str(model.get(entity.key))
                if key not in mine:
                    continue
                for name, value in real.items():
                    if name == entity.key or name.endswith(MINTED) or (name in model and model[name] == value):
                        continue
                    seen = learned.setdefault(key, {})
                    seen.setdefault(name, value)  # fresh reads that disagree: a stamp, held by its presence
        learned = {k: v for k, v in learned.items() if v}
        if not learned:
            continue
        added = {n: _schema_of(v) for fields in learned.values() for n, v in fields.items() if n not in entity.fields}
        changed = entity.model_copy(update={"fields": {**entity.fields, **added}})
        rows = [{**row, **learned.get(str(row.get(entity.key)), {})} for row in spec.initial_state[entity.name]]
        names = sorted({n for fields in learned.values() for n in fields})
        out.append(Candidate(tool, "start-rows", f"{entity.name} records start holding {', '.join(names)}"[:120],
                             spec.behaviour(tool), entities=(changed,), rows={entity.name: rows},
                             confirms="a first read answers the starting records so"))  # fmt: skip
    return out


@PROPOSERS.register("start-records")
def start_records(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """Records the real thing starts with that the model does not hold at all (reference data: a
    server seeded with contacts and tasks): every record a list read before any write of its
    sequence answered, by the key the entity is known by, with the values it held in every such
    read. The model starts holding them, under the real keys, so later calls name them as the real
    side does."""
    out = []
    for tool, pairs, entity in _list_reads(spec, evidence):
        held = [r for r in spec.initial_state.get(entity.name, []) if isinstance(r, dict)]
        found: dict[str, JSON] = {}
        conflicting: set[tuple[str, str]] = set()
        for p in pairs:
            real_rows = _records_in(p.real) if p.real_ok and p.fresh else None
            for record in real_rows or ():
                if not isinstance(record, dict) or record.get(entity.key) in (None, "", [], {}):
                    continue
                if matched_records([record], held):  # the model holds it already (``start-rows``)
                    continue
                key = str(record[entity.key])
                seen = found.setdefault(key, {})
                for name, value in record.items():
                    if name in seen and seen[name] != value:
                        conflicting.add((key, name))
                    seen.setdefault(name, value)
        for key, name in conflicting:
            found[key].pop(name, None)
        if not found:
            continue
        added = {n: _schema_of(v) for r in found.values() for n, v in r.items() if n not in entity.fields}
        changed = entity.model_copy(update={"fields": {**entity.fields, **added}})
        rows = [*spec.initial_state.get(entity.name, []), *found.values()]
        summary = f"{entity.name} starts with {len(found)} records a first read showed"
        out.append(Candidate(tool, "start-records", summary, spec.behaviour(tool), entities=(changed,),
                             rows={entity.name: rows},
                             confirms="a first read answers these records"))  # fmt: skip
    return out


def _records_in(real: Any) -> list[JSON] | None:
    """The records a list's reply holds: the reply itself, or its one member holding records."""
    if isinstance(real, list):
        return [r for r in real if isinstance(r, dict)]
    if isinstance(real, dict):
        lists = [v for v in real.values() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)]
        return lists[0] if len(lists) == 1 else None
    return None


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
        behaviour = Behaviour(tool=tool, effect=FallbackEffect(reason=reason[:200], writes=True), prior="guess",
                              notes=("the real implementation refused it",))  # fmt: skip
        out.append(Candidate(tool, "refuses", "refuses", behaviour, confirms="the real side refuses every call"))
    return out


_REFERENCED = re.compile(r"not found \(argument for '([^']+)'\)")


@PROPOSERS.register("unchecked-refs")
def unchecked_references(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """References the real side does not look up: it accepted calls the model refused because a
    referenced record does not exist (``add_activity(task_id="MJ-1")``). A create or update stops
    checking those fields; a tool that needs a named record stops needing it."""
    out = []
    for tool, pairs in evidence.pairs.items():
        missed = [str(p.model) for p in pairs if p.real_ok and not p.model_ok and "not found" in str(p.model)]
        if not missed:
            continue
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        made: Any
        if isinstance(effect, (CreateEffect, UpdateEffect)):
            fields = sorted({m.group(1) for text in missed for m in _REFERENCED.finditer(text)} - set(effect.unchecked))
            if not fields:
                continue
            made = effect.model_copy(update={"unchecked": (*effect.unchecked, *fields)})
            summary = f"does not look up {', '.join(fields)}"
        elif needs := getattr(effect, "needs", None):
            made, summary = effect.model_copy(update={"needs": {}}), f"does not look up {', '.join(sorted(needs))}"
        else:
            continue
        out.append(Candidate(tool, "unchecked-refs", summary, behaviour.model_copy(update={"effect": made}),
                             confirms="calls naming records that do not exist are accepted"))  # fmt: skip
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
                              prior="guess", notes=("accepts every call, as the real one did",))  # fmt: skip
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


def template_of(real: Any, args: JSON, model: Any, raw: Any = None) -> Any:
    """``real`` (text or JSON) with the values it shares with the arguments and the model's answer
    as slots: a whole value becomes one slot (keeping its type), words inside a text become slots
    (arguments first, longer values first, whole words only)."""
    slots: dict[str, str] = {}
    for path, value in _leaves(args):
        slots.setdefault(_word(value), f"{{arg.{path}}}")
    for path, value in _leaves(model):
        slots.setdefault(_word(value), f"{{out.{path}}}")
    for path, value in _leaves(raw if isinstance(raw, dict) else None):
        slots.setdefault(_word(value), f"{{raw.{path}}}")
    flags = {v: f"{{arg.{k}}}" for k, v in reversed(list(args.items())) if isinstance(v, bool)}  # an echoed flag
    wholes = {"{out}": model, "{raw}": raw}  # the model's whole answer, wrapped as the real thing wraps it
    return _templated(real, slots, {k: v for k, v in wholes.items() if v not in (None, "", [], {})}, flags)


def _templated(real: Any, slots: dict[str, str], wholes: dict[str, Any] | None = None,
               flags: dict[bool, str] | None = None) -> Any:  # fmt: skip
    if isinstance(real, (dict, list)):
        whole = next((slot for slot, value in (wholes or {}).items() if value == real), None)
        if whole is not None:
            return whole
    if isinstance(real, dict):
        return {k: _templated(v, slots, wholes, flags) for k, v in real.items()}
    if isinstance(real, list):
        return [_templated(v, slots, wholes, flags) for v in real]
    if isinstance(real, bool):
        return (flags or {}).get(real, real)
    if real is None:
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

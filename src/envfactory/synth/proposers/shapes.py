"""What proposers read in real replies: the records a reply holds, its envelope, and templates
over it with slots for what the arguments and the model's answer share with it."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

import orjson

from envfactory.ir.effect import ListEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import Entity
from envfactory.real.volatile import VOLATILE, filled_marks, marked_words, masked, restored
from envfactory.runtime.answers import (
    CASE,
    COUNT,
    COUNTED,
    DISTINCT,
    EACH,
    FORMATTED,
    HOLDING,
    JOINED,
    NEWEST,
    NUMBER_FORMATS,
    PARTS,
    ROWS,
    SLOT,
    SORTED,
    WHEN,
    distinct,
    fill,
    token,
    total,
)
from envfactory.synth.candidates import JSON, Evidence, Pair
from envfactory.synth.textblocks import block_of_one, blocks
from envfactory.words import tokens


def declared_defaults(spec: EnvSpec, tool: str) -> JSON:
    """The defaults a tool's input schema declares for its top-level arguments."""
    props = spec.tools[tool].input_schema.get("properties") or {}
    return {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}


def canonical(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()


def default_sets(spec: EnvSpec, tool: str) -> list[JSON]:
    """What an omitted argument stands for, as candidates: the declared defaults; with every
    undeclared boolean argument false; or true."""
    declared = declared_defaults(spec, tool)
    props = spec.tools[tool].input_schema.get("properties") or {}
    flags = [k for k, v in props.items() if isinstance(v, dict) and primary_type(v) == "boolean" and k not in declared]
    if not flags:
        return [declared]
    return [declared, {**declared, **dict.fromkeys(flags, False)}, {**declared, **dict.fromkeys(flags, True)}]


def steady(evidence: Evidence, tool: str, real: Any) -> Any:
    """A real reply of ``tool`` with one mark at each place the real thing does not reproduce (a
    stamp, a random token), so that replies worded alike read alike."""
    return masked(real, tool, evidence.volatile)


def unmasked(template: Any, example: Any) -> Any:
    """``template`` with each mark :func:`steady` put replaced by what ``example`` (a real reply)
    holds there: the model answers a value of the real kind, compared by its presence."""
    if template == VOLATILE:
        return template if example is None else example
    if isinstance(template, str) and VOLATILE in template and isinstance(example, str):
        return restored(template, example)
    if isinstance(template, dict) and isinstance(template.get("join"), str) and isinstance(example, str):
        return _unmasked_lines(template, marked_words(example))
    if isinstance(template, dict):
        return {k: unmasked(v, example.get(k) if isinstance(example, dict) else None) for k, v in template.items()}
    if isinstance(template, list):
        inner = example if isinstance(example, list) else []
        return [unmasked(v, inner[i] if i < len(inner) else None) for i, v in enumerate(template)]
    return template


def _unmasked_lines(template: JSON, words: list[str]) -> JSON:
    """A text list's template (``"join"``) with the marks of its head, of its first record's wording
    and of its tail holding the words a real text held there, in order (``words``)."""
    head, tail = template.get("head", ""), template.get("tail", "")
    if not isinstance(head, str) or not isinstance(tail, str):
        return template
    first = head.count(VOLATILE)
    out = {**template, "head": filled_marks(head, words[:first])}
    out["tail"] = filled_marks(tail, words[len(words) - tail.count(VOLATILE) :] if VOLATILE in tail else [])
    item = template.get("item")
    inside = words[first:]
    if isinstance(item, str):
        out["item"] = filled_marks(item, inside)
    elif isinstance(item, dict) and CASE in item:
        out["item"] = {**item, "value": filled_marks(item["value"], inside),
                       "cases": {k: filled_marks(v, inside) for k, v in item["cases"].items()}}  # fmt: skip
    return out


def envelope(evidence: Evidence, tool: str, defaults: list[JSON] | None = None) -> tuple[Any, JSON] | None:
    """The envelope most of ``tool``'s real replies wrap their rows in (at least two), with what its
    omitted arguments stood for (one of ``defaults``: the set that explains the most replies), or
    ``None``."""
    pairs = [p for p in evidence.pairs.get(tool, []) if p.real_ok]
    best: tuple[int, str, JSON, Any] | None = None
    for given in defaults or [{}]:
        shapes: Counter[str] = Counter()
        first: dict[str, Any] = {}  # each envelope's first real reply: the values its marks take
        for p in pairs:
            made = _enveloped(steady(evidence, tool, p.real), {**given, **p.args})
            if made is not None:
                text = canonical(made)
                shapes[text] += 1
                first.setdefault(text, p.real)
        if shapes:
            text, count = shapes.most_common(1)[0]
            if count >= 2 and (best is None or count > best[0]):
                best = (count, text, given, first[text])
    if best is None:
        return None
    _, text, given, example = best
    return unmasked(orjson.loads(text), example), given


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


def objects_in(value: Any) -> list[JSON]:
    """Every object inside ``value``, itself included, at any depth."""
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            out.append(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def records_in(real: Any) -> list[JSON] | None:
    """The records a list's reply holds: the reply itself, or its one member holding records."""
    if isinstance(real, list):
        return [r for r in real if isinstance(r, dict)]
    if isinstance(real, dict):
        lists = [v for v in real.values() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)]
        return lists[0] if len(lists) == 1 else None
    return None


def record_in(real: Any, model: Any) -> JSON | None:
    """The record inside a real reply that answers the model's record: the reply itself, or its one
    member sharing the most keys with it (``{"success": true, "todo": {...}}``)."""
    if not isinstance(real, dict) or not isinstance(model, dict):
        return None
    inner = [v for v in real.values() if isinstance(v, dict)]
    best = max([real, *inner], key=lambda d: len(d.keys() & model.keys()))
    return best if best.keys() & model.keys() else None


def schema_of(value: Any) -> JSON:
    kinds = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array", dict: "object"}
    kind = kinds.get(type(value))
    return {"type": kind} if kind else {}


def reply_text(reply: Any) -> str | None:
    """A reply that is a text, or an object whose one member is (``{"result": "..."}``); else ``None``."""
    if isinstance(reply, dict) and len(reply) == 1:
        reply = next(iter(reply.values()))
    return reply if isinstance(reply, str) else None


def list_reads(spec: EnvSpec, evidence: Evidence) -> list[tuple[str, list[Pair], Entity, ListEffect]]:
    """The list tools of the evidence: each with its calls, the entity it lists and its effect."""
    out = []
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if isinstance(effect, ListEffect) and effect.entity in spec.state_schema:
            out.append((tool, pairs, spec.state_schema[effect.entity], effect))
    return out


def template_of(real: Any, args: JSON, model: Any, raw: Any = None,
                state: dict[str, list[JSON]] | None = None, *, by_place: bool = False) -> Any:  # fmt: skip
    """``real`` (text or JSON) with the values it shares with the arguments and the model's answer
    as slots: a whole value becomes one slot (keeping its type), words inside a text become slots
    (arguments first, longer values first, whole words only). A list of records is worded record
    by record where it lists the model's answer, else the records ``state`` holds (by entity).
    ``by_place``: a member of an object the model's answer holds, equal, at the same place is that
    member, before an argument of that value (an edit answering the record: ``"done": "{out.done}"``,
    which an edit not given ``done`` answers too)."""
    real = own_where_volatile(real, model)
    slots: dict[str, str] = {}
    for text, slot in _joined_lists(args, single=isinstance(real, str)):
        slots.setdefault(text, slot)
    for path, value in leaves(args):
        slots.setdefault(_word(value), f"{{arg.{path}}}")
    for path, value in leaves(model):
        if not _positional(model, path, value):
            slots.setdefault(_word(value), f"{{out.{path}}}" if path else "{out}")  # a text answered whole
    for path, value in leaves(raw if isinstance(raw, dict) else None):
        if not _positional(raw, path, value):
            slots.setdefault(_word(value), f"{{raw.{path}}}")
    numbers = [("arg", p, v) for p, v in leaves(args)] + [("out", p, v) for p, v in leaves(model) if p]
    _add_formatted(slots, numbers)  # after every value as it is: ``124`` is 124 where something holds it
    flags = {v: f"{{arg.{k}}}" for k, v in reversed(list(args.items())) if isinstance(v, bool)}  # an echoed flag
    # the model's whole answer (and each list or object inside it), wrapped as the real thing wraps it
    wholes = {**_parts(model, "out"), **_parts(raw, "raw")}
    lists = {**_record_lists(model, "out"), **_record_lists(raw, "raw")}
    # "returned": 3 of a list that found three rows: how many it found (a member, not a word of a text)
    count = len(raw) if isinstance(raw, list) else None
    members = _members_by_path(model)
    nulls = {path: slot for path, (value, slot) in members.items() if value is None}
    places = members if by_place else {}
    return _templated(real, _Sources(slots, wholes, flags, lists, args, state or {}, count, nulls, places))


def _members_by_path(value: Any, path: str = "") -> dict[str, tuple[Any, str]]:
    """The members of an answer's objects (not inside lists) named as identifiers, by dotted path: their
    value and slot."""
    if not isinstance(value, dict):
        return {}
    found: dict[str, tuple[Any, str]] = {}
    for k, v in value.items():
        at = f"{path}.{k}" if path else str(k)
        if isinstance(k, str) and k.isidentifier():
            found[at] = (v, f"{{out.{at}}}")
        found.update(_members_by_path(v, at))
    return found


def _add_formatted(slots: dict[str, str], numbers: list[tuple[str, str, Any]]) -> None:
    """Into ``slots``, each number of ``numbers`` (source, path, value) as a text may write it
    otherwise — rounded, with thousands separators, two decimals: ``124`` of 123.5 as
    ``{arg.amount:.0f}`` —, where no slot has that text already. A number below ten rounded is a
    digit too common to name anything."""
    for head, path, value in numbers:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            continue
        for spec in NUMBER_FORMATS:
            text = format(value, spec)
            if text != _word(value) and (abs(value) >= 10 or not spec.endswith(".0f")):
                slots.setdefault(text, f"{{{head}.{path}{FORMATTED}{spec}}}")


SEPARATORS = (", ", ",", "; ", " ", "\n")  # how a text writes the values of a list one after another


def _joined_lists(args: JSON, *, single: bool) -> Iterator[tuple[str, str]]:
    """Each argument that is a list of plain values, written as a text writes it (``raise, town``),
    with its joined slot (``{arg.tags|, }``): of two values or more, by every separator; of one
    value, by the first, where the reply is a text (one value cannot tell the separator, and in a
    text a list of one is written as the list is)."""
    for name, value in args.items():
        if not (isinstance(value, list) and value and name.isidentifier()):
            continue
        if any(isinstance(v, (dict, list, bool)) or v is None for v in value):
            continue
        words = [_word(v) for v in value]
        if len(words) == 1 and single and words[0]:
            yield words[0], f"{{arg.{name}{JOINED}{SEPARATORS[0]}}}"
        elif len(words) > 1:
            for between in SEPARATORS:
                yield between.join(words), f"{{arg.{name}{JOINED}{between}}}"


def own_where_volatile(real: Any, model: Any) -> Any:
    """``real`` (marked by :func:`steady`) holding, at each mark, the model's own value at the same
    place where the model answered one there: a place the real thing does not reproduce (a minted
    id) is compared by presence alone, and answering the model's own id there lets later calls name
    what the model holds."""
    if real == VOLATILE:
        return model if isinstance(model, (str, int)) and not isinstance(model, bool) else real
    if isinstance(real, dict) and isinstance(model, dict):
        return {k: own_where_volatile(v, model.get(k)) for k, v in real.items()}
    if isinstance(real, list) and isinstance(model, list) and len(real) == len(model):
        return [own_where_volatile(r, m) for r, m in zip(real, model, strict=True)]
    return real


def _positional(value: Any, path: str, leaf: Any) -> bool:
    """Whether ``leaf``, at ``path`` in ``value``, is a number held by one of several records of a
    list (``[2].sequence_number`` of three): a reply's number equal to it is a coincidence of where
    the record stands (ids 1, 2, 3 make the third one's id the count), not a slot. The one record
    of a list of one is the record, and a grid's cell (``values[1][2]``: lists of values) is where
    it stands."""
    if not isinstance(leaf, (int, float)) or isinstance(leaf, bool):
        return False
    at = value
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            if len(at) > 1 and all(isinstance(x, dict) for x in at):
                return True
            at = at[int(part[1:-1])]
        else:
            at = at[part]
    return False


@dataclass(frozen=True)
class _Sources:
    """What a template's slots may be filled from: words by slot, whole values by slot, echoed
    flags, the model's lists of records by place, the arguments, and the state's records by entity."""

    slots: dict[str, str]
    wholes: dict[str, Any] = field(default_factory=dict)
    flags: dict[bool, str] = field(default_factory=dict)
    lists: dict[str, list[JSON]] = field(default_factory=dict)
    args: JSON = field(default_factory=dict)
    state: dict[str, list[JSON]] = field(default_factory=dict)
    count: int | None = None  # how many rows the list found, where the answer is a list's
    # a null the model's answer holds at the same place as the real one's, by dotted path: the member
    # as the model holds it (a due date not set yet, set later), not a constant null
    nulls: dict[str, str] = field(default_factory=dict)
    # the model's members by dotted path, with their slots, where a reply is worded by place first
    places: dict[str, tuple[Any, str]] = field(default_factory=dict)


def _parts(value: Any, head: str, depth: int = 2) -> dict[str, Any]:
    """``{HEAD}`` for ``value`` and ``{HEAD.PATH}`` for each non-empty list or object inside it (to
    ``depth`` levels of objects), by slot."""
    out: dict[str, Any] = {}
    if value in (None, "", [], {}):
        return out
    out[f"{{{head}}}"] = value
    if isinstance(value, dict) and depth > 0:
        for k, v in value.items():
            if isinstance(v, (dict, list)) and isinstance(k, str) and k.isidentifier():
                out.update({s: x for s, x in _parts(v, f"{head}.{k}", depth - 1).items() if s not in out})
    return out


def _record_lists(value: Any, head: str, depth: int = 2) -> dict[str, list[JSON]]:
    """The lists of records in ``value`` (itself, or inside its objects to ``depth`` levels), by place."""
    if isinstance(value, list):
        return {head: value} if value and all(isinstance(v, dict) for v in value) else {}
    out: dict[str, list[JSON]] = {}
    if isinstance(value, dict) and depth > 0:
        for k, v in value.items():
            if isinstance(k, str) and k.isidentifier():
                out.update(_record_lists(v, f"{head}.{k}", depth - 1))
    return out


_ABSENT = object()


def _each(real: list[Any], args: JSON, lists: dict[str, list[JSON]]) -> JSON | None:
    """A list of records the real side answered, one for each record of a list the model answered
    at ``place`` (same length, in order), all worded by one template: ``{"$each": place, "item": T}``
    (:func:`_item`). A list of any length is then worded, where a template read place by place fits
    only the length it was read at."""
    if not all(isinstance(r, dict) for r in real):
        return None
    for place, records in lists.items():
        if len(records) != len(real):
            continue
        own = _own_words(records)  # each real record names the model's record at its place
        if not all(own[i] & _words(r) for i, r in enumerate(real)):
            continue
        item = _item(real, args, records)
        if item is not None:
            return {EACH: place, "item": item}
    return None


def _item(real: list[JSON], args: JSON, records: list[JSON]) -> JSON | None:
    """One template wording each real record from the model's record beside it: member by member,
    the wording that words that member as the real side did for the most records (a record lacking
    one part of a composed text suggests another wording there; the record's own member, which a
    record not holding it says nothing against, before a constant it equals); kept when it fills a
    slot and words at least half of all members so."""
    worded = [_item_template(r, args, m) for r, m in zip(real, records, strict=True)]
    if not all(isinstance(w, dict) for w in worded):  # each real record is one member of the model's, whole
        whole = worded[0]
        alike = isinstance(whole, str) and whole.startswith("{item") and all(w == whole for w in worded)
        return whole if alike else None
    item: JSON = {}
    right = total = 0
    for key in dict.fromkeys(k for r in real for k in r):
        options = list({canonical(w.get(key)): w.get(key) for w in worded if key in w}.values())
        if not options:  # no record's wording kept this member as a member: no template
            return None
        scored = [(sum(_fits(o, key, args, m, r) for r, m in zip(real, records, strict=True)), o)
                  for o in options]  # fmt: skip
        # the first of equals, a member of the record before a constant
        hits, item[key] = max(scored, key=lambda x: (x[0], x[1] == f"{{item.{key}}}"))
        right, total = right + hits, total + len(real)
    return item if "{item" in canonical(item) and right * 2 >= total else None


def _fits(option: Any, key: str, args: JSON, record: JSON, real: JSON) -> bool:
    """Whether ``option`` words member ``key`` of ``real`` from ``record``; the record's own member
    fits a record that does not hold it (nothing says otherwise)."""
    if option == f"{{item.{key}}}" and key not in record:
        return True
    return bool(_worded(option, args, record) == real.get(key, _ABSENT))


def _held_each(real: list[Any], args: JSON, state: dict[str, list[JSON]], name: str | None) -> JSON | None:
    """A list of records the real side answered that are records the state holds of one entity —
    each naming one record (a value no other record of it holds) —: all of them, or those whose
    field is one value (the list's own name, as a board groups by status; an argument; a value
    the listed records share and no other holds), as written or newest first. ``{"$each":
    "state.ENTITY", "where": {FIELD: VALUE}, "order": "newest", "item": T}``."""
    if not real or not all(isinstance(r, dict) for r in real):
        return None
    for entity, rows in state.items():
        own = _own_words(rows)
        picked = [_named(r, own) for r in real]
        if None in picked or len(set(picked)) != len(picked):
            continue
        where = _selection(rows, {i for i in picked if i is not None}, name, args)
        if where is None:
            continue
        kept = [i for i, row in enumerate(rows) if all(token(row.get(k)) == token(v) for k, v in where.items())]
        if picked not in (kept, kept[::-1]):
            continue
        item = _item(real, args, [rows[i] for i in picked if i is not None])
        if item is None:
            continue
        each: JSON = {EACH: f"state.{entity}"}
        if where:
            each["where"] = {k: _slot_of(v, args) for k, v in where.items()}
        if len(picked) > 1 and picked != kept:
            each["order"] = NEWEST
        return {**each, "item": item}
    return None


def _own_words(rows: list[JSON]) -> list[set[str]]:
    """Per record, the values it holds at a place where no other record holds the same value."""
    held = [{(path, _word(v)) for path, v in leaves(r)} for r in rows]
    seen = Counter(pv for h in held for pv in h)
    return [{word for path, word in h if seen[(path, word)] == 1} for h in held]


def _named(real: JSON, own: list[set[str]]) -> int | None:
    """The place of the one record that ``real`` names — holds a value of it no other record holds
    (``own``: :func:`_own_words`) —, else ``None``."""
    held = _words(real)
    named = [i for i, words in enumerate(own) if words & held]
    return named[0] if len(named) == 1 else None


def _selection(rows: list[JSON], picked: set[int], name: str | None, args: JSON) -> JSON | None:
    """Which of ``rows`` a list holds, as field values every picked row has and no other row has:
    the list's own ``name`` first, none where it holds them all, then an argument's value, then a
    value at least two picked rows share (a field of fewer distinct values first); ``None``: none."""
    fields = [k for k in dict.fromkeys(k for i in picked for k in rows[i])
              if all(not isinstance(rows[i].get(k), (dict, list)) for i in picked)]  # fmt: skip

    def selects(k: str, value: Any) -> bool:
        return all((token(row.get(k)) == token(value)) == (i in picked) for i, row in enumerate(rows))

    if name is not None:
        for k in fields:
            if selects(k, name):
                return {k: name}
    if len(picked) == len(rows):
        return {}
    shared = [(k, rows[next(iter(picked))].get(k)) for k in fields
              if len({token(rows[i].get(k)) for i in picked}) == 1]  # fmt: skip
    given = {_word(v) for _, v in leaves(args)}
    for k, value in shared:
        if value is not None and _word(value) in given and selects(k, value):
            return {k: value}
    if len(picked) < 2:
        return None
    by_spread = sorted(shared, key=lambda kv: len({token(r.get(kv[0])) for r in rows}))
    return next(({k: v} for k, v in by_spread if v is not None and selects(k, v)), None)


def _slot_of(value: Any, args: JSON) -> Any:
    """``value`` as the argument slot that gave it, else itself."""
    return next((f"{{arg.{path}}}" for path, v in leaves(args) if _word(v) == _word(value)), value)


def _words(value: Any) -> set[str]:
    """The values ``value`` holds, as words."""
    return {_word(v) for _, v in leaves(value)}


def _worded(template: Any, args: JSON, record: JSON) -> Any:
    """``template`` filled for one record (``None`` where it cannot be)."""
    filled = fill({EACH: "out", "item": template}, args, [record])
    return filled[0] if filled else None


def _item_template(real: JSON | str, args: JSON, record: JSON) -> Any:
    """``real`` worded for one ``record`` of a list: ``{item.PATH}`` slots, arguments first; a member
    the record holds under the same name and equal, whatever it holds, is that member; a text (a
    block of a text list) has its words slotted alone."""
    slots: dict[str, str] = {}
    for path, value in leaves(args):
        slots.setdefault(_word(value), f"{{arg.{path}}}")
    for path, value in leaves(record):
        slots.setdefault(_word(value), f"{{item.{path}}}")
    _add_formatted(slots, [("arg", p, v) for p, v in leaves(args)] + [("item", p, v) for p, v in leaves(record)])
    if isinstance(real, str):
        return _templated(real, _Sources(slots))
    own: JSON = own_where_volatile(real, record)
    named = {k: f"{{item.{k}}}" for k, v in own.items() if k in record and record[k] == v and k.isidentifier()}
    worded = _templated({k: v for k, v in own.items() if k not in named},
                        _Sources(slots, _parts(record, "item"), {}, _record_lists(record, "item"), args))  # fmt: skip
    # a member the record holds under the same name, equal (null, empty or not): that member
    return {k: named.get(k, worded.get(k)) for k in own} if isinstance(worded, dict) else worded


def _templated(real: Any, src: _Sources, name: str | None = None, at: str | None = "") -> Any:
    if isinstance(real, (dict, list)):
        whole = next((slot for slot, value in src.wholes.items() if value == real), None)
        if whole is not None:
            return whole
    if isinstance(real, list) and real and (src.lists or src.state):
        each = _each(real, src.args, src.lists) or _counted_each(real, src.state) \
            or _held_each(real, src.args, src.state, name) or _distinct_each(real, src.state)  # fmt: skip
        if each is not None:
            return each
    if at and at in src.places and _alike(src.places[at][0], real):
        return src.places[at][1]
    if isinstance(real, dict):
        return _grouped({k: _templated(v, src, k, _member_path(at, k)) for k, v in real.items()}, real)
    if isinstance(real, list):
        return [_templated(v, src, at=None) for v in real]
    if isinstance(real, bool):
        return src.flags.get(real, real)
    if real is None:
        return src.nulls.get(at, real) if at else real
    if isinstance(real, (int, float)):
        return src.slots.get(str(real), COUNT if real == src.count else real)
    if isinstance(real, str) and "\n" in real and (src.lists or src.state):
        listed = _text_each(real, src)
        if listed is not None:
            return listed
    if not isinstance(real, str) or not src.slots:
        return real
    if real in src.slots:
        return src.slots[real]
    return _whole_replaced(real, src.slots)


def _alike(mine: Any, real: Any) -> bool:
    """The same value, of the same kind (``True`` is not ``1``); an object is never taken whole."""
    return type(mine) is type(real) and mine == real and not isinstance(real, dict)


def _member_path(at: str | None, member: Any) -> str | None:
    """The dotted path of an object's member below ``at`` (``""``: the reply itself; ``None``: inside a
    list, where no path is kept)."""
    if at is None:
        return None
    return f"{at}.{member}" if at else str(member)


def _text_each(real: str, src: _Sources) -> JSON | None:
    """A text listing records a block each (:func:`envfactory.synth.textblocks.blocks`) — those of a
    list the model answered, or those the state holds of one entity (all, or those lacking a field:
    the top-level tasks of a tree), as written or newest first —, every block worded by one template
    (:func:`_block_item`: a status's mark, a piece only some records have):
    ``{"$each": PLACE, "item": T, "join": SEP, "head": H, "tail": Z}``, ``{count}`` in ``H`` and
    ``Z`` where they state how many."""
    options: list[tuple[str, list[JSON], JSON]] = [(place, rows, {}) for place, rows in src.lists.items()]
    options += [(f"state.{entity}", rows[::-1] if newest else rows, {"order": NEWEST} if newest else {})
                for entity, rows in src.state.items() for newest in (False, True)]  # fmt: skip
    options += [(f"state.{entity}", kept, {"where": {name: None}})
                for entity, rows in src.state.items() for name, kept in _lacking(rows)]  # fmt: skip
    # head and tail: no lists inside, nor one record's values (they word every list alike: a number
    # there that one record holds is the list's count or total)
    plain = _Sources({v: k for v, k in src.slots.items() if not k.startswith("{out.[")}, flags=src.flags, args=src.args)
    for place, records, how in itertools.chain(options, _distinct_options(src.state)):
        # a list the model answered holding one record: its block, as a list of one words it
        one = len(records) == 1 and place in src.lists
        found = block_of_one(real, records[0]) if one else blocks(real, records)
        if found is None:
            continue
        pool = src.state.get(place.removeprefix("state."), records) if place.startswith("state.") else records
        item = _block_item([_item_template(b, src.args, r) for b, r in zip(found.items, records, strict=True)],
                           records, pool)  # fmt: skip
        if item is None:
            continue
        ends = [_sums_stated(_count_stated(_templated(end, plain), len(records)), records)
                for end in (found.head, found.tail)]  # fmt: skip
        each: JSON = {EACH: place, "item": item, "join": found.sep, "head": ends[0], "tail": ends[1]}
        return {**each, **how}
    return None


def _lacking(rows: list[JSON]) -> Iterator[tuple[str, list[JSON]]]:
    """For each field some of ``rows`` hold and others lack (or hold as null), the rows lacking it —
    two at least (a list of the tasks that have no parent)."""
    for name in itertools.islice(dict.fromkeys(k for r in rows for k in r), MAX_FIELDS):
        kept = [r for r in rows if r.get(name) is None]
        if 2 <= len(kept) < len(rows):
            yield name, kept


MAX_FIELDS = 12  # fields tried as the one whose absence picks the records a text lists


def _distinct_each(real: list[Any], state: dict[str, list[JSON]]) -> JSON | None:
    """A list of values (two at least) that are the values the state's records hold in one field,
    each once (:func:`_distinct_options`): ``{"$each": "state.ENTITY", "distinct": F, "item": "{item.F}"}``."""
    if len(real) < 2 or not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in real):
        return None
    for place, records, how in _distinct_options(state):
        name = how[DISTINCT]
        if [r[name] for r in records] == real:
            return {EACH: place, **how, "item": f"{{item.{name}}}"}
    return None


def _counted_each(real: list[Any], state: dict[str, list[JSON]]) -> JSON | None:
    """A list of objects of two members, one the values the state's records hold in one field and
    the other how many records hold each (``[{"feature_area": "ui", "count": 2}]``, a tally by
    group; one group at least, a count no record holds as a field of that name — else the records
    themselves word it): ``{..., "counted": true, "item": {"feature_area": "{item.F}", "count":
    "{item.$count}"}}``."""
    if not real or not all(isinstance(v, dict) and len(v) == 2 for v in real):
        return None
    members = list(real[0])
    if any(list(v) != members for v in real):
        return None
    for place, records, how in _distinct_options(state, least=1, counted=True):
        name, rows = how[DISTINCT], state[place.removeprefix("state.")]
        for value, count in itertools.permutations(members):
            if any(count in r for r in rows) or not all(isinstance(v[count], int) for v in real):
                continue
            if [v[value] for v in real] == [r[name] for r in records] and \
                    [v[count] for v in real] == [r[HOLDING] for r in records]:  # fmt: skip
                item = {value: f"{{item.{name}}}", count: f"{{item.{HOLDING}}}"}
                return {EACH: place, **how, "item": {m: item[m] for m in members}}
    return None


def _distinct_options(state: dict[str, list[JSON]], least: int = 2,
                      counted: bool = False) -> Iterator[tuple[str, list[JSON], JSON]]:  # fmt: skip
    """The values the state's records hold in one field, each once (:func:`distinct`), as a list of
    records to word — the projects or tags records name —, in the order first held, then sorted:
    where ``least`` values at least are held (two: the records themselves are tried first). Made as
    they are tried: the first that words the reply ends the search."""
    how: JSON = {COUNTED: True} if counted else {}
    for entity, rows in state.items():
        for name in dict.fromkeys(k for r in rows for k in r):
            held = distinct(rows, name, counted=counted)
            if len(held) < least:
                continue
            yield f"state.{entity}", held, {DISTINCT: name, **how}
            yield f"state.{entity}", distinct(rows, name, sort=True, counted=counted), \
                {DISTINCT: name, "order": SORTED, **how}  # fmt: skip


def _block_item(worded: list[Any], records: list[JSON], pool: list[JSON]) -> Any:
    """The one wording of every block, or one per value of a field several records share
    (``{"$case": "{item.status}", "cases": {...}, "value": T}``, the most common as ``T``), or one
    made of pieces where the blocks differ in places, each place worded by a field of its own
    (:func:`_pieced`); ``None`` where no wording fills a record's slot or no field tells the
    wordings apart. ``pool``: the records of that kind the state holds, which tell a field whose
    values recur (a status) from one naming each record."""
    if not all(isinstance(w, str) and "{item" in w for w in worded):
        return None
    if len(set(worded)) == 1:
        return worded[0]
    usual = Counter(worded).most_common(1)[0][0]
    for name in records[0]:
        if any(isinstance(r.get(name), (dict, list)) for r in records):
            continue
        values = [token(r.get(name)) for r in records]
        if len(set(values)) == len(values):  # a field naming each record memorizes it
            continue
        by_value = _by_value(values, worded)
        if by_value is not None:
            return {CASE: f"{{item.{name}}}", "cases": by_value, "value": usual}
    return _pieced(worded, records, pool, usual)


def _by_value(values: list[str], words: list[str]) -> dict[str, str] | None:
    """Each value with the one wording every record holding it has, else ``None``."""
    by_value: dict[str, str] = {}
    return by_value if all(by_value.setdefault(v, w) == w for v, w in zip(values, words, strict=True)) else None


_PIECE = re.compile(r"\{[^{}]*\}|\w+|\s+|[^\w\s]")  # a slot, a word, a run of spaces, or one mark


def _pieced(worded: list[str], records: list[JSON], pool: list[JSON], usual: str) -> JSON | None:
    """Wordings alike but in a few places (``~ {item.id}  {item.title} (...)`` beside ``. {item.id}
    {item.title}``): ``{"$parts": [...]}``, the places where they differ (aligned on the most common
    wording) each a ``$case`` on one field of the record — the value of a field whose values recur
    among ``pool`` (a status's mark), or whether a field holds anything (`` (...)`` where a task has a
    description) —, the rest as it stands; ``None`` where a place has no such field, or the pieces
    do not word every record as it is."""
    base = _PIECE.findall(usual)
    texts = [_PIECE.findall(w) for w in worded]
    aligned = [SequenceMatcher(None, base, t, autojunk=False).get_opcodes() for t in texts]
    places = _places([(i1, i2) for ops in aligned for tag, i1, i2, _, _ in ops if tag != "equal"])
    if not places or len(places) > MAX_PLACES:
        return None
    parts: list[Any] = []
    at = 0
    for start, end in places:
        parts.append("".join(base[at:start]))
        pieces = ["".join(t[_aligned_at(ops, start, len(t)):_aligned_at(ops, end, len(t))])
                  for t, ops in zip(texts, aligned, strict=True)]  # fmt: skip
        told = _told(pieces, records, pool)
        if told is None:
            return None
        parts.append(told)
        at = end
    parts.append("".join(base[at:]))
    item = {PARTS: [p for p in parts if p != ""]}
    if any(_worded(item, {}, r) != _worded(w, {}, r) for r, w in zip(records, worded, strict=True)):
        return None
    return item


MAX_PLACES = 4  # places two blocks of one list may differ in


def _places(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans (of tokens) that overlap or touch, merged, in order."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _aligned_at(ops: Sequence[tuple[str, int, int, int, int]], at: int, length: int) -> int:
    """Where position ``at`` of the aligned-on wording stands in another (``ops``: how they align),
    at the edge of a place: inside a stretch both share, else at the start or the end."""
    for tag, i1, i2, j1, _ in ops:
        if tag == "equal" and i1 <= at <= i2:
            return j1 + at - i1
    return 0 if at == 0 else length


def _told(pieces: list[str], records: list[JSON], pool: list[JSON]) -> JSON | None:
    """What words one place of each record's block: a piece there only where a field holds
    something (tried first where the place is empty in some blocks and the same in the others),
    or the value of a field whose values recur among ``pool`` (fields with fewer values first)."""
    names = [n for n in dict.fromkeys(k for r in records for k in r)
             if not any(isinstance(r.get(n), (dict, list)) for r in records)]  # fmt: skip
    shown = {p for p in pieces if p}
    cases = [n for n in sorted(names, key=lambda n: len({token(r.get(n)) for r in pool})) if _recurs(n, pool)]
    if len(shown) == 1 and "" in pieces:
        [piece] = shown
        for name in names:
            held = [_holds(r.get(name)) for r in records]
            if held == [bool(p) for p in pieces]:
                absent = {token(r.get(name)): "" for r in records if not _holds(r.get(name))}
                return {CASE: f"{{item.{name}}}", "cases": {token(None): "", **absent}, "value": piece}
    for name in cases:
        values = [token(r.get(name)) for r in records]
        by_value = _by_value(values, pieces) if len(set(values)) > 1 else None
        if by_value is not None:
            return {CASE: f"{{item.{name}}}", "cases": by_value, "value": Counter(pieces).most_common(1)[0][0]}
    return None


def _recurs(name: str, pool: list[JSON]) -> bool:
    """Whether two records of ``pool`` hold one value in ``name`` (a status, not a name)."""
    values = [token(r.get(name)) for r in pool if r.get(name) is not None]
    return len(set(values)) < len(values)


def _holds(value: Any) -> bool:
    return value not in (None, "", [], {}, False)


def _sums_stated(text: Any, records: list[JSON]) -> Any:
    """``text`` with the total of a number field over ``records`` standing alone in it — as it is or as
    a text writes a number otherwise (``NUMBER_FORMATS``) — as ``{sum.FIELD}``: ``Total: ₹{sum.amount:.0f}``.
    Never of a field naming records (``id``, ``task_id``): their total counts nothing."""
    if not isinstance(text, str) or not records:
        return text
    fields = [k for k in records[0] if isinstance(k, str) and k.isidentifier() and tokens(k)[-1:] != ("id",)]
    sums: dict[str, str] = {}
    for name in fields:
        value = total(records, name)
        if value is not None:
            sums.setdefault(_word(value), f"{{sum.{name}}}")
            _add_formatted(sums, [("sum", name, value)])
    return _whole_replaced(text, sums, slotted=True) if sums else text


def _whole_replaced(text: str, slots: dict[str, str], *, slotted: bool = False) -> str:
    """``text`` with each value of ``slots`` standing whole in it — a word not begun nor continued,
    a number neither (``1,124`` and ``5.5`` hold no ``124`` nor ``5``) — written as its slot, in one
    pass, longest first (a slot is never rewritten). ``slotted``: the text holds slots already,
    whose insides (``{out.[0].amount:.0f}``) are no words."""
    alternatives = "|".join(re.escape(v) for v in sorted(slots, key=len, reverse=True))
    before, after = (r"[\w.\[{-]", r"[\w\]}-]") if slotted else (r"[\w-]", r"[\w-]")
    pattern = re.compile(rf"(?<!{before})(?<!\d[,.])({alternatives})(?!{after})(?![,.]\d)")
    text = pattern.sub(lambda m: slots[m.group(1)], text)
    # a number of two digits or more glued to a unit's letters before it (``Rp587``, ``USD120``)
    numbers = "|".join(
        re.escape(v) for v in sorted(slots, key=len, reverse=True) if _NUMBER.fullmatch(v) and len(v) >= 2
    )
    if not numbers:
        return text
    glued = re.compile(rf"(?<![\w.{{-])([A-Za-z]{{1,3}})({numbers})(?![\w-])(?![,.]\d)")
    return glued.sub(lambda m: m.group(1) + slots[m.group(2)], text)


_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")  # a number as a text writes it


def _count_stated(text: Any, count: int) -> Any:
    """``text`` with the number ``count`` standing alone in it as ``{count}``."""
    if not isinstance(text, str):
        return text
    return re.sub(rf"(?<![\w.\[-]){count}(?![\w.\]-])", COUNT, text)


def _grouped(template: JSON, real: JSON) -> JSON:
    """An object whose lists group the state's records by a field, each under that field's value
    (``{"todo": [...], "done": []}``): an empty list beside them holds the group its own name names."""
    group = next((v for k, v in template.items() if isinstance(v, dict) and isinstance(v.get(EACH), str)
                  and v[EACH].startswith("state.") and list((v.get("where") or {}).values()) == [k]), None)  # fmt: skip
    if group is None:
        return template
    [field_] = group["where"]
    return {k: {**group, "where": {field_: k}} if real.get(k) == [] else v for k, v in template.items()}


def flagged_members(templates: list[Any], args: list[JSON]) -> JSON | None:
    """One wording of several replies' wordings (``templates``, each of the call made with ``args``)
    where objects differ in which members they hold: a member some hold and others not is there
    when a flag argument is true — ``{"$when": "{arg.include_done}", "value": T}`` —, the flag
    whose value tells exactly which, else when an argument was given — ``{"$when": "{arg.stack}",
    "given": true, "value": T}`` —, the one given exactly there; a member all hold takes its most
    common wording (objects merged member by member). ``None`` where they are not all objects or no
    argument tells a member's presence."""
    merged = _merged(templates, args)
    return merged if isinstance(merged, dict) else None


def _merged(templates: list[Any], args: list[JSON]) -> Any:
    if not templates or not all(isinstance(t, dict) for t in templates):
        return orjson.loads(Counter(canonical(t) for t in templates).most_common(1)[0][0]) if templates else _ABSENT
    out: JSON = {}
    ordered = [t["order"] for t in templates if EACH in t and "order" in t]
    if ordered:  # a list of one record says nothing of the order: those of more say it
        out["order"] = Counter(ordered).most_common(1)[0][0]
    for key in dict.fromkeys(k for t in templates for k in t if k not in out):
        having = [i for i, t in enumerate(templates) if key in t]
        value = _merged([templates[i][key] for i in having], [args[i] for i in having])
        if value is _ABSENT:
            return _ABSENT
        if len(having) == len(templates):
            out[key] = value
            continue
        names = dict.fromkeys(n for a in args for n in a)
        flag = next((n for n in names if all((a.get(n) is True) == (i in having) for i, a in enumerate(args))), None)
        if flag is not None:
            out[key] = {WHEN: f"{{arg.{flag}}}", "value": value}
            continue
        # a member there exactly where an argument was given: the filter a reply echoes when given
        given = next((n for n in names if all((a.get(n) is not None) == (i in having) for i, a in enumerate(args))),
                     None)  # fmt: skip
        if given is None:
            return _ABSENT
        out[key] = {WHEN: f"{{arg.{given}}}", "given": True, "value": value}
    return out


def _word(value: Any) -> str:
    return value if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)


def united_cases(wordings: list[Any]) -> Any:
    """One wording of several replies' wordings alike but for what their ``$case`` places word each
    value by (one list showed a pending and an in-progress task, another a done one): the most
    common such shape with the cases of all united, each value worded as most of them word it, the
    most common wording as the rest. ``None`` where no two wordings differ only so."""
    groups: dict[str, list[Any]] = {}
    for wording in wordings:
        groups.setdefault(canonical(_bare(wording)), []).append(wording)
    group = max(groups.values(), key=len)
    if len({canonical(w) for w in group}) < 2:
        return None
    return _united(group)


def _bare(template: Any) -> Any:
    """``template`` without what its ``$case`` places word their values by."""
    if isinstance(template, dict) and isinstance(template.get(CASE), str):
        return {CASE: template[CASE]}
    if isinstance(template, dict):
        return {k: _bare(v) for k, v in template.items()}
    if isinstance(template, list):
        return [_bare(v) for v in template]
    return template


def _united(alike: list[Any]) -> Any:
    first = alike[0]
    if isinstance(first, dict) and isinstance(first.get(CASE), str):
        votes: dict[str, Counter[str]] = {}
        for wording in alike:
            for value, worded in (wording.get("cases") or {}).items():
                votes.setdefault(value, Counter())[canonical(worded)] += 1
        usual = Counter(canonical(w.get("value")) for w in alike).most_common(1)[0][0]
        cases = {value: orjson.loads(c.most_common(1)[0][0]) for value, c in votes.items()}
        return {CASE: first[CASE], "cases": cases, "value": orjson.loads(usual)}
    if isinstance(first, dict):
        return {k: _united([w[k] for w in alike]) for k in first}
    if isinstance(first, list):
        return [_united([w[i] for w in alike]) for i in range(len(first))]
    return first


def united_lines(wordings: list[Any]) -> str | None:
    """One text wording of texts worded alike but for lines some hold and others do not (``parent:
    {out.parent}`` of a subtask, ``Due: {out.due}`` of a task given a date): the most common wording
    (first) with each line another holds where it stands there, where that line holds a slot — it
    is left out where the slot does not fill (:func:`envfactory.runtime.answers.fill`). ``None``
    where no such line is added."""
    texts = [w for w in wordings if isinstance(w, str)]
    if len(texts) < 2 or "\n" not in texts[0]:
        return None
    union = texts[0].split("\n")
    for other in texts[1:]:
        lines = other.split("\n")
        inserts = [(i1, lines[j1:j2]) for tag, i1, _, j1, j2 in SequenceMatcher(None, union, lines, autojunk=False)
                   .get_opcodes() if tag == "insert" and all(SLOT.search(x) for x in lines[j1:j2])]  # fmt: skip
        for at, added in reversed(inserts):
            union[at:at] = added
    text = "\n".join(union)
    return text if text != texts[0] else None


def leaves(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """Scalar leaves worth a slot: non-empty strings and numbers, by dotted path."""
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in leaves(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value[:20]) for leaf in leaves(v, f"{path}[{i}]")]
    if isinstance(value, bool) or value is None or (isinstance(value, str) and not value.strip()):
        return []
    return [(path, value)] if isinstance(value, (str, int, float)) else []


__all__ = [
    "canonical",
    "declared_defaults",
    "default_sets",
    "envelope",
    "flagged_members",
    "leaves",
    "list_reads",
    "own_where_volatile",
    "record_in",
    "records_in",
    "reply_text",
    "schema_of",
    "steady",
    "template_of",
    "united_cases",
    "united_lines",
    "unmasked",
]

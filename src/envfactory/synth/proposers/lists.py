"""Lists as the real side answers them: flags that include records, filters it honours, reads
that list, its page size."""

from __future__ import annotations

import re
from collections import Counter
from itertools import pairwise
from typing import Any

from envfactory.ir.choice import Answer
from envfactory.ir.effect import Behaviour, FallbackEffect, Filter, FilterOp, ListEffect, Order
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import enum_values, primary_type
from envfactory.ir.state import SINGLETON_KEY, Entity
from envfactory.real.keypool import MINTED, matched_records
from envfactory.runtime.answers import opened_text
from envfactory.runtime.behaviours import ordered
from envfactory.synth.candidates import JSON, PROPOSERS, Candidate, Evidence, Pair
from envfactory.synth.effects import LOWER_WORDS as _LOWER
from envfactory.synth.effects import UPPER_WORDS as _UPPER
from envfactory.synth.proposers.shapes import (
    default_sets,
    envelope,
    list_reads,
    records_in,
    reply_text,
    schema_of,
)
from envfactory.words import tokens


@PROPOSERS.register("include-flags")
def include_flags(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A list's boolean argument that includes records it otherwise leaves out
    (``list_todos(include_completed)``): where the real side listed fewer records than the model
    with the flag off or omitted, each boolean field of the entity is a candidate for what the flag
    lets through; reads and final states decide."""
    out = []
    for tool, pairs, entity, effect in list_reads(spec, evidence):
        behaviour = spec.behaviour(tool)
        props = spec.tools[tool].input_schema.get("properties") or {}
        taken = {f.arg for f in effect.filters}
        flags = [a for a, s in props.items() if isinstance(s, dict) and primary_type(s) == "boolean" and a not in taken]
        fields = [f for f, s in entity.fields.items() if isinstance(s, dict) and primary_type(s) == "boolean"]
        for flag in flags:
            if not any(not p.args.get(flag) and _fewer(p) for p in pairs):
                continue
            for name in fields:
                kept = Filter(arg=flag, field=name, op="unless")
                out.append(Candidate(tool, "include-flags",
                                     f"lists {entity.name} records with {name} set only when {flag}",
                                     _filtered(behaviour, effect, (*effect.filters, kept)),
                                     confirms="with the flag off, records with it set are not listed"))  # fmt: skip
    return out


@PROPOSERS.register("list-filters")
def list_filters(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A list argument the model ignores that the real side honours (``list_tasks(status="open")``):
    where the real side listed fewer records than the model with it given, each field whose values
    the argument matched among the model's rows is a candidate — equal, one of a list field's
    values, or inside a text — and reads decide."""
    out = []
    for tool, pairs, entity, effect in list_reads(spec, evidence):
        behaviour = spec.behaviour(tool)
        used = {f.arg for f in effect.filters} | effect.paging.args
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
                        for op in _bounds(arg, held, p.args[arg]):  # a record the bound would leave out
                            ops[(name, op)] += 1
            for (name, op), _n in ops.most_common(3):
                kept = Filter(arg=arg, field=name, op=op)
                out.append(Candidate(tool, "list-filters", f"lists {entity.name} records whose {name} {op} {arg}",
                                     _filtered(behaviour, effect, (*effect.filters, kept)),
                                     confirms="records that do not match are not listed"))  # fmt: skip
    return out


@PROPOSERS.register("filter-defaults")
def filter_defaults(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A list filter whose argument's declared default the real side applies when it is omitted
    (``list_tasks(status="open")`` lists only open tasks when no status is given): where the real
    side listed fewer records than the model with the argument omitted (or given its declared
    default). Where no default is declared (or an empty one), the value every record it listed so
    holds, over two such calls or more (``project`` omitted: the records of the default project)."""
    out = []
    for tool, pairs, entity, effect in list_reads(spec, evidence):
        behaviour = spec.behaviour(tool)
        props = spec.tools[tool].input_schema.get("properties") or {}
        for i, flt in enumerate(effect.filters):
            declared = (props.get(flt.arg) or {}).get("default")
            if isinstance(declared, str) and declared in NULL_WORDS:  # a docstring's ``None``: no default
                declared = None
            if flt.default is not None or flt.op == "unless":
                continue
            omitted = [p for p in pairs if p.args.get(flt.arg, declared) == declared]
            if not any(_fewer(p) for p in omitted):
                continue
            if not _scalar(declared) or declared == "":  # none said: the value every record it listed holds
                declared = _shared_value(omitted, flt.field or flt.arg)
                if declared is None:
                    continue
            kept = flt.model_copy(update={"default": declared})
            out.append(Candidate(tool, "filter-defaults",
                                 f"lists {entity.name} records whose {flt.field} {flt.op} {declared!r} "
                                 f"when {flt.arg} is omitted",
                                 _filtered(behaviour, effect, (*effect.filters[:i], kept, *effect.filters[i + 1 :])),
                                 confirms="omitted, it lists only records matching its default"))  # fmt: skip
    return out


@PROPOSERS.register("misses")
def misses(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """What a list answers when nothing matches, where the model answers otherwise: the real side
    refused every call on which the model found nothing and answered the others, one record each
    (``get_note(name)``: a look-up, none is ``not_found``; a text answered where the model found one
    record is one record, in prose) — or, whatever it answered, a list as it stands whose nothing
    found is ``not_found`` (``read_sheet(name)`` answering the sheet's rows); or it answered nothing
    found (an empty list, an envelope of none) where the model refused (a search declared to answer
    one record: every match, none too)."""
    out = []
    for tool, pairs, entity, effect in list_reads(spec, evidence):
        behaviour = spec.behaviour(tool)
        empty = [p for p in pairs if p.raw in (None, [])]
        found = [p for p in pairs if isinstance(p.raw, list) and p.raw]
        ones = sum(p.real_ok and (_one_record(p.real) or _one_text(p)) for p in found)
        if effect.finds is None and empty and found and all(not p.real_ok for p in empty) \
                and ones >= len(found) * MOST:  # fmt: skip
            made = effect.model_copy(update={"finds": "row", "every": False})
            answer = behaviour.answer
            if answer is not None and answer.kind == "template":  # worded over the first row: the record
                answer = answer.model_copy(update={"template": _first_row_read(answer.template)})
            out.append(Candidate(tool, "misses", f"finds the {entity.name} it names; none is not_found",
                                 behaviour.model_copy(update={"effect": made, "answer": answer}),
                                 confirms="a call that matches nothing is refused"))  # fmt: skip
        answered = sum(p.real_ok for p in found)
        if effect.finds is None and not effect.none_refused and empty and found and answered >= len(found) * MOST \
                and all(not p.real_ok for p in empty):  # fmt: skip
            made = effect.model_copy(update={"none_refused": True})
            out.append(Candidate(tool, "misses", f"lists every matching {entity.name}; none is not_found",
                                 behaviour.model_copy(update={"effect": made}),
                                 confirms="nothing matching is refused, a match answered"))  # fmt: skip
        nothing = [p for p in empty if not p.model_ok and p.real_ok and not records_in(opened_text(p.real))]
        if nothing and not effect.every and all(p.real_ok for p in empty):
            made = effect.model_copy(update={"finds": None, "every": True})
            listing = behaviour.model_copy(update={"effect": made})
            shaped = envelope(evidence, tool, default_sets(spec, tool))
            if shaped is not None:
                listing = listing.model_copy(update={"answer": Answer(kind="template", template=shaped[0],
                                                                      defaults=shaped[1])})  # fmt: skip
            out.append(Candidate(tool, "misses", f"lists every matching {entity.name}, none too", listing,
                                 confirms="a call that matches nothing answers an empty list"))  # fmt: skip
    return out


def _filtered(behaviour: Behaviour, effect: ListEffect, filters: tuple[Filter, ...]) -> Behaviour:
    """``behaviour`` listing as ``effect`` does, by ``filters``."""
    return behaviour.model_copy(update={"effect": effect.model_copy(update={"filters": filters})})


def _one_record(real: Any) -> bool:
    """Whether a reply is one record: an object, not an envelope of records."""
    opened = opened_text(real)
    return isinstance(opened, dict) and records_in(opened) is None


MOST = 0.9  # a look-up answers one record on this share of the calls that found something, at least


def _one_text(pair: Pair) -> bool:
    """Whether a reply is a text (not JSON) answered where the model found one record: one record,
    in prose."""
    return isinstance(opened_text(pair.real), str) and isinstance(pair.raw, list) and len(pair.raw) == 1


def _first_row_read(template: Any) -> Any:
    """A template worded over a list's first row (``{out.[0].content}``) worded over the record."""
    if isinstance(template, dict):
        return {k: _first_row_read(v) for k, v in template.items()}
    if isinstance(template, list):
        return [_first_row_read(v) for v in template]
    if isinstance(template, str):
        return template.replace("{out.[0].", "{out.").replace("{out.[0]}", "{out}")
    return template


def _listed(p: Pair) -> tuple[int, int] | None:
    """How many records a list call's real reply and the model's rows held, where the model's are a
    list: the records the reply holds — an envelope's one list, empty too —, or, of a text that is
    not JSON ("No matching context found"), the model's rows it names by their key."""
    if not p.real_ok or not isinstance(p.raw, list):
        return None
    real = opened_text(p.real)
    if isinstance(real, dict) and records_in(real) is None:
        lists = [v for v in real.values() if isinstance(v, list)]
        real = lists[0] if len(lists) == 1 else real
    records = records_in(real)
    if records is None and isinstance(real, str):
        named = [r for r in p.raw if isinstance(r, dict) and _names(real, r)]
        return len(named), len(p.raw)
    return None if records is None else (len(records), len(p.raw))


def _names(text: str, row: JSON) -> bool:
    """Whether a text names a row: by a text or number field (its key, its title) as a whole word."""
    return any(
        _scalar(v) and len(str(v)) > 1 and re.search(rf"(?<![\w-]){re.escape(str(v))}(?![\w-])", text) is not None
        for v in row.values()
    )


_RANGED = re.compile(r"^\d{4}-\d\d-\d\d")  # a date, with a time or not: ordered as text


def _bounds(arg: str, held: Any, given: Any) -> list[FilterOp]:
    """The bounds ``given`` sets on a field holding ``held`` that leave ``held`` out: ``lte`` where it
    lies after ``given`` (``createdBefore: 2026-05-01`` beside a record made today), ``gte`` where it
    lies before; a date against a date, a number against a number, and only the side the argument's
    name says where it says one (``before``, ``until``, ``max``; ``after``, ``since``, ``min``)."""
    both = isinstance(held, str) and isinstance(given, str) and bool(_RANGED.match(held) and _RANGED.match(given))
    numbers = all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (held, given))
    if not (both or numbers):
        return []
    words = set(tokens(arg))
    sides: tuple[tuple[tuple[str, ...], FilterOp], ...] = ((_UPPER, "lte"), (_LOWER, "gte"))
    said = [op for bound, op in sides if words & set(bound)]
    left_out = [op for _, op in sides if (held > given if op == "lte" else held < given)]
    return [op for op in left_out if not said or op in said]


def _fewer(p: Pair) -> bool:
    """Whether the real side listed fewer records than the model on this call."""
    n = _listed(p)
    return n is not None and n[0] < n[1]


def _shared_value(pairs: list[Pair], field: str) -> Any:
    """The one non-empty value ``field`` holds in every record the real side listed on ``pairs``,
    over at least two calls that listed records; else ``None``."""
    listed = [records_in(opened_text(p.real)) for p in pairs if p.real_ok]
    held = [r.get(field) for records in listed if records for r in records]
    if sum(bool(records) for records in listed) < 2 or not _scalar(held[0]) or held[0] == "":
        return None
    return held[0] if all(v == held[0] for v in held) else None


NULL_WORDS = frozenset({"None", "null", "nil"})  # a default spelt as the language's nothing


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _fold(value: Any) -> Any:
    return value.casefold() if isinstance(value, str) else value


@PROPOSERS.register("record-reads")
def record_reads(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A read the descriptions could not model (a fallback that writes nothing) whose real replies
    hold records of an entity the model keeps (``context_get`` answering the items ``context_save``
    made, ``filter_by_context(context)`` answering the todos it names): it lists that entity's
    records, filtered by its arguments — one named after a field is equal to it; another filters
    as the records it answered show (equal to a field, one of a list field's values, inside a text)
    —, every match answered, inside the real envelope."""
    out = []
    entities = [e for e in spec.state_schema.entities if e.key != SINGLETON_KEY]
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        if not isinstance(effect, FallbackEffect) or effect.writes:
            continue
        shown = [rows for p in pairs if p.real_ok and (rows := records_in(p.real))]
        if not shown or sum(p.real_ok for p in pairs) < 2:  # one reply with records; others may list none
            continue
        names = {k for rows in shown for r in rows for k in r}
        props = spec.tools[tool].input_schema.get("properties") or {}
        found = envelope(evidence, tool, default_sets(spec, tool))  # the rows inside the real envelope
        for entity in entities:
            if len((set(entity.fields) & names) - {entity.key}) < 2:
                continue
            named = tuple(Filter(arg=a, field=a, op="eq") for a in props if a in entity.fields)
            shaped = tuple(f for a in props if a not in entity.fields and (f := _answered_filter(a, pairs)))
            # the records a fresh copy starts with show only through this read: offered with it
            first = _first_records(entity, [p for p in pairs if p.real_ok and p.fresh and not p.args])
            seeded = _completed(spec.initial_state.get(entity.name) or [], first, entity.key)
            added = {n: schema_of(v) for r in seeded for n, v in r.items() if n not in entity.fields}
            changed = entity.model_copy(update={"fields": {**entity.fields, **added}})
            for filters in dict.fromkeys([named, (*named, *shaped)]):
                made = ListEffect(entity=entity.name, filters=filters, every=True)
                by = ", ".join(f.arg if (f.field, f.op) == (f.arg, "eq") else f"{f.arg} ({f.op} {f.field})"
                               for f in filters)  # fmt: skip
                summary = f"lists {entity.name} records" + (f" by {by}" if filters else "")
                listing = Behaviour(tool=tool, effect=made, prior="plausible", notes=(f"learned: {summary}",))
                if found is not None:
                    answer = Answer(kind="template", template=found[0], defaults=found[1])
                    listing = listing.model_copy(update={"answer": answer})
                # the records a read answers, told by the state where a wording may hold them as a literal
                # (a list every learning reply left empty): the evidence cannot prefer the literal
                out.append(Candidate(tool, "record-reads", summary, listing, explains=True,
                                     confirms="its replies hold the records the model keeps"))  # fmt: skip
                if seeded:
                    out.append(Candidate(tool, "record-reads", f"{summary}, starting as a first read showed",
                                         listing, entities=(changed,), rows={entity.name: seeded}, explains=True,
                                         confirms="a first read answers these records"))  # fmt: skip
    return out


_OPS: tuple[FilterOp, ...] = ("eq", "any", "contains")  # between filters the replies support alike, the first


def _answered_filter(arg: str, pairs: list[Pair]) -> Filter | None:
    """How the records a read answered relate to its argument ``arg``, where every record of every
    reply that answered some did: equal to one field, one of a list field's values, or inside a
    text. The field and test most replies support; ``None`` where no reply shows one."""
    support: Counter[tuple[str, FilterOp]] = Counter()
    for p in pairs:
        rows = records_in(p.real) if p.real_ok and _scalar(p.args.get(arg)) else None
        if not rows:
            continue
        value = _fold(p.args[arg])
        common = set.intersection(*(set(r) for r in rows))
        for name in sorted(common):
            for op in _OPS:
                if all(_passes(r[name], value, op) for r in rows):
                    support[(name, op)] += 1
                    break
    if not support:
        return None
    (name, op), _ = max(support.items(), key=lambda kv: (kv[1], -_OPS.index(kv[0][1])))
    return Filter(arg=arg, field=name, op=op)


def _passes(held: Any, value: Any, op: FilterOp) -> bool:
    if op == "eq":
        return _scalar(held) and _fold(held) == value
    if op == "any":
        return isinstance(held, list) and value in {_fold(x) for x in held if _scalar(x)}
    return isinstance(held, str) and isinstance(value, str) and bool(value) and value in held.casefold()


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
        records = [r for r in records_in(p.real) or () if r.get(entity.key) not in (None, "", [], {})]
        if records:
            return records
    return []


@PROPOSERS.register("page-size")
def page_sizes(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A list that never answered more than ``n`` records, at least twice exactly ``n``, where the
    model listed more: the real side pages its answers by ``n`` when no limit is given."""
    out = []
    for tool, pairs, entity, effect in list_reads(spec, evidence):
        behaviour = spec.behaviour(tool)
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


__all__ = ["filter_defaults", "include_flags", "list_filters", "misses", "page_sizes", "record_reads"]


@PROPOSERS.register("list-order")
def list_orders(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A list whose real replies hold the rows the model found in another order: the keys, one to
    three, that order them as the real side did — a field's values ascending or descending (nulls
    last), or its declared values in their order or the reverse (``high`` before ``med`` before
    ``low``, first where they tell no more) —, each the one that orders most of the neighbours still
    tied and contradicts none, the key last (newest first), until the ties left are in the order
    the rows were written; a reply in prose tells the order by where each row's own values stand in
    it. Nothing where the real order was the model's."""
    out = []
    for tool, pairs, entity, effect in list_reads(spec, evidence):
        if effect.order or effect.keys_as is not None:
            continue
        runs = [run for p in pairs if (run := _listed_run(p, entity)) is not None]
        # where no list in between held two rows both sides list, the final state's reads speak (after every
        # write, the model's order of writing may have drifted from the real side's: never over the others)
        runs = runs or [run for p in evidence.at_end.get(tool, ()) if (run := _listed_run(p, entity)) is not None]
        if not any(real != [str(r.get(entity.key)) for r in mine] for real, mine in runs):
            continue  # the model's order already, wherever the same rows were listed
        keys = _sort_keys(runs, entity)
        if keys:
            said = ", then ".join(f"{k.field} {_said(k)}" for k in keys)
            out.append(Candidate(tool, "list-order", f"lists its rows by {said}"[:120],
                                 spec.behaviour(tool).model_copy(update={"effect": effect.model_copy(
                                     update={"order": keys})}),
                                 confirms="every list holds its rows in this order"))  # fmt: skip
    return out


MAX_KEYS = 3  # sort keys at most


def _listed_run(pair: Pair, entity: Entity) -> tuple[list[str], list[JSON]] | None:
    """The keys of the rows a real reply listed, in its order, beside the model's rows in the order its
    effect found them — each holding the values the real row answered in its own fields or the entity's
    (what the real side sorted by; a field a made record was not given yet, ``priority``) —, where both
    hold the same two rows or more, each once. A reply in prose lists them in the order their own
    values stand in it (:func:`text_order`)."""
    if not (pair.real_ok and pair.model_ok and isinstance(pair.raw, list)):
        return None
    reply = opened_text(pair.real)
    listed = [r for r in records_in(reply) or [] if entity.key in r]
    mine = [r for r in pair.raw if isinstance(r, dict)]
    keys = [str(r.get(entity.key)) for r in mine]
    if not listed and (text := reply_text(reply)) is not None:  # a text listing them: where each stands
        real = text_order(text, mine, entity.key)
        return None if real is None or len(real) < 2 else (real, mine)
    answered = {str(r.get(entity.key)): r for r in listed}
    real = [str(r.get(entity.key)) for r in listed]
    if len(real) < 2 or len(set(real)) != len(real) or sorted(real) != sorted(keys):
        return None
    return real, [{**r, **{f: v for f, v in answered[k].items() if f in r or f in entity.fields}}
                  for k, r in zip(keys, mine, strict=True)]  # fmt: skip


TELLING = 4  # characters, at least, of a value that tells a row's place in a text


def text_order(text: str, rows: list[JSON], key: str) -> list[str] | None:
    """The keys of ``rows`` in the order a text lists them: each row placed where a value of its own
    stands — the first of its texts (``TELLING`` characters or more) that no other row holds and that
    stands in the text once, as a whole word (a description, a title; not ``Food``, which two rows
    share). ``None`` where a row has no such value: the text does not tell its place."""
    held = Counter(v for r in rows for v in {v for v in r.values() if isinstance(v, str)})
    places: list[tuple[int, str]] = []
    for row in rows:
        place = next((m[0].start() for v in row.values()
                      if isinstance(v, str) and len(v.strip()) >= TELLING and held[v] == 1
                      and len(m := list(re.finditer(rf"(?<!\w){re.escape(v)}(?!\w)", text))) == 1), None)  # fmt: skip
        if place is None:
            return None
        places.append((place, str(row.get(key))))
    return [k for _, k in sorted(places)]


def _sort_keys(runs: list[tuple[list[str], list[JSON]]], entity: Entity) -> tuple[Order, ...]:
    """The keys ordering every run's neighbours as the real side did, greedily (see :func:`list_orders`)."""
    pending: list[tuple[JSON, JSON, int, int]] = []  # (before, after, their places in the model's order)
    for real, mine in runs:
        by_key = {str(r.get(entity.key)): (i, r) for i, r in enumerate(mine)}
        for a, b in pairwise(real):
            pending.append((by_key[a][1], by_key[b][1], by_key[a][0], by_key[b][0]))
    # the key last: rows listed newest first are its values descending (``#3``, ``#2``, ``#1``)
    fields = [f for f in _row_fields(runs) if f != entity.key] + [entity.key]
    keys: list[Order] = []
    while pending and len(keys) < MAX_KEYS:
        if keys and all(i < j for _, _, i, j in pending):  # the ties left are in the written order already
            break
        best: tuple[int, Order] | None = None  # the first of those telling most apart wins a tie
        for key in (k for f in fields for k in _orders(f, entity)):
            sides = [_compare(key, a, b) for a, b, _, _ in pending]
            if any(s > 0 for s in sides):
                continue
            told = sum(s < 0 for s in sides)
            if told and (best is None or told > best[0]):
                best = (told, key)
        if best is None:
            break
        keys.append(best[1])
        pending = [(a, b, i, j) for a, b, i, j in pending if _compare(best[1], a, b) == 0]
    if not keys or any(i > j for _, _, i, j in pending):  # ties left must keep the written order
        return ()
    return tuple(keys)


def _row_fields(runs: list[tuple[list[str], list[JSON]]]) -> list[str]:
    """The fields every listed model row holds a scalar (or null) in, in the order rows hold them."""
    rows = [r for _, mine in runs for r in mine]
    seen = list(dict.fromkeys(f for r in rows for f in r))
    return [f for f in seen if all(f in r and (r[f] is None or isinstance(r[f], (str, int, float))) for r in rows)]


def _orders(field: str, entity: Entity) -> list[Order]:
    """The ways a field may order rows: its values ascending or descending, and, where its schema
    declares its values (``low``, ``med``, ``high``), in that order or the reverse, nulls last."""
    out = [Order(field=field), Order(field=field, descending=True)]
    declared = [v for v in enum_values(entity.fields.get(field)) if isinstance(v, (str, int, float))]
    if len(declared) >= 2:  # first: what a person declares in order is sorted so where values tell no more
        out = [Order(field=field, ranks=tuple(declared)), Order(field=field, ranks=tuple(reversed(declared))), *out]
    return out


def _compare(key: Order, a: JSON, b: JSON) -> int:
    """-1 where ``key`` lists ``a`` first, 1 where ``b``, 0 on a tie."""
    if a.get(key.field) == b.get(key.field):
        return 0
    first = ordered([a, b], (key,))[0]
    return -1 if first is a else 1


def _said(key: Order) -> str:
    if key.ranks:
        return "in the order " + "/".join(map(str, key.ranks))
    return "descending" if key.descending else "ascending"

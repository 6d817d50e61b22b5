"""The records the real thing starts with, as fresh reads show them."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import orjson

from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import enum_values, primary_type
from envfactory.ir.state import Entity
from envfactory.real.keypool import MINTED, matched_records
from envfactory.synth.candidates import JSON, PROPOSERS, Candidate, Evidence
from envfactory.synth.naming import flat
from envfactory.synth.proposers.shapes import list_reads, records_in, reply_text, schema_of


@PROPOSERS.register("start-rows")
def start_rows(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """The records the real thing starts with, as it answers them: a list read before any write of
    its sequence shows the starting records, matched to the model's by what neither side minted (a title,
    a name); the fields they hold that the model's records lack or hold otherwise (a null included)
    are added to its starting records (``completed: false`` where the model knew nothing). Where fresh
    reads disagree on a value, it is a stamp: the first is kept, and compared by its presence."""
    out = []
    for tool, pairs, entity, _ in list_reads(spec, evidence):
        mine = {str(r.get(entity.key)): r for r in spec.initial_state.get(entity.name, [])}
        learned: dict[str, JSON] = {}
        for p in pairs:
            real_rows = records_in(p.real) if p.real_ok and p.fresh else None
            if not isinstance(p.raw, list):
                continue
            rows = [r for r in p.raw if isinstance(r, dict)]
            if real_rows is not None:
                matched = _matched(real_rows, rows)
            else:  # a text about the one record the model found: its labelled lines ("status: done")
                labelled = labelled_record(p.real, entity) if p.real_ok and p.fresh and len(rows) == 1 else None
                matched = [(labelled, rows[0])] if labelled else []
            for real, model in matched:
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
        added = {n: schema_of(v) for fields in learned.values() for n, v in fields.items() if n not in entity.fields}
        changed = entity.model_copy(update={"fields": {**entity.fields, **added}})
        rows = [{**row, **learned.get(str(row.get(entity.key)), {})} for row in spec.initial_state[entity.name]]
        names = sorted({n for fields in learned.values() for n in fields})
        out.append(Candidate(tool, "start-rows", f"{entity.name} records start holding {', '.join(names)}"[:120],
                             spec.behaviour(tool), entities=(changed,), rows={entity.name: rows},
                             confirms="a first read answers the starting records so", holds=True))  # fmt: skip
    return out


@PROPOSERS.register("start-records")
def start_records(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """Records the real thing starts with that the model does not hold at all (reference data: a
    server seeded with contacts and tasks): every record a list read before any write of its
    sequence answered, by the key the entity is known by, with the values the first such read
    showed (a value fresh reads disagree on is a stamp, compared by its presence, as in
    ``start-rows``). The model starts holding them, under the real keys, so later calls name them
    as the real side does. A correction of what the model holds (``holds``): taken on a tie, since
    a memorized wording of the list hides it until one from the state is chosen."""
    out = []
    for tool, pairs, entity, _ in list_reads(spec, evidence):
        held = [r for r in spec.initial_state.get(entity.name, []) if isinstance(r, dict)]
        named = UniqueTexts(held)
        found: dict[str, JSON] = {}
        for p in pairs:
            real_rows = records_in(p.real) if p.real_ok and p.fresh else None
            for record in real_rows or ():
                if not isinstance(record, dict) or record.get(entity.key) in (None, "", [], {}):
                    continue
                if matched_records([record], held) or named.match(record) is not None:  # the model holds it already
                    continue
                key = str(record[entity.key])
                seen = found.setdefault(key, {})
                for name, value in record.items():
                    seen.setdefault(name, value)  # fresh reads that disagree: a stamp, held by its presence
        # the same record under a key each fresh copy minted anew (a random id) is no reference data:
        # the model has it already, from the setup calls, under a key of its own
        keys_of: dict[bytes, set[str]] = {}
        for key, record in found.items():
            keys_of.setdefault(_signature(record), set()).add(key)
        found = {k: r for k, r in found.items() if len(keys_of[sig := _signature(r)]) == 1 or sig == b"{}"}
        if not found:
            continue
        added = {n: schema_of(v) for r in found.values() for n, v in r.items() if n not in entity.fields}
        changed = entity.model_copy(update={"fields": {**entity.fields, **added}})
        rows = [*spec.initial_state.get(entity.name, []), *found.values()]
        summary = f"{entity.name} starts with {len(found)} records a first read showed"
        out.append(Candidate(tool, "start-records", summary, spec.behaviour(tool), entities=(changed,),
                             rows={entity.name: rows}, holds=True,
                             confirms="a first read answers these records"))  # fmt: skip
    return out


def labelled_record(real: Any, entity: Entity) -> JSON | None:
    """What a text about one record says of the fields ``entity`` has, on lines of their own
    labelled by their names (``status: in-progress``, ``- Due date: 2025-01-02``), each value as its
    field types it (a number, a flag); the key aside. ``None`` where it says nothing so. The text
    is the reply, or the one member of a reply that is an object."""
    text = reply_text(real)
    if text is None or "\n" not in text:
        return None
    names = {flat(name): name for name in entity.fields if name != entity.key}
    found: JSON = {}
    for line in text.split("\n"):
        m = _LABELLED.match(line)
        name = names.get(flat(m.group(1))) if m else None
        if m is None or name is None or name in found:
            continue
        value = _typed(m.group(2), entity.fields[name])
        if value is not None:
            found[name] = value
    return found or None


_LABELLED = re.compile(r"^\s*(?:[-*]\s+)?\**([A-Za-z][\w -]{0,40}?)\**\s*:\s+(\S.*?)\s*$")


def _typed(text: str, schema: JSON) -> Any:
    """``text`` as the field's schema types it; ``None`` where it is not such a value."""
    kind = primary_type(schema)
    if kind == "integer":
        return int(text) if re.fullmatch(r"-?\d+", text) else None
    if kind == "number":
        return float(text) if re.fullmatch(r"-?\d+(?:\.\d+)?", text) else None
    if kind == "boolean":
        return {"true": True, "false": False}.get(text.lower())
    if kind in ("array", "object"):
        return None
    values = enum_values(schema)
    return text if not values or text in values else None


def _matched(real: list[JSON], model: list[JSON]) -> list[tuple[JSON, JSON]]:
    """Real records beside the model's they are: agreeing on every text both hold, else holding a text
    only that one of the model's holds (its title, where the model left its status empty)."""
    pairs = matched_records(real, model)
    taken, named = {id(a) for a, _ in pairs} | {id(b) for _, b in pairs}, UniqueTexts(model)
    for record in real:
        row = named.match(record) if id(record) not in taken and isinstance(record, dict) else None
        if row is not None and id(row) not in taken:
            pairs.append((record, row))
            taken |= {id(record), id(row)}
    return pairs


class UniqueTexts:
    """The model's records by the texts only one of them holds (a title; ids and tokens aside): a real
    record holding such a text is that record, though it holds a status the model left empty."""

    def __init__(self, rows: list[JSON]) -> None:
        self.rows = rows
        self.held = Counter(pair for r in rows for pair in _plain_texts(r))

    def match(self, real: JSON) -> JSON | None:
        """The one record a text of which only it holds ``real`` holds, and whose other such texts
        ``real`` does not hold otherwise (``None``: none, or several)."""
        hits = []
        for row in self.rows:
            own = [(k, v) for k, v in _plain_texts(row) if self.held[(k, v)] == 1]
            if any(real.get(k) == v for k, v in own) and not any(
                isinstance(real.get(k), str) and real[k] != v for k, v in own
            ):
                hits.append(row)
        return hits[0] if len(hits) == 1 else None


def _plain_texts(record: JSON) -> list[tuple[str, str]]:
    """A record's texts that name it: not what a side mints (ids, tokens), nor a stamp (a text
    mostly of digits, ``2026-12-04T16:25:56+00:00``, which each copy answers otherwise)."""
    return [(k, v) for k, v in record.items() if isinstance(v, str) and v and not k.endswith(MINTED)
            and sum(c.isdigit() for c in v) * 2 < len(v)]  # fmt: skip


def _signature(record: JSON) -> bytes:
    """What a record says beside what a side mints (its ids, tokens) and its stamps (the numbers in it)."""
    texts = {k: v for k, v in record.items() if isinstance(k, str) and not k.endswith(MINTED) and isinstance(v, str)
             and not any(c.isdigit() for c in v)}  # fmt: skip
    return orjson.dumps(texts, option=orjson.OPT_SORT_KEYS)


__all__ = ["UniqueTexts", "labelled_record", "start_records", "start_rows"]

"""What a create makes: the real side's key counter (from one; after the highest held), the values
every new record starts with, the arguments it does not store, the fields the clock stamps, the fields
a record composes from its others, and the lists it keeps sorted."""

from __future__ import annotations

import re
from typing import Any

import orjson

from envfactory.ir.derived import Derivation, infer
from envfactory.ir.effect import CreateEffect, ListEffect, Split, UpdateEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import SINGLETON_KEY, Entity
from envfactory.real.keypool import MINTED
from envfactory.runtime.answers import opened_text
from envfactory.runtime.behaviours import split_text
from envfactory.synth.candidates import JSON, PROPOSERS, Candidate, Evidence, Pair
from envfactory.synth.proposers.shapes import leaves, list_reads, objects_in, record_in, records_in, schema_of
from envfactory.synth.proposers.starts import UniqueTexts
from envfactory.values import clock_stamp


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


@PROPOSERS.register("highest-keys")
def highest_keys(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A create of integer keys whose real reply, where the last record was deleted before it, carries
    the key one past the highest the model still held and not the counter's (``ID: 1`` again after
    deleting task 1; SQLite's rowid): keys follow the highest held. Proposed where such a create said
    so and none said the counter's key instead."""
    out = []
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if not isinstance(effect, CreateEffect) or effect.entity not in spec.state_schema:
            continue
        entity = spec.state_schema[effect.entity]
        if entity.key_type != "integer" or entity.keys_after_highest:
            continue
        votes = [vote for p in pairs if p.real_ok and p.model_ok and (vote := _highest_said(p, entity)) is not None]
        if not votes or not all(votes):
            continue
        changed = entity.model_copy(update={"keys_after_highest": True})
        said = f"{entity.name} keys follow the highest held (a deleted last key again)"
        out.append(Candidate(tool, "highest-keys", said, spec.behaviour(tool), entities=(changed,),
                             confirms="a create after deleting the last record answers its key again"))  # fmt: skip
    return out


def _highest_said(pair: Pair, entity: Entity) -> bool | None:
    """Whether a create's real reply carries the key one past the highest the model held before it
    (True) or the counter's key the model minted (False), where the two differ; None where they
    agree or the reply says neither."""
    made = pair.raw.get(entity.key) if isinstance(pair.raw, dict) else None
    if not isinstance(made, int) or isinstance(made, bool):
        return None
    held = [r.get(entity.key) for r in pair.state.get(entity.name, ())]
    highest = max((k for k in held if isinstance(k, int) and not isinstance(k, bool) and k != made), default=0) + 1
    if highest == made:
        return None
    said = _numbers(pair.answered)
    if (highest in said) == (made in said):
        return None
    return highest in said


def _numbers(reply: Any) -> set[int]:
    """The whole numbers a reply states: integer members, digit texts, numbers standing alone in a text."""
    found = {int(v) for _p, v in leaves(reply) if isinstance(v, int) and not isinstance(v, bool)}
    found |= {int(v) for _p, v in leaves(reply) if isinstance(v, str) and v.isdigit()}
    if isinstance(reply, str):
        found |= {int(m) for m in re.findall(r"(?<![\w.-])\d+(?![\w.-])", reply)}
    return found


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
        # beside the record the model made, not a learned wording of it (which may state the value)
        records = [(r, m, p.args) for p in pairs if p.real_ok and p.model_ok
                   for r, m in [(record_in(p.real, p.out), p.out)]
                   if r is not None and _says_more(r, entity)]  # fmt: skip
        # a create answering no record ("Saved: db_choice"), or its id alone: the lists after it show it
        if len(records) < 2:  # what the model's row holds from an argument, an argument gave it
            records += [(r, m, {a: m[f] for a, f in effect.args.items() if m.get(f) is not None})
                        for r, m in read_back(spec, entity, evidence)]  # fmt: skip
        if len(records) < 2:
            continue
        from_args = {field: arg for arg, field in effect.args.items()}
        constant: JSON = {}
        # in the order the first real record holds them: the values learned, and so the file saved, the same every run
        for name in [k for k in records[0][0] if k != entity.key and all(k in r for r, _, _ in records)]:
            # the value a record holds when no argument gave it
            left = [(r[name], m) for r, m, a in records if from_args.get(name) not in a]
            values = [v for v, _ in left]
            mine = [m[name] if isinstance(m, dict) and name in m else _ABSENT for _, m in left]  # null is a value
            if len(left) < 2 or clock_stamp(values[0]):  # a clock's stamp is no value records start with
                continue
            if all(v == values[0] for v in values) and any(v != values[0] for v in mine):
                constant[name] = values[0]
        if not constant:
            continue
        fields = {**entity.fields, **{f: schema_of(v) for f, v in constant.items() if f not in entity.fields}}
        changed = entity.model_copy(update={"fields": fields})
        behaviour = spec.behaviour(tool)
        made = effect.model_copy(update={"defaults": {**effect.defaults, **constant}})
        named = ", ".join(f"{k}={orjson.dumps(v).decode()}" for k, v in sorted(constant.items()))
        out.append(Candidate(tool, "record-fields", f"{entity.name} records start with {named}"[:120],
                             behaviour.model_copy(update={"effect": made}), entities=(changed,),
                             confirms="every created record holds these values", holds=True))  # fmt: skip
    return out


@PROPOSERS.register("ignored-args")
def ignored_args(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A create argument whose values the real records never hold: every record read back holds one
    value in the field it fills, also where the argument gave another, twice at least (``status:
    "completed"`` given, ``"active"`` held): the create does not store it, and every record starts
    with that value."""
    out = []
    for tool in evidence.pairs:
        effect = spec.behaviour(tool).effect
        if not isinstance(effect, CreateEffect) or effect.entity not in spec.state_schema:
            continue
        entity = spec.state_schema[effect.entity]
        # what the model's row holds from an argument, an argument gave it
        records = [(r, {a: m[f] for a, f in effect.args.items() if m.get(f) is not None})
                   for r, m in read_back(spec, entity, evidence)]  # fmt: skip
        ignored: JSON = {}
        for arg, name in effect.args.items():
            held = [r.get(name, _ABSENT) for r, _ in records]
            given = [(a[arg], r.get(name, _ABSENT)) for r, a in records if arg in a]
            if not held or held[0] is _ABSENT or any(h != held[0] for h in held):
                continue
            if sum(1 for value, _ in given if value != held[0]) >= 2:
                ignored[arg] = held[0]
        if not ignored:
            continue
        made = effect.model_copy(update={
            "args": {a: f for a, f in effect.args.items() if a not in ignored},
            "defaults": {**effect.defaults, **{effect.args[a]: v for a, v in ignored.items()}},
        })  # fmt: skip
        named = ", ".join(f"{a} (held {orjson.dumps(v).decode()})" for a, v in sorted(ignored.items()))
        out.append(Candidate(tool, "ignored-args", f"does not store {named}"[:120],
                             spec.behaviour(tool).model_copy(update={"effect": made}),
                             confirms="records read back hold one value whatever the argument gave",
                             holds=True))  # fmt: skip
    return out


@PROPOSERS.register("clock-fields")
def clock_fields(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A create whose real records hold a date and a time in a field the model's record lacks or holds
    otherwise (``created_at: "2026-12-04 23:28:11"``), in every record seen, two at least: the clock
    stamps it on every record made (the environment's clock; the real one's value is its own). Read
    off the creates' replies, or the lists after them where a create answers no record."""
    out = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        if not isinstance(effect, CreateEffect) or effect.entity not in spec.state_schema:
            continue
        entity = spec.state_schema[effect.entity]
        records = [(r, p.raw if isinstance(p.raw, dict) else p.out) for p in pairs if p.real_ok and p.model_ok
                   for r in [record_in(p.real, p.out)] if r is not None and _says_more(r, entity)]  # fmt: skip
        if len(records) < 2:
            records += read_back(spec, entity, evidence)
        if len(records) < 2:
            continue
        stamped = sorted(
            name
            for name in set.intersection(*(set(r) for r, _ in records)) - {entity.key, *effect.timestamps}
            if all(clock_stamp(r[name]) for r, _ in records)
            and not all(isinstance(m, dict) and clock_stamp(m.get(name)) for _, m in records)
        )
        if not stamped:
            continue
        stamp = {"type": "string", "format": "date-time"}
        changed = entity.model_copy(update={"fields": {**entity.fields, **{f: stamp for f in stamped
                                                                            if f not in entity.fields}}})  # fmt: skip
        made = effect.model_copy(update={"timestamps": (*effect.timestamps, *stamped)})
        out.append(Candidate(tool, "clock-fields", f"the clock stamps {', '.join(stamped)} on every {entity.name} made",
                             behaviour.model_copy(update={"effect": made}), entities=(changed,),
                             confirms="every created record holds a date and a time there", holds=True))  # fmt: skip
    return out


@PROPOSERS.register("split-lists")
def split_lists(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A text argument the real records hold as the list of its comma-separated parts (``tags:
    "work,urgent"`` read back as ``["urgent", "work"]``, ``""`` as ``[]``): the entity's field holds a
    list, and every create or update writing it from an argument stores the parts, in the order the
    evidence shows (as given, or sorted). Seen in the creates' replies and in the lists read after
    them; proposed where every such text was held so, at least two of them, one of several parts."""
    seen: dict[tuple[str, str], list[tuple[str, Any]]] = {}  # (entity, field) -> (text given, value held)
    made: set[str] = set()
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if not isinstance(effect, CreateEffect) or effect.entity not in spec.state_schema:
            continue
        made.add(effect.entity)
        for p in pairs:
            record = (record_in(p.real, p.out) if p.real_ok and p.model_ok else None) or {}
            for arg, field in effect.args.items():
                if isinstance(p.args.get(arg), str) and field in record:
                    seen.setdefault((effect.entity, field), []).append((p.args[arg], record[field]))
    for name in sorted(made):
        for real, row in [*read_back(spec, spec.state_schema[name], evidence), *_started_read(spec, name, evidence)]:
            for field, text in row.items():
                if isinstance(text, str) and isinstance(real.get(field), list):
                    seen.setdefault((name, field), []).append((text, real[field]))
    out = []
    for (name, field), texts in sorted(seen.items()):
        order = _split_order(texts)
        if order is None:
            continue
        entity = spec.state_schema[name]
        listed = {"type": "array", "items": {"type": "string"}}
        changed = entity.model_copy(update={"fields": {**entity.fields, field: listed}})
        rows = [{**r, field: split_text(r[field], order)} if isinstance(r.get(field), str) else r
                for r in spec.initial_state.get(name, ())]  # fmt: skip
        for tool in (t.name for t in spec.tools.tools):
            behaviour = spec.behaviour(tool)
            effect = behaviour.effect
            if not isinstance(effect, (CreateEffect, UpdateEffect)) or effect.entity != name:
                continue
            args = [a for a, f in effect.args.items() if f == field]
            if not args:
                continue
            update: JSON = {"splits": {**effect.splits, **dict.fromkeys(args, order)}}
            if isinstance(effect, CreateEffect) and isinstance(effect.defaults.get(field), str):
                update["defaults"] = {**effect.defaults, field: split_text(effect.defaults[field], order)}
            summary = f"{', '.join(args)} given as comma-separated text is held as a list ({order})"
            out.append(Candidate(tool, "split-lists", summary,
                                 behaviour.model_copy(update={"effect": effect.model_copy(update=update)}),
                                 entities=(changed,), rows={name: rows},
                                 confirms="reads answer the text's parts as a list", holds=True))  # fmt: skip
    return out


def _started_read(spec: EnvSpec, name: str, evidence: Evidence) -> list[tuple[JSON, JSON]]:
    """The model's starting records (a setup call's), each beside the real record a first list read
    answered for it (:class:`~envfactory.synth.proposers.starts.UniqueTexts`), once each."""
    named = UniqueTexts([r for r in spec.initial_state.get(name, ()) if isinstance(r, dict)])
    found: dict[int, tuple[JSON, JSON]] = {}
    for _tool, pairs, entity, _ in list_reads(spec, evidence):
        for p in pairs if entity.name == name else ():
            for real in (records_in(opened_text(p.real)) or []) if p.real_ok and p.fresh else ():
                row = named.match(real)
                if row is not None:
                    found.setdefault(id(row), (real, row))
    return list(found.values())


def _split_order(texts: list[tuple[str, Any]]) -> Split | None:
    """The order every text's parts were held in (``None``: some text was held otherwise, or too few
    were seen to tell a list from a text)."""
    if len(texts) < 2 or not any("," in t for t, _ in texts):
        return None
    return next((o for o in ("given", "sorted") if all(split_text(t, o) == held for t, held in texts)), None)


_ABSENT = object()


def _says_more(record: JSON, entity: Entity) -> bool:
    """Whether a create's reply holds more of the record than the ids minted for it (``{"id": "9f2c"}``
    says nothing of the values the record starts with)."""
    return any(k != entity.key and not (isinstance(k, str) and k.endswith(MINTED)) for k in record)


def read_back(spec: EnvSpec, entity: Entity, evidence: Evidence) -> list[tuple[JSON, JSON]]:
    """Records the model made (not starting ones), each beside the real record answered for it
    after — by a list of the entity, or at a sequence's end by the reads of the real side's final
    state (a board's columns too: :attr:`Evidence.ends`) —: the one real record holding every text
    of the model's row that it answers at all (its key aside; a summary leaves a description out).
    The latest answer for each made record counts."""
    started = {str(r.get(entity.key)) for r in spec.initial_state.get(entity.name, ())}
    seen: list[tuple[list[JSON], list[JSON]]] = []  # (real records, the model's rows then)
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if isinstance(effect, ListEffect) and effect.entity == entity.name:
            seen += [(records_in(opened_text(p.real)) or [], p.state.get(entity.name, []))
                     for p in pairs if p.real_ok and p.model_ok]  # fmt: skip
    # at a sequence's end, records of this entity only: those sharing more of its fields than another's
    # and the rows still as a create left them (no write the model made since): the end shows the
    # record after every write of the sequence
    as_made = {_dumped(row) for tool, pairs in evidence.pairs.items()
               if isinstance(e := spec.behaviour(tool).effect, CreateEffect) and e.entity == entity.name
               for p in pairs for row in p.state.get(entity.name, ())}  # fmt: skip
    for answered, state in evidence.ends:
        rows = state.get(entity.name, [])
        own = {str(row.get(entity.key)) for row in rows}
        held = [r for a in answered for r in _held_records(a) if _of(spec, r, entity, own)]
        seen.append((held, [row for row in rows if _dumped(row) in as_made]))
    found: dict[bytes, tuple[JSON, JSON]] = {}
    for real, rows in seen:
        for row in rows if real else ():
            if str(row.get(entity.key)) in started:
                continue
            # the record answered under the row's own key (the real id, paired with the model's), else by its texts
            hits = [r for r in real if entity.key in r and str(r[entity.key]) == str(row.get(entity.key))]
            texts = {k: v for k, v in row.items() if k != entity.key and isinstance(v, str) and v}
            hits = hits or [r for r in real if _answers_texts(r, texts)]
            if len(hits) == 1:
                found[_dumped(row)] = (hits[0], row)
    return list(found.values())


def _dumped(row: JSON) -> bytes:
    return orjson.dumps(row, option=orjson.OPT_SORT_KEYS, default=str)


def _of(spec: EnvSpec, record: JSON, entity: Entity, own: set[str]) -> bool:
    """Whether ``record`` is one of ``entity``'s: the entity sharing most of its fields with it, or
    one of those tying for most under whose key the model holds a row (``own``)."""
    likest = _likest(spec, record)
    return entity.name in likest and (len(likest) == 1 or str(record.get(entity.key)) in own)


def _likest(spec: EnvSpec, record: JSON) -> list[str]:
    """The entities sharing the most fields with ``record``, two at least (several where they tie:
    one entity's records answered as another's)."""
    shared = {e.name: len(record.keys() & e.fields.keys()) for e in spec.state_schema.entities}
    most = max(shared.values(), default=0)
    return [name for name, n in shared.items() if n == most] if most >= 2 else []


def _answers_texts(real: JSON, texts: JSON) -> bool:
    """Whether a real record holds one of ``texts`` and no other value where it holds one of them (a
    text it holds as a list — comma-separated tags — is no text to match on)."""
    held = [k for k in texts if k in real and not isinstance(real[k], list)]
    return any(isinstance(real[k], str) for k in held) and all(real[k] == texts[k] for k in held)


def _held_records(value: Any, depth: int = 3) -> list[JSON]:
    """Every record inside a reply's lists of records, to ``depth`` levels of objects."""
    if isinstance(value, list):
        return [v for v in value if isinstance(v, dict)] if value and all(isinstance(v, dict) for v in value) else []
    if isinstance(value, dict) and depth > 0:
        return [r for v in value.values() for r in _held_records(v, depth - 1)]
    return []


@PROPOSERS.register("derived-fields")
def derived_fields(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A text field every real record composes from its other fields (a todo's ``todo_txt_line``,
    ``"(A) 2026-12-02 Buy milk +home @shop"``; a contact's ``display``, ``"Ada Lovelace <ada@x.org>"``):
    the entity keeps it so on every record written (:mod:`envfactory.ir.derived`). Read off the
    records of the entity any reply holds; proposed on the tool that creates them."""
    out = []
    creates: dict[str, str] = {}
    for tool in evidence.pairs:
        effect = spec.behaviour(tool).effect
        if isinstance(effect, CreateEffect) and effect.entity in spec.state_schema:
            creates.setdefault(effect.entity, tool)
    for name, tool in creates.items():
        entity = spec.state_schema[name]
        if entity.key == SINGLETON_KEY:
            continue
        records = _records_of(entity, evidence)
        found: dict[str, Derivation] = {}
        texts = {f for r in records for f, v in r.items() if isinstance(v, str)} - {entity.key, *entity.derived}
        for field in sorted(texts):
            having = [r for r in records if field in r]
            made = infer(having, field) if len(having) * 2 >= len(records) else None
            if made is not None:
                found[field] = made
        if not found:
            continue
        fields = {**entity.fields, **{f: {"type": "string"} for f in found if f not in entity.fields}}
        changed = entity.model_copy(update={"fields": fields, "derived": {**entity.derived, **found}})
        out.append(Candidate(tool, "derived-fields", f"{name} records compose {', '.join(sorted(found))} of their "
                             "other fields", spec.behaviour(tool), entities=(changed,),
                             confirms="every record read holds these fields so composed"))  # fmt: skip
    return out


@PROPOSERS.register("sorted-lists")
def sorted_lists(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A list field the real records keep in sorted order whatever order a write gave its items in
    (``projects: ["teach", "hotel"]`` answered ``["hotel", "teach"]``): the entity sorts it on every
    record written (``Entity.sorted``). Proposed on a tool that wrote such a list, where at least one
    of its accepted calls gave the items out of order and the record answered them sorted, and none
    answered them as given."""
    out = []
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        name, args = getattr(effect, "entity", None), getattr(effect, "args", None)
        if not isinstance(args, dict) or not isinstance(name, str) or name not in spec.state_schema or not args:
            continue
        entity = spec.state_schema[name]
        fields = {f for f, v in _list_orders(pairs, args).items() if v}
        fields -= set(entity.sorted)
        if not fields:
            continue
        changed = entity.model_copy(update={"sorted": (*entity.sorted, *sorted(fields))})
        out.append(Candidate(tool, "sorted-lists", f"{name} records keep {', '.join(sorted(fields))} sorted",
                             spec.behaviour(tool), entities=(changed,),
                             confirms="a record answers a list given out of order sorted", holds=True))  # fmt: skip
    return out


def _list_orders(pairs: list[Any], args: dict[str, str]) -> dict[str, bool]:
    """Per entity field a list argument writes: whether the real records answered it sorted every
    time its items were given out of order (``False`` where one kept the order given)."""
    votes: dict[str, bool] = {}
    for p in pairs:
        if not p.real_ok:
            continue
        for arg, field in args.items():
            given = p.args.get(arg)
            if not (isinstance(given, list) and len(given) > 1 and all(isinstance(v, str) for v in given)):
                continue
            ordered = sorted(given)
            if ordered == given:
                continue
            held = [r[field] for r in objects_in(opened_text(p.real)) if isinstance(r.get(field), list)
                    and sorted(map(str, r[field])) == ordered]  # fmt: skip
            if held:
                votes[field] = votes.get(field, True) and held[0] == ordered
    return votes


MAX_RECORDS = 200  # records read for derived fields, per entity


def _records_of(entity: Entity, evidence: Evidence) -> list[JSON]:
    """The distinct records of ``entity`` the real side answered anywhere: objects holding its key
    and at least two of its fields."""
    known = set(entity.fields) | {entity.key}
    seen: dict[bytes, JSON] = {}
    stack = [opened_text(p.real) for pairs in evidence.pairs.values() for p in pairs if p.real_ok]
    while stack and len(seen) < MAX_RECORDS:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            if entity.key in value and len(known & value.keys()) >= 3:
                seen.setdefault(orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str), value)
            stack.extend(v for v in value.values() if isinstance(v, (dict, list)))
    return list(seen.values())


def _counter_in(real: Any, model: Any, entity: Entity) -> bool:
    """Whether the real reply carries, as an integer, the number the model's minted key ends in."""
    keys = [v for p, v in leaves(model) if isinstance(v, str) and p.rsplit(".", 1)[-1] in _key_names(entity)]
    numbers = {int(m) for m in re.findall(r"\d+", keys[0])[-1:]} if keys else set()
    if not numbers:
        return False
    return bool(numbers & _numbers(real))


def _key_names(entity: Entity) -> set[str]:
    return {entity.key, f"{entity.name}_id", f"{entity.name}Id"}


__all__ = [
    "derived_fields",
    "highest_keys",
    "ignored_args",
    "integer_keys",
    "read_back",
    "record_fields",
    "sorted_lists",
    "split_lists",
]

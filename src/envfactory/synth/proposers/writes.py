"""Writes the descriptions could not model or modelled otherwise, and the argument checks the real side makes."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Literal

import orjson

from envfactory.ir.choice import ArgCheck
from envfactory.ir.effect import (
    ActionEffect,
    Behaviour,
    CreateEffect,
    CreateManyEffect,
    DeleteEffect,
    EditListEffect,
    FallbackEffect,
    UpdateEffect,
    changes_state,
    folded,
)
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import enum_values, primary_type
from envfactory.ir.state import SINGLETON_KEY, Entity, names_key
from envfactory.real.mirror import after_setup
from envfactory.real.told import told, told_argument
from envfactory.runtime.answers import args_key, opened_text, shape_of, token
from envfactory.runtime.behaviours import ALREADY, error_class
from envfactory.runtime.stated import meets
from envfactory.synth.candidates import JSON, PROPOSERS, Candidate, Evidence, Pair
from envfactory.synth.proposers.shapes import leaves, objects_in
from envfactory.synth.statuses import said_rule, same_state
from envfactory.words import stands_in


@PROPOSERS.register("writes")
def keyed_writes(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A tool the descriptions could not model (a fallback) that names a record by its key
    (``complete_todo(todo_id)``) and that the real side accepted: it deletes the record, sets the
    fields its other arguments are named after, or sets one of its status values or flags (each
    value a candidate, a repeat refused or accepted) — what the reads after it and the final state
    show decides. So too an action whose value the descriptions guessed and the real side never
    answered (``todo_lock`` setting ``status: "locked"`` where the records hold ``locked: true``):
    the other values and flags it may set instead."""
    out = []
    answered: set[str] | None = None
    effects: list[tuple[str, Any]]
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        if not any(p.real_ok for p in pairs):
            continue
        effect = behaviour.effect
        guessed = isinstance(effect, ActionEffect) and isinstance(effect.to, str)
        if not isinstance(effect, FallbackEffect) and not guessed:
            continue
        answered = _answered_values(evidence) if answered is None else answered
        if isinstance(effect, ActionEffect):
            # an action setting a value the real side never answered (the descriptions' guess, ``status:
            # "locked"``): what else it may set, the same record named the same way
            if effect.to in answered or effect.entity not in spec.state_schema:
                continue
            entity, arg, effects = spec.state_schema[effect.entity], effect.key_arg, []
            # the value as the real side spells it (``resolved`` answered as ``Resolved``)
            for spelt in sorted(v for v in answered if v.casefold() == str(effect.to).casefold()):
                effects.append((f"sets {entity.name}.{effect.field} to {spelt!r}, as the real side spells it",
                                effect.model_copy(update={"to": spelt})))  # fmt: skip
            # the record its key argument names, where the descriptions took another (``resolve_blocker(task_id)``
            # read as an action on a blocker): that record's values too
            owner = _named_by(spec, arg)
            if owner is not None and owner.name != entity.name:
                effects += _settings(owner, arg, answered, pairs, said_rule(spec.tools[tool], owner.name).to)
        else:
            named = _keyed(spec, tool) or _keyed_by_replies(spec, pairs)
            if named is None:
                continue
            entity, arg = named
            effects = [(f"deletes the {entity.name}", DeleteEffect(entity=entity.name, key_arg=arg))]
            # its other arguments named after fields of the record: it sets them (``update_deal_stage(deal_id, stage)``)
            sets = {a: a for a in spec.tools[tool].input_schema.get("properties") or {}
                    if a != arg and a in entity.fields}  # fmt: skip
            if sets:
                effects.append((f"sets {', '.join(sorted(sets))} of the {entity.name}",
                                UpdateEffect(entity=entity.name, key_arg=arg, args=sets)))  # fmt: skip
            out += _said_fields(spec, tool, entity, arg, pairs)
        effects += _settings(entity, arg, answered, pairs, said_rule(spec.tools[tool], entity.name).to)
        for summary, made_effect in effects:
            notes = (f"learned: {summary}",)
            if isinstance(effect, ActionEffect):  # the action's other parts (its wording, its checks) kept
                kept = {"args": effect.args, "timestamps": effect.timestamps}
                made = behaviour.model_copy(update={"effect": made_effect.model_copy(update=kept), "notes": notes})
            else:
                made = Behaviour(tool=tool, effect=made_effect, prior="plausible", notes=notes)
            out.append(Candidate(tool, "writes", summary, made, confirms="reads after the call show the change"))
    return out


@PROPOSERS.register("repeats")
def accepted_repeats(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """An action refusing a record that already holds the value it sets (``complete_task`` on a task
    done already) where the real side accepted such a call, twice at least, and refused none for that
    reason: the repeat is accepted (``ActionEffect.again``), the record set again."""
    out = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        if not isinstance(effect, ActionEffect) or effect.again:
            continue
        repeated = [p for p in pairs if not p.model_ok and ALREADY in str(p.model)]
        if sum(p.real_ok for p in repeated) < 2 or any(not p.real_ok for p in repeated):
            continue
        made = behaviour.model_copy(update={"effect": effect.model_copy(update={"again": True})})
        out.append(Candidate(tool, "repeats", f"accepts setting {effect.field} to {effect.to!r} again", made,
                             confirms="the real side accepts a call on a record already so"))  # fmt: skip
    return out


MIN_FROM = 2  # calls the real side accepted from values the model's action refuses, at least


@PROPOSERS.register("accepted-from")
def accepted_from(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """An action whose record held a value it may not go from (``forbidden_from``, or one outside
    ``allowed_from``: "a done task cannot be started", as the descriptions gave it) when the model
    refused it and the real side accepted it, :data:`MIN_FROM` times at least: it goes from the
    values the real side accepted more calls from than it refused. A second candidate lets it go from
    any value."""
    out: list[Candidate] = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        if not isinstance(effect, ActionEffect) or (not effect.forbidden_from and effect.allowed_from is None):
            continue
        votes: dict[Any, list[bool]] = {}
        for p in pairs:
            value = _held_value(spec, effect, p) if not p.model_ok else None
            if value is not None and value != effect.to and not effect.may_leave(value):
                votes.setdefault(value, []).append(p.real_ok)
        freed = [v for v, said in sorted(votes.items(), key=lambda kv: str(kv[0])) if sum(said) * 2 > len(said)]
        if sum(sum(said) for said in votes.values()) < MIN_FROM or not freed:
            continue
        allowed = effect.allowed_from if effect.allowed_from is None else (*effect.allowed_from, *freed)
        gone = folded(freed)
        forbidden = tuple(v for v in effect.forbidden_from if str(v).casefold() not in gone)
        for said, change in ((f"goes to {effect.to!r} from {', '.join(map(str, freed))} as well",
                              {"allowed_from": allowed, "forbidden_from": forbidden}),
                             (f"goes to {effect.to!r} from any {effect.field}",
                              {"allowed_from": None, "forbidden_from": ()})):  # fmt: skip
            made = behaviour.model_copy(update={"effect": effect.model_copy(update=change)})
            if made != behaviour and not any(c.behaviour == made for c in out):
                out.append(Candidate(tool, "accepted-from", said, made,
                                     confirms="the real side accepts it on a record holding such a value"))  # fmt: skip
    return out


def _held_value(spec: EnvSpec, effect: ActionEffect, pair: Pair) -> Any:
    """The value of the action's field the record named held when the model refused the call."""
    key = pair.args.get(effect.key_arg)
    if key is None or effect.entity not in spec.state_schema:
        return None
    entity = spec.state_schema[effect.entity]
    row = next((r for r in pair.held.get(effect.entity, ()) if str(r.get(entity.key)) == str(key)), None)
    return row.get(effect.field) if row is not None else None


@PROPOSERS.register("json-items")
def json_items(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A tool the descriptions could not model (a fallback) whose text argument the real side
    accepted holding a JSON list of records (``tasksRaw: "[{\"name\": \"Write the API\", ...}]"``),
    and whose items the real side answers afterwards (their texts in other tools' replies): it makes
    one record per item, of the entity whose fields the items' members name most of. Setup calls
    that gave it such a text leave the records the model starts with, read off the calls the real
    side accepted: a correction of what the model holds."""
    out = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        if not isinstance(behaviour.effect, FallbackEffect):
            continue
        answered: str | None = None
        setup = [a for t, a in evidence.accepted if t == tool]
        given = [p.args for p in pairs if p.real_ok] + setup
        for arg, prop in sorted((spec.tools[tool].input_schema.get("properties") or {}).items()):
            if not isinstance(prop, dict) or primary_type(prop) != "string":
                continue
            items = [i for a in given for i in _json_records(a.get(arg))]
            named = _item_entity(spec, items)
            if named is None:
                continue
            if answered is None:
                answered = _answered_text(evidence, tool)
            if not _answered_afterwards(items, answered):
                continue
            entity, fields = named
            effect = CreateManyEffect(entity=entity.name, items_arg=arg, fields=fields, items_text=True)
            summary = f"makes a {entity.name} of each record the JSON text {arg} holds"
            made = behaviour.model_copy(
                update={"effect": effect, "prior": "plausible", "notes": (f"learned: {summary}",)}
            )
            candidate = Candidate(tool, "json-items", summary, made, confirms="the items' texts in later replies")
            rows = after_setup(candidate.applied(spec), [(tool, a) for a in setup]).initial_state.get(entity.name, [])
            if setup and rows != spec.initial_state.get(entity.name, []):
                candidate = Candidate(tool, "json-items", summary, made, confirms=candidate.confirms,
                                      rows={entity.name: rows}, holds=True)  # fmt: skip
            out.append(candidate)
    return out


def _json_records(value: Any) -> list[JSON]:
    """The records a text holding a JSON list of objects holds (none for any other value)."""
    if not isinstance(value, str) or not value.lstrip().startswith("["):
        return []
    try:
        parsed = orjson.loads(value)
    except orjson.JSONDecodeError:
        return []
    return [i for i in parsed if isinstance(i, dict)] if isinstance(parsed, list) else []


def _item_entity(spec: EnvSpec, items: list[JSON]) -> tuple[Entity, dict[str, str]] | None:
    """The entity whose fields the items' members name (two or more, and most of them), with the
    members it takes; ``None`` where none, or two alike."""
    members = {k for i in items for k in i}
    scored = sorted(((len(members & set(e.fields)), e.name) for e in spec.state_schema.entities
                     if e.key != SINGLETON_KEY), reverse=True)  # fmt: skip
    if not scored or scored[0][0] < 2 or scored[0][0] * 2 < len(members):
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    entity = spec.state_schema[scored[0][1]]
    return entity, {k: k for k in sorted(members & set(entity.fields)) if k != entity.key}


def _answered_text(evidence: Evidence, but: str) -> str:
    """Every accepted real reply of the evidence but those of the tool ``but`` (which may echo what
    it was given), as one text."""
    return "\n".join(p.real if isinstance(p.real, str) else orjson.dumps(p.real, default=str).decode()
                     for tool, pairs in evidence.pairs.items() if tool != but for p in pairs if p.real_ok)  # fmt: skip


_TELLING = 4  # a text shorter than this says nothing of which record a reply holds


def _answered_afterwards(items: list[JSON], answered: str) -> bool:
    """Whether most items have a text of their own (not a member name, long enough to tell) that the
    real side answered somewhere: it holds the records."""

    def shown(item: JSON) -> bool:
        return any(isinstance(v, str) and len(v) >= _TELLING and any(c.isalpha() for c in v) and v in answered
                   for v in item.values())  # fmt: skip

    return bool(items) and sum(map(shown, items)) * 2 > len(items)


def _answered_values(evidence: Evidence) -> set[str]:
    """Every text value the real side answered anywhere in the evidence."""
    return {v for pairs in evidence.pairs.values() for p in pairs if p.real_ok
            for _path, v in leaves(p.real) if isinstance(v, str)}  # fmt: skip


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


def _settings(entity: Entity, arg: str, answered: set[str], pairs: list[Pair],
              said: str | None = None) -> list[tuple[str, ActionEffect]]:  # fmt: skip
    """Each value the record named by ``arg`` may be set to: a status value only if the real side ever
    answered it or the tool's prose says it (``said``: "set task to in_progress"), a flag either way;
    a repeat accepted only if one was."""
    agains = (False, True) if _repeat_accepted(pairs) else (False,)
    out = []
    for name, schema in entity.fields.items():
        declared = [m for m in enum_values(schema) if isinstance(m, str)]
        named = [m for m in declared if said is not None and same_state(m, said)]
        members = list(dict.fromkeys([*named, *(m for m in declared if m in answered)]))[:6]
        values: list[Any] = [*members, *((True, False) if primary_type(schema) == "boolean" else ())]
        for value in values:
            for again in agains:
                summary = f"sets {entity.name}.{name} to {value!r}{' (again accepted)' if again else ''}"
                out.append((summary, ActionEffect(entity=entity.name, key_arg=arg, field=name, to=value, again=again)))
    return out


def _said_fields(spec: EnvSpec, tool: str, entity: Entity, arg: str, pairs: list[Pair]) -> list[Candidate]:
    """A fallback whose prose says the state it sets ("Mark a task done") and whose accepted real replies
    hold that value in a field that declares no values (``status: "done"``): it sets that field (the
    entity gains it where it lacks it); a repeat accepted where one was, or where the tool says it is
    idempotent (first)."""
    said = said_rule(spec.tools[tool], entity.name).to
    if said is None:
        return []
    fields = {(k, v) for p in pairs if p.real_ok for obj in objects_in(opened_text(p.real)) for k, v in obj.items()
              if isinstance(v, str) and same_state(v, said) and not enum_values(entity.fields.get(k))}  # fmt: skip
    agains = (True, False) if spec.tools[tool].annotations.idempotent or _repeat_accepted(pairs) else (False,)
    out = []
    for field, value in sorted(fields):
        changed = entity.model_copy(update={"fields": {**entity.fields, field: entity.fields.get(field) or
                                                       {"type": "string"}}})  # fmt: skip
        for again in agains:
            summary = f"sets {entity.name}.{field} to {value!r}, as its prose says" + (" (again)" if again else "")
            effect = ActionEffect(entity=entity.name, key_arg=arg, field=field, to=value, again=again)
            made = Behaviour(tool=tool, effect=effect, prior="plausible", notes=(f"learned: {summary}",))
            out.append(Candidate(tool, "writes", summary, made, entities=(changed,),
                                 confirms="reads after the call show the change"))  # fmt: skip
    return out


def _named_by(spec: EnvSpec, arg: str) -> Entity | None:
    """The entity an argument names by its key (``task_id``: the task), if one does."""
    for e in spec.state_schema.entities:
        if e.key != SINGLETON_KEY and (arg in (f"{e.name}_id", f"{e.name}Id") or names_key(arg, e.name, e.key)):
            return e
    return None


def _keyed(spec: EnvSpec, tool: str) -> tuple[Entity, str] | None:
    """The entity a tool's required argument names by its key (``todo_id``, ``id``), if one does."""
    effect = spec.behaviour(tool).effect
    needs = getattr(effect, "needs", {}) or {}
    for arg, name in needs.items():
        if name in spec.state_schema:
            return spec.state_schema[name], arg
    entities = [e for e in spec.state_schema.entities if e.key != SINGLETON_KEY]
    for arg in spec.tools[tool].required:
        named = _named_by(spec, arg)
        if named is not None:
            return named, arg
        if len(entities) == 1 and arg == entities[0].key:
            return entities[0], arg
    return None


def _keyed_by_replies(spec: EnvSpec, pairs: list[Pair]) -> tuple[Entity, str] | None:
    """The entity and the argument giving its key that a tool's accepted replies answer as the record
    they name (:func:`_keyed_record`) — the same in most of them, two at least: ``mark_done(id)``
    answering the todo it marked where ``id`` alone cannot tell which of several entities it names."""
    named = Counter((entity.name, arg) for p in pairs if (found := _keyed_record(spec, p)) is not None
                    for entity, arg, _ in [found])  # fmt: skip
    accepted = sum(p.real_ok for p in pairs)
    if not named:
        return None
    (name, arg), count = named.most_common(1)[0]
    return (spec.state_schema[name], arg) if count >= 2 and count * 2 > accepted else None


_UNIQUE = re.compile(r"\bunique\b", re.IGNORECASE)
MIN_OVER = 2  # creates accepted over a record holding the value, at least, where no description says unique


@PROPOSERS.register("replaces")
def saves_over(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A create given a value that the real side accepted while a record already held it: the
    create saves over that record rather than adding a second beside it — the reads after it decide
    (two stories may share a title: then nothing read shows one record, and the candidate loses).
    Candidates: a field its description calls unique ("Unique key for the context item") once so
    accepted; any other text or number field so accepted :data:`MIN_OVER` times, where the records
    held differ in it (a sheet's name, not the one file every sheet lives in). Where two tie, the
    one said unique wins, then the one telling the records apart best (a note's key before its
    category, which many notes share)."""
    out = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        if not isinstance(effect, CreateEffect) or effect.replaces is not None:
            continue
        props = spec.tools[tool].input_schema.get("properties") or {}
        ranked: list[tuple[bool, float, str]] = []
        for arg, field in sorted(effect.args.items()):
            prop = props.get(arg)
            said = bool(_UNIQUE.search(str((prop.get("description") if isinstance(prop, dict) else None) or "")))
            twice = [p for p in pairs if _held_twice(p, effect.entity, field, arg)]
            named = all(isinstance(p.args.get(arg), (str, int)) and not isinstance(p.args.get(arg), bool)
                        for p in twice)  # fmt: skip
            telling = _telling(pairs, effect.entity, field)
            if twice and (said or (named and telling > 0 and len(twice) >= MIN_OVER)):
                ranked.append((not said, -telling, field))
        for _, _, field in sorted(ranked):
            made = behaviour.model_copy(update={"effect": effect.model_copy(update={"replaces": field})})
            summary = f"saves over the {effect.entity} holding its {field}"
            out.append(Candidate(tool, "replaces", summary, made, confirms="reads after a second save list one record"))
    return out


@PROPOSERS.register("unique-fields")
def unique_fields(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A create the real side refused as a conflict ("already exists") while the model, accepting
    it, came to hold two records with the value one of its arguments gave — and never accepted while
    the model held the value already: no two records share that field, a second is refused
    ``conflict``. A single such refusal sits in one fold: the chooser weighs that tie by all the
    evidence."""
    out = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        effect = behaviour.effect
        if not isinstance(effect, CreateEffect):
            continue
        for arg, field in sorted(effect.args.items()):
            if field in effect.unique or field == effect.replaces:
                continue
            said = any(_held_twice(p, effect.entity, field, arg, real_ok=False)
                       and "conflict" in (str(p.real), error_class(str(p.real))) for p in pairs)  # fmt: skip
            if not said or any(_held_twice(p, effect.entity, field, arg) for p in pairs):
                continue
            unique = (*effect.unique, field)
            made = behaviour.model_copy(update={"effect": effect.model_copy(update={"unique": unique})})
            summary = f"refuses a second {effect.entity} with the same {field}"
            out.append(Candidate(tool, "unique-fields", summary, made,
                                 confirms="a create given a value a record holds is refused"))  # fmt: skip
    return out


def _telling(pairs: list[Pair], entity: str, field: str) -> float:
    """How well ``field`` tells the records the model held apart: the largest share of distinct
    values among them after a call, where they held two or more; 0 where every record held one
    value (the one file a whole database lives in names none of them)."""

    def held(row: JSON) -> bytes:
        return orjson.dumps(row.get(field), option=orjson.OPT_SORT_KEYS, default=str)

    shares = [len(values) / len(rows) for p in pairs if len(rows := p.state.get(entity, ())) > 1
              and len(values := {held(r) for r in rows}) > 1]  # fmt: skip
    return max(shares, default=0.0)


def _held_twice(pair: Pair, entity: str, field: str, arg: str, *, real_ok: bool = True) -> bool:
    """Whether the real side accepted the call (refused it, with ``real_ok=False``) while, just after
    it, the model held two records with the value it gave."""
    wanted = pair.args.get(arg)
    held = sum(r.get(field) == wanted for r in pair.state.get(entity, ()))
    return pair.real_ok == real_ok and wanted is not None and held > 1


@PROPOSERS.register("list-member")
def list_members(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A tool given a record's key and one value (``add_blocker(id, blocker_id)``) whose accepted
    replies are that record with the value in one of its list fields, every time: it adds the value
    to that field (once); replies where the value is never there after: it removes it. Each answers
    the record as it is afterwards — what the reads after it show decides."""
    out = []
    for tool, pairs in evidence.pairs.items():
        behaviour = spec.behaviour(tool)
        edits = _list_edits(spec, pairs)
        if any(op == "remove" for *_, op in edits):  # only a value other tools' replies showed there is removed
            shown = _list_values(evidence, tool)
            given = {arg: {str(p.args[arg]) for p in pairs if p.args.get(arg) is not None} for *_, arg, _ in edits}
            edits = {e for e in edits if e[4] == "add" or any((e[2], v) in shown for v in given[e[3]])}
        for entity, key_arg, field, value_arg, op in sorted(edits):
            effect = EditListEffect(entity=entity, field=field, owner_arg=key_arg, values_arg=value_arg, op=op,
                                    answers_row=True)  # fmt: skip
            said = "adds its {} to" if op == "add" else "removes its {} from"
            summary = f"{said.format(value_arg)} the {field} of the {entity} its {key_arg} names"
            made = Behaviour(tool=tool, effect=effect, prior="plausible", notes=(f"learned: {summary}",),
                             checks=behaviour.checks)  # fmt: skip
            out.append(Candidate(tool, "list-member", summary, made, confirms="reads after it show the list"))
    return out


def _list_edits(spec: EnvSpec, pairs: list[Pair]) -> set[tuple[str, str, str, str, Literal["add", "remove"]]]:
    """(entity, key argument, list field, value argument, "add" or "remove") that every accepted reply
    of ``pairs`` naming a record by its key bears out, seen at least twice: the value always in the
    field afterwards ("add"), or never there afterwards ("remove"). The record is of the entity
    sharing most fields with it."""
    votes: dict[tuple[str, str, str, str], list[bool]] = {}
    for p in pairs:
        found = _keyed_record(spec, p)
        if found is None:
            continue
        entity, key_arg, record = found
        for field, held in record.items():
            if field not in entity.fields or not isinstance(held, list):
                continue
            for value_arg, value in p.args.items():
                if value_arg != key_arg and isinstance(value, (str, int)) and not isinstance(value, bool):
                    votes.setdefault((entity.name, key_arg, field, value_arg), []).append(value in held)
    return {(*where, "add" if all(held) else "remove") for where, held in votes.items()
            if len(held) >= 2 and (all(held) or not any(held))}  # fmt: skip


def _keyed_record(spec: EnvSpec, pair: Pair) -> tuple[Entity, str, JSON] | None:
    """The record an accepted reply answers (itself or its one member that is a record) with the
    entity sharing most fields with it and the argument that gave its key, if any."""
    if not pair.real_ok or not isinstance(pair.real, dict):
        return None
    records = [pair.real, *(v for v in pair.real.values() if isinstance(v, dict))]
    best: tuple[int, Entity, str, JSON] | None = None
    for record in records:
        for entity in spec.state_schema.entities:
            shared = len(record.keys() & entity.fields.keys())
            key = record.get(entity.key)
            args = [a for a, v in pair.args.items() if v == key and not isinstance(v, bool)]
            if key is not None and args and shared >= 2 and (best is None or shared > best[0]):
                best = (shared, entity, args[0], record)
    return None if best is None else best[1:]


def _list_values(evidence: Evidence, but: str) -> set[tuple[str, str]]:
    """(field, value) for each value a list field held in the accepted replies of tools but ``but``."""
    return {(str(k), str(x)) for tool, pairs in evidence.pairs.items() if tool != but for p in pairs if p.real_ok
            for obj in objects_in(p.real) for k, v in obj.items() if isinstance(v, list)
            for x in v if isinstance(x, (str, int))}  # fmt: skip


@PROPOSERS.register("checks")
def argument_checks(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """Checks the real side makes that the model does not: an argument whose every accepted value had
    one of a few shapes and whose refused calls the model accepted all had another (``limit: 34.65``
    refused, whole numbers accepted; a priority ``high`` refused, ``A`` accepted). Accepted values
    are those of accepted calls (in the model's ids and in the real side's own), of the setup calls
    every fresh copy accepted, of the accepted reads of each sequence's final state (a list read at the
    end by a project the sequence made), and the values the argument's schema declares (its default, its
    examples: ``limit_per_column`` defaulting to 20 is whole); where the tool was never given it, the
    values the other tools that write accepted under the same name (a server checks a priority alike
    wherever it is written). Where the real side's refusals list the values an argument takes (``must
    be one of {design, schema, production, meta}``), those values alone. Calls refused for another
    reason besides (a value of an accepted shape) do not hide the check: the chooser weighs it."""
    out = []
    for tool, pairs in evidence.pairs.items():
        missed = [p for p in pairs if not p.real_ok and p.model_ok]
        if not missed:
            continue
        behaviour = spec.behaviour(tool)
        given = [a for t, a in evidence.accepted if t == tool]
        given += [p.args for p in evidence.at_end.get(tool, ()) if p.real_ok]
        props = spec.tools[tool].input_schema.get("properties") or {}
        for arg in sorted({a for p in missed for a in p.args}):
            accepted = {shape_of(p.args[arg]) for p in pairs if p.real_ok and arg in p.args}
            # and as the real side was given it: a record's key in its own ids is as good as in the model's,
            # which may come to mint keys worded as the real side's (``key-format``)
            accepted |= {shape_of(p.given[arg]) for p in pairs if p.real_ok and arg in p.given}
            accepted |= {shape_of(a[arg]) for a in given if arg in a}
            accepted |= {shape_of(v) for v in _declared_values(props.get(arg))}
            if not accepted:  # none given to this tool: as the server accepted it in the other tools that write
                writing = {t for t in evidence.pairs if t != tool and changes_state(spec.behaviour(t).effect)}
                accepted = {shape_of(p.args[arg]) for t in writing for p in evidence.pairs[t]
                            if p.real_ok and arg in p.args}  # fmt: skip
                accepted |= {shape_of(a[arg]) for t, a in evidence.accepted if arg in a and t in writing}
            # a refusal saying the thing named is not there counts too: where the model does not look
            # the thing up, a shape it was never seen taking stands for "not there" (toolkit's
            # ``note_read``, taskmanager's ``requestId``: left out, held-out outcomes fell 3-4 points)
            refused = [p for p in missed if arg in p.args and shape_of(p.args[arg]) not in accepted]
            stated = _stated(pairs, missed, arg)
            if stated is not None:
                out.append(_stated_check(behaviour, arg, stated, missed))
                continue
            told = _told_values(pairs, missed, arg)
            if told is not None:
                out.append(_one_of(behaviour, arg, accepted, told, missed))
                continue
            # a closed set of values; where some refused values have shapes never accepted, a check of
            # shapes is offered beside it (``vault: "notes"`` accepted, ``worry`` and ``study-unknown`` not)
            if accepted and (few := _few_values(pairs, arg, given, props.get(arg))) is not None:
                out.append(_one_of(behaviour, arg, accepted, few, missed))
                if not refused:
                    continue
            if not accepted and (never := _never_accepted(behaviour, pairs, arg, missed)) is not None:
                out.append(never)
                continue
            if not accepted or len(accepted) > 4 or not refused:
                continue
            check = ArgCheck(arg=arg, shapes=tuple(sorted(accepted)), message=_refusal(refused[0], arg))
            out.append(_checking(behaviour, check, f"{arg} must be shaped {' or '.join(sorted(accepted))}",
                                 "values of other shapes are refused"))  # fmt: skip
    return out


def _refusal(pair: Pair, arg: str) -> str:
    """What a check on ``arg`` answers: the real side's words refusing ``pair``, else a plain one."""
    if pair.said:
        return pair.said[:200]
    return str(pair.real)[:200] if isinstance(pair.real, str) else f"invalid {arg}"


def _told_values(pairs: list[Pair], missed: list[Pair], arg: str) -> set[str] | None:
    """The values the real side's refusals list for ``arg`` (``must be one of {design, schema, ...}``:
    :func:`envfactory.real.told.told_argument`) — the same list in most of them; one is enough, the
    real side saying it, and exploration draws from the list once told —, where every value it
    accepted is one of them; ``None`` otherwise."""
    lists = [
        tuple(found[1]) for p in missed if p.said and (found := told_argument(p.said, p.given)) and found[0] == arg
    ]
    if not lists:
        return None
    values = {token(v) for v in Counter(lists).most_common(1)[0][0]}
    accepted = {token(p.args[arg]) for p in pairs if p.real_ok and arg in p.args}
    return values if accepted <= values else None


def _stated(pairs: list[Pair], missed: list[Pair], arg: str) -> JSON | None:
    """What the real side's refusals said ``arg`` must be, besides values they list (a least length,
    an ending, a written form, a range: :func:`envfactory.real.told.told`) — the same in most of them;
    one is enough —, where every value it accepted meets it and a value the model accepted does not;
    ``None`` otherwise."""
    said = [found.schema for p in missed if p.said and (found := told(p.said, p.given)) is not None
            and found.arg == arg and "enum" not in found.schema]  # fmt: skip
    if not said:
        return None
    most = Counter(orjson.dumps(s, option=orjson.OPT_SORT_KEYS) for s in said).most_common(1)[0][0]
    stated: JSON = orjson.loads(most)
    if not all(meets(p.args[arg], stated) for p in pairs if p.real_ok and arg in p.args):
        return None
    return stated if any(not meets(p.args[arg], stated) for p in missed if arg in p.args) else None


def _stated_check(behaviour: Behaviour, arg: str, stated: JSON, missed: list[Pair]) -> Candidate:
    """The candidate refusing values of ``arg`` that do not meet what the refusals ``stated``, in
    the words of the first such refusal."""
    refused = next(p for p in missed if arg in p.args and not meets(p.args[arg], stated))
    check = ArgCheck(arg=arg, shapes=(), message=_refusal(refused, arg), stated=stated)
    shown = ", ".join(f"{k} {v}" for k, v in sorted(stated.items()))
    return _checking(behaviour, check, f"{arg} must meet {shown}"[:120], "values not as the refusals said are refused")


def _checking(behaviour: Behaviour, check: ArgCheck, summary: str, confirms: str) -> Candidate:
    """The candidate making ``check`` besides the behaviour's own checks."""
    made = behaviour.model_copy(update={"checks": (*behaviour.checks, check)})
    return Candidate(behaviour.tool, "checks", summary, made, confirms=confirms)


NEVER_SEEN = 3  # calls the model accepted, given the argument, that the real side refused, at least


def _never_accepted(behaviour: Behaviour, pairs: list[Pair], arg: str, missed: list[Pair]) -> Candidate | None:
    """An argument the real side never accepted (the caller found no accepted value), refused on three
    calls the model accepted at least, of at most two shapes, while the tool's calls without it were
    accepted: values of those shapes are refused (sqlite's ``limit: 276.35``, drawn from a ``number``
    schema, where no whole number was ever tried); other shapes pass, never having been seen refused."""
    shown = [p for p in missed if arg in p.args]
    shapes = tuple(sorted({shape_of(p.args[arg]) for p in shown}))
    if len(shown) < NEVER_SEEN or len(shapes) > 2 or not any(p.real_ok for p in pairs):
        return None
    check = ArgCheck(arg=arg, shapes=(), message=_refusal(shown[0], arg), refused=shapes)
    return _checking(behaviour, check, f"{arg} is refused shaped {' or '.join(shapes)}",
                     "values of those shapes are refused, whatever else the call says")  # fmt: skip


FEW_VALUES = 3  # an argument accepted with at most this many values, each at least ...
FEW_SEEN = 5  # ... this many times in all, and refused with others only, takes those values alone


def _few_values(pairs: list[Pair], arg: str, given: list[JSON], schema: Any) -> set[str] | None:
    """The values of ``arg`` the real side accepted, where they are few and often given (a stage
    ``leads`` 43 times) and every call the model accepted but the real side refused gave another —
    three such values at least, all different (``teach``, ``because``, ``simple``): a closed set
    nothing declares. A declared example counts as accepted unless the real side refused it and never
    accepted it. ``None`` otherwise."""
    accepted = Counter(token(p.args[arg]) for p in pairs if p.real_ok and arg in p.args)
    accepted.update(token(a[arg]) for a in given if arg in a)
    # the refusals about the argument: wordless, or quoting its value or naming it (``Vault 'worry' is
    # not configured``; not ``Path must be a portable vault-relative path``, about another argument)
    about = [p for p in pairs if not p.real_ok and arg in p.args and _about(p, arg)]
    # a declared example the real side refused and never accepted is no value it takes (a vault ``work``)
    refused = {token(p.args[arg]) for p in about}
    accepted.update(v for v in map(token, _declared_values(schema)) if v in accepted or v not in refused)
    if not accepted or len(accepted) > FEW_VALUES or sum(accepted.values()) < FEW_SEEN:
        return None
    others = {token(p.args[arg]) for p in about if p.model_ok}
    if len(others) < 3 or any(v in accepted for v in others):
        return None
    return set(accepted)


def _about(pair: Pair, arg: str) -> bool:
    """Whether a refusal is about ``arg``: it says nothing, or its words hold the value given as a whole
    word, or the argument's name as a word of its own (not inside ``vault-relative``)."""
    if not pair.said:
        return True
    said = pair.said.lower()
    return any(stands_in(w.lower(), said) for w in (token(pair.args.get(arg)), arg) if w)


def _one_of(behaviour: Behaviour, arg: str, shapes: set[str], values: set[str], missed: list[Pair]) -> Candidate:
    refused = next(p for p in missed if arg in p.args and token(p.args[arg]) not in values)
    check = ArgCheck(arg=arg, shapes=tuple(sorted(shapes)), message=_refusal(refused, arg),
                     values=tuple(sorted(values)))  # fmt: skip
    summary = f"{arg} must be one of {', '.join(sorted(values))}"[:120]
    return _checking(behaviour, check, summary, "other values are refused")


def _declared_values(schema: Any) -> list[Any]:
    """The values an argument's schema says it takes: its default and its examples."""
    if not isinstance(schema, dict):
        return []
    examples = schema.get("examples")
    found = [*(examples if isinstance(examples, list) else []), *([schema["default"]] if "default" in schema else [])]
    return [v for v in found if v is not None]


__all__ = ["accepted_repeats", "argument_checks", "json_items", "keyed_writes", "list_members", "saves_over"]

"""Replies as the real side words them: fixed wordings with slots, counts of the state, lists inside their envelope."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import orjson

from envfactory.ir.choice import Answer
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import enum_values, primary_type
from envfactory.ir.state import SINGLETON_KEY
from envfactory.real.agreement import leaf_share
from envfactory.runtime.answers import (
    CASE,
    NONE,
    PROJECTED,
    ROWS,
    TALLY,
    fill,
    leaf_or_none,
    opened_text,
    projected,
    token,
)
from envfactory.synth.candidates import JSON, PROPOSERS, Candidate, Evidence, Pair
from envfactory.synth.proposers.omitted import argument_slots, kept_as_read, omitted_read, read_off
from envfactory.synth.proposers.shapes import (
    canonical,
    default_sets,
    envelope,
    flagged_members,
    leaves,
    steady,
    template_of,
    united_cases,
    united_lines,
    unmasked,
)
from envfactory.words import tokens

# the proposers of this module: how a tool words its replies, whatever it does (the chooser words a
# tool anew where a change of what it does tied under a wording that may hide it)
WORDINGS = ("template", "nothing-found", "by-argument", "counts", "list-envelope")


@PROPOSERS.register("template")
def reply_templates(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """Replies worded the same way every time — text or JSON — with what varies filled from the
    arguments and from the model's own answer (``"Created task {out.id}: {arg.title}"``,
    ``{"success": true, "message": "Entities deleted successfully"}``). A tool answered only once
    is worded from that one reply where another tool's wording, learned from several, has its
    shape: a server words its replies in one house style (``{"success": true, "task_id": ...}``,
    ``{"success": true, "failure_id": ...}``)."""
    worded = {tool: w for tool, pairs in evidence.pairs.items()
              if (w := _wordings(spec, evidence, tool, pairs, 2, leaves_too=True))}  # fmt: skip
    house = {_style(w[0][0]) for w in worded.values() if _slotted(w[0][0])}
    for tool, pairs in evidence.pairs.items():
        once = _wordings(spec, evidence, tool, pairs, 1)[:1] if tool not in worded else []
        if once and _slotted(once[0][0]) and _style(once[0][0]) in house:
            worded[tool] = once
    out = []
    for tool, wordings in worded.items():
        for template, defaults, text in wordings:
            answer = Answer(kind="template", template=template, defaults=defaults)
            behaviour = kept_as_read(spec.behaviour(tool), read_off(spec, tool, defaults)).model_copy(
                update={"answer": answer}
            )
            out.append(Candidate(tool, "template", f"answers {_said(text, 80)}", behaviour,
                                 confirms="every accepted call answers this wording"))  # fmt: skip
    return out


_WHOLE = {  # a wording that is the model's answer whole, as a summary says it
    '"{out}"': "what the model's behaviour answers, as it is",
    '"{raw}"': "the rows its effect found, as they are",
}


def _said(text: str, width: int) -> str:
    """A wording (canonical JSON) as a candidate's summary says it, cut to ``width``."""
    return _WHOLE.get(text) or (text if len(text) <= width else text[: width - 3] + "...")


@PROPOSERS.register("nothing-found")
def nothing_found(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """A list or search worded one way when it finds nothing ("No tasks matching "{arg.query}" were
    found") and another when it finds something (the records it found): each wording learned from
    the replies of its own case, as the model's effect found rows or none —
    ``{"$none": T0, "value": T}``. A read that accepts a key nobody holds likewise, as it found the
    record or not ("No task with ID `{arg.id}`", accepted)."""
    out = []
    for tool, pairs in evidence.pairs.items():
        missing = spec.behaviour(tool).accepts_missing
        kinds = (list, dict) if missing else list  # a read's record, or none: ``{}``
        found = [p for p in pairs if p.real_ok and p.model_ok and isinstance(p.raw, kinds)]
        none, some = [p for p in found if not p.raw], [p for p in found if p.raw]
        if len(none) < 2 or len(some) < 2:
            continue
        # the model may answer the empty case's wording already (learned in an earlier round, when no
        # call had found anything yet): only the other case's wording need be new
        empty, full = (
            _wordings(spec, evidence, tool, none, 2, as_answered=True),
            _wordings(spec, evidence, tool, some, 2),
        )
        if not empty or not full or empty[0][0] == full[0][0]:
            continue
        (nothing, _, _), (something, _, text) = empty[0], full[0]
        defaults = _agreed([empty[0][1], full[0][1]])
        if defaults is None:
            continue  # the two cases read an omitted argument otherwise: no one wording
        answer = Answer(kind="template", template={NONE: nothing, "value": something}, defaults=defaults)
        behaviour = kept_as_read(spec.behaviour(tool), read_off(spec, tool, defaults)).model_copy(
            update={"answer": answer}
        )
        summary = f"answers {_said(text, 60)}, or its own wording when it finds nothing"
        out.append(Candidate(tool, "nothing-found", summary, behaviour,
                             confirms="a call that finds nothing is worded apart"))  # fmt: skip
    return out


@PROPOSERS.register("by-argument")
def by_argument(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """Replies worded one way per value of an argument (``format: "json"`` a record, ``"markdown"``
    a page; one sheet's table, another's): where one argument's values split a tool's accepted
    replies into groups of two or more, each with a wording of its own (learned by ``template``'s
    rule from its group alone), the tool words each case so and any other value as the most common
    case: ``{"$case": "format", "cases": {"json": T1}, "value": T}``. One argument, at most
    ``MAX_CASES`` values; an omitted argument is its declared default, else the case whose wording
    its replies take (a board's ``include_done`` omitted, answered as ``false``). Never by a
    record's id: one record's replies worded apart are that record's state at the time, memorized."""
    out = []
    for tool, pairs in evidence.pairs.items():
        accepted = [p for p in pairs if p.real_ok and p.model_ok and p.real not in (None, "", [], {})]
        if len(accepted) < 4:
            continue
        declared = default_sets(spec, tool)[0]
        props = spec.tools[tool].input_schema.get("properties") or {}
        key_arg = getattr(spec.behaviour(tool).effect, "key_arg", None)
        for arg in sorted(a for a in props if a != key_arg and tokens(a)[-1:] not in (("id",), ("uuid",))):
            groups: dict[str, list[Pair]] = {}
            for p in accepted:
                value = {**declared, **p.args}.get(arg)
                if isinstance(value, (str, int, float)):  # a flag too
                    groups.setdefault(token(value), []).append(p)
            kept = {v: g for v, g in groups.items() if len(g) >= 2}
            if not 2 <= len(kept) <= MAX_CASES:
                continue
            worded = {
                v: w[0] for v, g in kept.items() if (w := _wordings(spec, evidence, tool, g, 2, as_answered=True))
            }
            if len(worded) < 2 or len({canonical(w[0]) for w in worded.values()}) < 2:
                continue
            usual = max(worded, key=lambda v: len(kept[v]))
            # a case the usual wording words as well is none of its own (``ID: 2`` twice, read as a constant)
            worded = {v: w for v, w in worded.items()
                      if v == usual or not _words_all(worded[usual], kept[v], evidence, tool)}  # fmt: skip
            if len(worded) < 2:
                continue
            defaults = _agreed([w[1] for w in worded.values()])
            if defaults is None:
                continue  # the cases read an omitted argument otherwise: no one wording
            read_as = _omitted_as(arg, worded, usual, accepted, declared, defaults, evidence, tool)
            if read_as is not None:
                defaults = {**defaults, arg: read_as}
            template = {CASE: arg, "cases": {v: w[0] for v, w in worded.items() if v != usual},
                        "value": worded[usual][0]}  # fmt: skip
            answer = Answer(kind="template", template=template, defaults=defaults)
            read = read_off(spec, tool, {k: v for k, v in defaults.items() if k != arg})
            behaviour = kept_as_read(spec.behaviour(tool), read).model_copy(update={"answer": answer})
            shown = ", ".join(sorted(worded))[:60]
            out.append(Candidate(tool, "by-argument", f"words its replies by {arg} ({shown})", behaviour,
                                 confirms=f"each value of {arg} answers its own wording"))  # fmt: skip
    return out


def _words_all(wording: tuple[Any, ...], pairs: list[Pair], evidence: Evidence, tool: str) -> bool:
    """Whether ``wording`` (a template and what omitted arguments stand for) words every reply of
    ``pairs`` exactly as the real side did."""
    template, reading = wording[0], wording[1]
    return all(
        steady(evidence, tool, fill(template, p.args, p.out, reading, p.raw, _holding(p.state)))
        == steady(evidence, tool, p.real)
        for p in pairs
    )


def _omitted_as(arg: str, worded: dict[str, tuple[Any, ...]], usual: str, accepted: list[Pair], declared: JSON,
                defaults: JSON, evidence: Evidence, tool: str) -> Any:  # fmt: skip
    """Where ``arg`` was omitted in accepted calls and nothing says what that stands for: the value
    of the case whose wording those replies take (leaf by leaf) more than the usual case's, else ``None``."""
    omitted = [p for p in accepted if arg not in {**declared, **p.args}]
    if not omitted or arg in defaults:
        return None
    typed = {token(v): v for p in accepted if isinstance(v := {**declared, **p.args}.get(arg), (str, int, float))}

    def likeness(case: str) -> float:
        given = {**defaults, arg: typed[case]}
        worded_so = [fill(worded[case][0], p.args, p.out, given, p.raw, _holding(p.state)) for p in omitted]
        return sum(
            leaf_share(steady(evidence, tool, opened_text(p.real)), w) for p, w in zip(omitted, worded_so, strict=True)
        )

    like = {case: likeness(case) for case in worded}
    best = max(sorted(like), key=lambda case: like[case])
    return typed[best] if like[best] > like[usual] else None


def _agreed(sets: list[JSON]) -> JSON | None:
    """What omitted arguments stand for, read alike by every wording's ``sets`` (merged), else ``None``."""
    merged: JSON = {}
    for given in sets:
        if any(k in merged and merged[k] != v for k, v in given.items()):
            return None
        merged.update(given)
    return merged


MAX_CASES = 8  # values of one argument worded apart, at most


def _wordings(spec: EnvSpec, evidence: Evidence, tool: str, pairs: list[Pair], least: int, *,
              as_answered: bool = False, leaves_too: bool = False) -> list[tuple[Any, JSON, str]]:  # fmt: skip
    """The wordings a tool's accepted replies share (each of at least ``least`` of them), with what
    its omitted arguments stand for: the one that words most replies as they came (then most of
    their leaves); none where it words neither most replies, nor more of their leaves than the
    model's own answers do, nor where it is the model's own answer already — unless
    ``as_answered`` (one case of a wording by an argument: ``No tasks`` for ``todo: true``, which
    the model may answer already while another case's wording is new). ``leaves_too``: the one
    wording most of their leaves as well, after it, where that is another (a tally by group worded
    right on most replies, exact on a few less while the model holds a record too many): the
    chooser weighs the two."""
    answered = [p for p in pairs if p.real_ok and p.real not in (None, "", [], {})]  # an empty reply words nothing
    seen = [p for p in answered if p.model_ok]
    if len(seen) < least or len(seen) * 2 < len(answered):
        return []
    reals = [steady(evidence, tool, p.real) for p in seen]  # a stamp does not tell replies apart
    model_share = sum(leaf_share(r, p.model) for p, r in zip(seen, reals, strict=True)) / len(seen)
    first_model = _first_model(seen)
    # the final state's reads, kept apart (``Evidence.at_end``): they only vote on the marks a ``$case``
    # words each value by — after every write, they show the statuses the calls in between rarely do
    late = [p for p in evidence.at_end.get(tool, ()) if p.real_ok and p.model_ok and p.real not in (None, "", [], {})]
    # (replies worded exactly, share of their leaves worded right), replies sharing it, and the wording
    tried: dict[str, tuple[tuple[int, float], int, Any, JSON]] = {}
    for defaults in default_sets(spec, tool):  # declared defaults; absent flags read as false or true
        given = [{**defaults, **p.args} for p in seen]
        each = [template_of(r, a, p.out, p.raw, p.state) for p, r, a in zip(seen, reals, given, strict=True)]
        made = Counter(canonical(t) for t in each)
        # the wordings most replies share, and one of them all with the members a flag adds: a reply
        # of one record cannot tell a list newest first from one as written
        options = made.most_common(WORDINGS_TRIED)
        flagged = flagged_members(each, given)
        if flagged is not None and canonical(flagged) not in made:
            options.append((canonical(flagged), len(seen)))
        # each reply worded by place first: an edit answering the record it left, given some fields only
        placed = Counter(canonical(template_of(r, a, p.out, p.raw, p.state, by_place=True))
                         for p, r, a in zip(seen, reals, given, strict=True))  # fmt: skip
        by_place = placed.most_common(1)[0]
        if by_place[0] not in made:
            options.append(by_place)
        united = united_lines([orjson.loads(t) for t, _ in made.most_common()])
        if united is not None and canonical(united) not in made:
            options.append((canonical(united), len(seen)))
        # objects the most common wordings word alike but for a member or two: each member as most
        # replies show it (a count from one wording, a tally by group from another)
        membered = _member_united([orjson.loads(t) for t, _ in options], seen, reals, defaults)
        if membered is not None and canonical(membered) not in made:
            options.append((canonical(membered), len(seen)))
        # the replies' marks, united: one showed a done task, another a cancelled one
        marks = [template_of(steady(evidence, tool, p.real), {**defaults, **p.args}, p.out, p.raw, p.state)
                 for p in late]  # fmt: skip
        cased = united_cases(each + marks)
        if cased is not None and canonical(cased) not in made:  # tried first where the final reads told
            options.insert(0 if marks else len(options), (canonical(cased), len(seen)))  # more: it wins a tie
        # replies each worded their own way (``Mood: {arg.mood}`` where a mood was given, ``Mood: not
        # specified`` where not), none shared: the one filling most arguments may word them all, what
        # its omitted ones stood for read off the rest, where it words most of them exactly
        most = max(made, key=lambda t: (len(argument_slots(orjson.loads(t))), made[t]))
        fullest = most if max(made.values()) < least and argument_slots(orjson.loads(most)) else None
        if fullest is not None:
            options.append((fullest, len(seen)))
        for text, count in options:
            shaped = orjson.loads(text)
            if count < least or (shaped == first_model and not as_answered):
                continue
            read = omitted_read(shaped, each, given, spec.tools[tool].input_schema)
            for reading in (defaults, {**defaults, **read}) if read else (defaults,):
                filled = [steady(evidence, tool, fill(shaped, p.args, p.out, reading, p.raw, _holding(p.state)))
                          for p in seen]  # fmt: skip
                fits = (
                    sum(f == r for f, r in zip(filled, reals, strict=True)),
                    sum(leaf_share(r, f) for f, r in zip(filled, reals, strict=True)) / len(seen),
                )
                if fits[0] * 2 < len(seen) and (fits[1] <= max(0.5, model_share) or text == fullest):
                    # the fullest of wordings each seen once must word most replies exactly
                    continue
                if text not in tried or fits > tried[text][0]:
                    tried[text] = (fits, count, shaped, reading)
    if not tried:
        return []
    best = max(tried, key=lambda t: tried[t][0])  # the first of equals
    leafy = max(tried, key=lambda t: tried[t][0][1])
    chosen = [best, leafy] if leaves_too and tried[leafy][0][1] > tried[best][0][1] else [best]
    return [(unmasked(tried[t][2], seen[0].real), tried[t][3], t) for t in chosen]


WORDINGS_TRIED = 3  # of a tool's most common wordings, the one that fits most replies is taken


def _member_united(wordings: list[Any], seen: list[Pair], reals: list[Any], defaults: JSON) -> JSON | None:
    """Of wordings that are objects of the same members (two at least), one whose every member is
    worded as the one of them that words it right on most of ``seen``'s replies (the first, the
    most common, of equals); ``None`` where that is one of them already."""
    if len(wordings) < 2 or not all(isinstance(w, dict) for w in wordings) or \
            any(set(w) != set(wordings[0]) for w in wordings):  # fmt: skip
        return None
    held = [_holding(p.state) for p in seen]

    def right(member: str, worded: Any) -> int:
        return sum(isinstance(r, dict) and fill(worded, p.args, p.out, defaults, p.raw, h) == r.get(member)
                   for p, r, h in zip(seen, reals, held, strict=True))  # fmt: skip

    united: JSON = {}
    for member in wordings[0]:
        options = list({canonical(w[member]): w[member] for w in wordings}.values())
        united[member] = options[0] if len(options) == 1 else max(options, key=lambda o: right(member, o))
    return None if united in wordings else united


def _holding(state: dict[str, list[JSON]]) -> Any:
    """A state as :func:`fill` reads it (records by entity) from the rows a pair kept."""
    return lambda entity: state.get(entity, ())


def _slotted(template: Any) -> bool:
    """Whether a template fills anything in (a slot), rather than answering one fixed reply."""
    return any(isinstance(v, str) and "{" in v for _, v in leaves(template)) or template in ("{out}", "{raw}")


def _style(template: Any) -> str:
    """A wording's shape with its member names left out: what its members hold, every slot alike
    (``{"success": true, "x_id": "{out.id}"}`` is ``{{slot},true}`` whatever ``x_id`` is named and
    whichever side fills it)."""
    if isinstance(template, dict):
        return "{" + ",".join(sorted(_style(v) for v in template.values())) + "}"
    if isinstance(template, list):
        return "[" + ",".join(_style(v) for v in template) + "]"
    if isinstance(template, str) and template.startswith("{") and template.endswith("}"):
        return "{slot}"
    return canonical(template)


MAX_TALLIED_ROWS = 5000  # an entity this large is not counted call by call


MAX_CATEGORIES = 12  # a field with more distinct values than this is not a category to count by


def state_tallies(spec: EnvSpec, store: Any) -> dict[str, int]:
    """Every count a reply might state, by its slot: each entity's records (``{count:todo}``), and
    for each categorical field — a flag, an enum, a field of a few values — the records holding
    each value (``{count:todo.completed=false}``; a flag's and an enum's other values count zero)
    and those holding another (``{count:task.status!=done}``)."""
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
                out[f"{{count:{entity.name}.{name}!={value}}}"] = len(rows) - held.get(value, 0)
    return out


MAX_HELD_ROWS = 50  # an entity this large is not offered to replies as a list they might word


def state_rows(spec: EnvSpec, store: Any) -> dict[str, list[JSON]]:
    """The records the model holds, by entity (those of at most :data:`MAX_HELD_ROWS`), as the
    store holds them: a reply listing records may word the state itself (a board grouped by status)."""
    out = {}
    for entity in spec.state_schema.entities:
        if entity.key == SINGLETON_KEY:
            continue
        rows = list(itertools.islice(store.rows(entity.name), MAX_HELD_ROWS + 1))
        if rows and len(rows) <= MAX_HELD_ROWS:
            out[entity.name] = rows
    return out


@PROPOSERS.register("counts")
def state_counts(spec: EnvSpec, evidence: Evidence) -> list[Candidate]:
    """Numbers in a reply that are counts of the state (``{"total_todos": 3, "completed_todos": 1}``):
    an integer the real side answered at one place, equal on every accepted call to how many records
    of one kind the model then held (of all, or of those with a value), and not always zero. The
    reply keeps its wording (the tool's template, else the last real reply's) with those places
    counted (a list's, the envelope its rows come in); the simplest count explaining a place is taken.
    Never a key (``id``, ``task_id``) nor a value every call gave: it names or echoes, it counts nothing."""
    out = []
    for tool, pairs in evidence.pairs.items():
        seen = [p for p in pairs if p.real_ok and p.tallies and isinstance(opened_text(p.real), dict)]
        if len(seen) < 2:
            continue
        places: dict[str, str] = {}
        read = getattr(spec.behaviour(tool).effect, "entity", None)
        for path, _ in leaves(opened_text(seen[-1].real)):
            values = [leaf_or_none(opened_text(p.real), path) for p in seen]
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                continue
            if tokens(path.rpartition(".")[2])[-1:] == ("id",) or all(
                v in p.given.values() for p, v in zip(seen, values, strict=True)
            ):
                continue  # a key names a record, and a value the call gave echoes it: neither counts anything
            slots = dict.fromkeys(slot for p in seen for slot in p.tallies)
            hits = {slot: sum(_tallied(p.tallies, slot) == v for p, v in zip(seen, values, strict=True))
                    for slot in slots}  # fmt: skip
            fits = [slot for slot in slots if hits[slot] == len(seen)]
            # a place named after the value it counts (``todo_count``, ``inProgressTasks``) counts that
            # value, though it was zero on every call, or another count was equal on every call — of the
            # records the tool reads, where several kinds hold such a value; and though the model held
            # that value wrong at a few calls (another tool's change it does not make yet), which a
            # count of something else may happen to fit
            near = [slot for slot in slots if hits[slot] * 4 >= len(seen) * 3 and _names_value(path, slot)]
            named = min(near, default=None, key=lambda slot: (-hits[slot], not slot.startswith(f"{{count:{read}.")))
            if named is not None:
                places[path] = named
            elif fits and any(values):
                places[path] = min(fits, key=lambda slot: (slot.count("="), len(slot), slot))
        if not places:
            continue
        behaviour = spec.behaviour(tool)
        current = behaviour.answer
        base = current.template if current is not None and current.kind == "template" else None
        last = seen[-1]
        wrapped = None
        if not isinstance(base, dict) and behaviour.effect.kind == "list":
            wrapped = envelope(evidence, tool, default_sets(spec, tool))
        wrapped_answer = None
        if isinstance(base, dict):
            template = base
        elif wrapped is not None:  # a list's rows in the envelope they come in, not its first reply's rows
            template = wrapped[0]
            wrapped_answer = Answer(kind="template", template=template, defaults=wrapped[1])
            behaviour = behaviour.model_copy(update={"effect": behaviour.effect.model_copy(update={"every": True})})
        else:
            template = template_of(opened_text(last.real), last.args, last.out, last.raw, last.state)
        if not isinstance(template, dict):
            continue
        for path, slot in places.items():
            template = _placed(template, path, slot)
        options = [d.defaults for d in (wrapped_answer, current) if d is not None] + default_sets(spec, tool)
        defaults = max(options, key=lambda d: _fitting(template, d, seen, evidence, tool))  # the first of equals
        answer = Answer(kind="template", template=template, defaults=defaults)
        behaviour = behaviour.model_copy(update={"answer": answer})
        shown = ", ".join(f"{p} = {s}" for p, s in sorted(places.items()))
        # onto the tool's own template it only puts counts where literals were: a number equal to how
        # many records there were on every call is better told as that count, on a tie too
        out.append(Candidate(tool, "counts", f"counts {shown[:100]}", behaviour,
                             confirms="every accepted call states these counts of the state",
                             explains=isinstance(base, dict)))  # fmt: skip
    return out


_COUNTED_VALUE = re.compile(r"\{count:[^.=!]+\.[^.=!]+=([^}]+)\}")


def _names_value(path: str, slot: str) -> bool:
    """Whether a reply place's own name (its last member) names the value ``slot`` counts records
    holding: ``stats.todo_count`` and ``{count:task.status=todo}``, ``in_progress_tasks`` and
    ``{count:task.status=in_progress}``; a flag's ``true``/``false`` is named by no place."""
    counted = _COUNTED_VALUE.fullmatch(slot)
    if counted is None or counted.group(1) in ("true", "false") or "[" in path:
        return False
    said, entity = tokens(counted.group(1)), tokens(slot[len("{count:") :].split(".")[0])
    name = tokens(path.split(".")[-1])
    rest = [w for i, w in enumerate(name) if not _at(name, said, i)]
    if len(rest) == len(name) or not said:
        return False  # the value is not named
    # what else the name says is that it counts (``todo_count``, ``total_done``) or what (``done_tasks``)
    return bool(rest) and all(w in _COUNTING or w.rstrip("s") in entity or w in entity for w in rest)


_COUNTING = frozenset({"count", "counts", "total", "num", "number", "n", "of"})


def _at(name: Sequence[str], said: Sequence[str], i: int) -> bool:
    """Whether ``said`` stands in ``name`` over the word at ``i``."""
    return any(name[j : j + len(said)] == said and j <= i < j + len(said) for j in range(len(name)))


def _tallied(tallies: dict[str, int], slot: str) -> int | None:
    """A count as ``tallies`` hold it; where a value was held by no record then, none (``=``) or
    every record (``!=``) of the entity."""
    if slot in tallies:
        return tallies[slot]
    counted = TALLY.fullmatch(slot)
    if counted is None or counted.group(2) is None:
        return None
    return tallies.get(f"{{count:{counted.group(1)}}}") if counted.group(3) == "!" else 0


def _fitting(template: JSON, defaults: JSON, seen: list[Pair], evidence: Evidence, tool: str) -> int:
    """How many of ``seen`` ``template`` words as the real side did, its omitted arguments standing
    for ``defaults`` and its counts what the model held after the call."""
    fits = 0
    for p in seen:
        filled = fill(template, p.args, p.out, defaults, p.raw, _holding(p.state))
        counted = _counted_as(template, filled, p.tallies)
        fits += counted is not None and counted == steady(evidence, tool, opened_text(p.real))
    return fits


def _counted_as(template: Any, filled: Any, tallies: dict[str, int]) -> Any:
    """``filled`` with every ``{count:...}`` place of ``template`` holding the model's tally there."""
    if filled is None:
        return None
    if isinstance(template, str) and (counted := _tallied(tallies, template)) is not None:
        return counted
    if isinstance(template, dict) and isinstance(filled, dict):
        return {k: _counted_as(v, filled.get(k), tallies) for k, v in template.items()}
    return filled


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
    for tool in evidence.pairs:
        if spec.behaviour(tool).effect.kind != "list":
            continue
        bare = _bare(evidence.pairs[tool])
        if bare is not None:  # the real side answers the list itself where the model wraps it
            answer = Answer(kind="template", template=f"{{out.{bare}}}")
            out.append(Candidate(tool, "list-envelope", "answers its rows bare, no envelope",
                                 spec.behaviour(tool).model_copy(update={"answer": answer}),
                                 confirms="every list answers a bare list, empty or not"))  # fmt: skip
            continue
        found = envelope(evidence, tool, default_sets(spec, tool))
        if found is None:
            continue
        template, defaults = found
        behaviour = spec.behaviour(tool)
        every = behaviour.effect.model_copy(update={"every": True})
        # the rows as the model holds them, and as the real rows hold them: told apart by the proposer's
        # name, so a fold's fit is matched with its own kind whatever fields the fold's rows held
        for proposer, worded in (("list-envelope", template),
                                 ("list-fields", _projecting(template, evidence.pairs[tool]))):  # fmt: skip
            if worded is None:
                continue
            answer = Answer(kind="template", template=worded, defaults=defaults)
            out.append(Candidate(tool, proposer, f"answers its rows as {canonical(worded)[:80]}",
                                 behaviour.model_copy(update={"answer": answer, "effect": every}),
                                 confirms="every list answers its rows inside this envelope"))  # fmt: skip
    return out


def _projecting(template: Any, pairs: list[Pair]) -> Any:
    """``template`` with its rows answered with the fields the real side's rows held there — those
    every row held (null where the model's row lacks one), then those some held —, or ``None`` where
    the real rows held nothing to tell by."""
    member = next((k for k, v in template.items() if v == ROWS), None) if isinstance(template, dict) else None
    if member is None:
        return None
    replies = [opened_text(p.real) for p in pairs if p.real_ok]
    rows = [r for real in replies if isinstance(real, dict) and isinstance(real.get(member), list)
            for r in real[member] if isinstance(r, dict)]  # fmt: skip
    if len(rows) < 2:
        return None
    seen = list(dict.fromkeys(k for r in rows for k in r))
    always = [k for k in seen if all(k in r for r in rows)]
    also = [k for k in seen if k not in always]
    # only where the model's rows hold other fields than those (else both wordings answer the same)
    mine = [r for p in pairs if p.model_ok and isinstance(p.raw, list) for r in p.raw if isinstance(r, dict)]
    if not any(projected(r, always, also) != r for r in mine):
        return None
    return {**template, member: {PROJECTED: always, "also": also} if also else {PROJECTED: always}}


def _bare(pairs: list[Pair]) -> str | None:
    """The member the model wraps its rows in (``{"matching_tweets": [...]}``) where every reply the
    real side accepted, two or more, was a bare list (empty ones too: a search that found nothing)."""
    both = [p for p in pairs if p.real_ok and p.model_ok]
    if len(both) < 2 or not all(isinstance(p.real, list) for p in both):
        return None
    models = [p.model for p in both]
    if not all(isinstance(m, dict) and len(m) == 1 and isinstance(next(iter(m.values())), list) for m in models):
        return None
    keys = {next(iter(m)) for m in models}
    return keys.pop() if len(keys) == 1 else None


def _first_model(pairs: list[Pair]) -> Any:
    return pairs[0].model


__all__ = ["list_envelopes", "reply_templates", "state_counts", "state_tallies"]

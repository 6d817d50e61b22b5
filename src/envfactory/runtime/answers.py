"""Learned answers (:class:`envfactory.ir.choice.Answer`) around a tool's executor.

The effect still runs (a create still creates); only the reply is worded as the real
implementation words it: a template filled from the arguments and the tool's own answer, or the
reply recorded for the same arguments. A slot that cannot be filled, or arguments never recorded,
leave the tool's own answer as it was — in a text of several lines, the line holding that slot is
left out instead, while another line holding a slot fills.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from envfactory.ir.choice import Answer, ArgCheck
from envfactory.runtime.result import ToolError
from envfactory.runtime.stated import meets

JSON = dict[str, Any]
Executor = Callable[[Any, JSON], Any]
# ``{out}`` alone: the tool's whole answer; ``{raw.PATH}``: what its effect produced before shaping;
# ``{item.PATH}``: inside an ``EACH`` template, the record it is worded for
SLOT = re.compile(r"\{(arg|out|raw|item)(?:\.([^{}]+))?\}")
# ``{"$each": "out.todos", "item": TEMPLATE}``: the list at that place, each record worded by TEMPLATE;
# ``{"$each": "state.task", "where": {"status": "todo"}, "order": "newest", "item": T}``: the records
# the state holds of an entity (those whose fields are the ``where`` values, slots filled), as
# written or newest first
EACH = "$each"
NEWEST = "newest"
# ``{"$each": "state.project", "distinct": "tag", "order": "sorted", "item": T}``: the values the records
# hold in one field (each value of a list there apart), each once, as records ``{tag: VALUE}`` — the
# tags, the projects that records name —, in the order first held or sorted; with ``"counted": true``,
# ``{tag: VALUE, "$count": N}``, N the records holding it (``[{"area": "ui", "count": 2}]``, a tally by group)
DISTINCT, SORTED, COUNTED, HOLDING = "distinct", "sorted", "counted", "$count"
# ``{arg.tags|, }``: the list at that place, its values written one after another with ``, `` between
# (``Tags: raise, town``); a value there that is no list, as it is
JOINED = "|"
# ``{arg.amount:,.0f}``: the number at that place as a text writes it — rounded, with thousands
# separators, two decimals (``₹1,235`` of 1234.5) —, one of ``NUMBER_FORMATS`` (Python's format specs)
FORMATTED = ":"
NUMBER_FORMATS = (",.0f", ".0f", ",.2f", ".2f")  # with separators first: 124 is both
# ``{"$each": ..., "item": T, "join": "\n", "head": H, "tail": Z}``: the worded records as one text, ``H``
# then the items joined then ``Z`` (in ``H`` and ``Z``, ``{count}`` is how many records it words)
# ``{"$when": "{arg.include_done}", "value": T}`` as an object's member: there only when the slot is true;
# with ``"given": true`` (``{"$when": "{arg.stack}", "given": true, "value": "{arg.stack}"}``), only when
# the slot fills with something other than null: a filter echoed where the call gave it
WHEN = "$when"
# ``{"$none": T0, "value": T}``: worded by T0 where the list's effect found nothing ("No tasks
# matching ..."), or a read accepting a key nobody holds found no record ("No task with ID ..."), else by T
NONE = "$none"
# ``{"$case": "format", "cases": {"json": T1}, "value": T}``: worded by the case the argument's value
# (as :func:`token` writes it; an omitted one by its default, else as null) names, else by T; ``"$case":
# "{item.status}"``: by the value that slot holds (a record's status worded by a mark of its own; a
# field the record lacks reads as null)
CASE = "$case"
# ``{"$parts": [T1, T2, ...]}``: the pieces filled and written one after another as one text (a list's
# line whose mark is a ``$case`` on the record's status, and whose `` (...)`` is there only where the
# record holds a description: ``{"$case": "{item.description}", "cases": {"null": ""}, "value": " (...)"}``)
PARTS = "$parts"
# the rows a list's effect found, before shaping cut them to what the output schema declares, and how many
ROWS, COUNT = "{rows}", "{count}"
# in an ``EACH`` template's head or tail, the total of a number field over the records it words, as
# it is or formatted: ``Total: ₹{sum.amount:.0f}``
SUMMED = re.compile(r"\{sum\.([A-Za-z_][\w]*)(?::([^{}]+))?\}")
# ``{"$rows": [F, ...], "also": [G, ...]}``: those rows each holding the fields F, null where a row lacks
# one, then those of G it holds, and nothing else (the fields the real side answers its records with)
PROJECTED = "$rows"
# how many records the state holds after the call: ``{count:todo}``, ``{count:todo.completed=false}``,
# ``{count:task.status!=done}``
TALLY = re.compile(r"\{count:([^{}.=!]+)(?:\.([^{}=!]+)(!?)=([^{}]*))?\}")
State = Callable[[str], Iterable[JSON]]
REFUSED = "$refused"  # a recorded reply that was a refusal: {"$refused": message}


def args_key(args: JSON) -> str:
    """The canonical text of a call's arguments (the key of a recorded reply)."""
    return orjson.dumps(args, option=orjson.OPT_SORT_KEYS).decode()


def leaf(value: Any, path: str) -> Any:
    """``value`` at a dotted path with ``[i]`` indexes (``items[0].id``); ``KeyError`` when absent."""
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", path):
        if part.startswith("["):
            index = int(part[1:-1])
            if not isinstance(value, list) or index >= len(value):
                raise KeyError(path)
            value = value[index]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise KeyError(path)
    return value


def leaf_or_none(value: Any, path: str) -> Any:
    """:func:`leaf`, ``None`` where the path holds nothing."""
    try:
        return leaf(value, path)
    except KeyError:
        return None


_MISSING = object()


def fill(template: Any, args: JSON, out: Any, defaults: JSON | None = None, rows: Any = None,
         state: State | None = None) -> Any:  # fmt: skip
    """``template`` with its slots filled (a string that is one slot alone takes the value itself;
    an argument not given takes its declared default; ``rows`` is what the effect produced before
    shaping: ``{raw.PATH}`` inside it, ``{rows}`` and ``{count}`` the rows a list found and how
    many; ``{"$none": T0, "value": T}`` worded by ``T0`` where it found none, else by ``T``;
    ``{"$case": ARG, "cases": {VALUE: T1}, "value": T}`` by the case the argument's value names;
    ``{"$each": "out.PATH", "item": T}`` the list there, each record worded by ``T`` (whose
    ``{item.PATH}`` slots it fills); ``{count:ENTITY}`` and ``{count:ENTITY.FIELD=VALUE}`` how many
    records ``state`` holds, of every one or of those whose field is that value), or ``None`` when a
    slot cannot be filled."""
    value = _filled(template, {**(defaults or {}), **args}, out, rows, state)
    return None if value is _MISSING else value


def token(value: Any) -> str:
    """A field's value as a ``{count:ENTITY.FIELD=VALUE}`` slot writes it (text as it is, else JSON)."""
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def tally(state: State, entity: str, field: str | None = None, value: str | None = None, unlike: bool = False) -> int:
    """How many records of ``entity`` ``state`` holds (whose ``field`` is ``value``, as :func:`token`
    writes it; ``unlike``: is not)."""
    rows = state(entity)
    if field is None:
        return sum(1 for _ in rows)
    return sum(1 for r in rows if (token(r.get(field)) == value) != unlike)


def _filled(template: Any, args: JSON, out: Any, rows: Any = None, state: State | None = None,
            item: Any = None) -> Any:  # fmt: skip
    sources = {"arg": args, "out": out, "raw": rows, "item": item}
    if isinstance(template, dict) and isinstance(template.get(CASE), str):
        by = template[CASE]
        given = _filled(by, args, out, rows, state, item) if SLOT.fullmatch(by) else args.get(by, _MISSING)
        cases = template.get("cases") or {}
        chosen = cases.get(token(None if given is _MISSING else given))  # what a record lacks reads as null
        return _filled(template.get("value") if chosen is None else chosen, args, out, rows, state, item)
    if isinstance(template, dict) and isinstance(template.get(PARTS), list):
        pieces = [_filled(piece, args, out, rows, state, item) for piece in template[PARTS]]
        return _MISSING if any(v is _MISSING for v in pieces) else "".join(_text(v) for v in pieces)
    if isinstance(template, dict) and NONE in template:
        found = rows if isinstance(rows, list) else out
        # no rows, or no record: a read accepting a key nobody holds found ``{}`` (``missing_accepted``)
        nothing = (isinstance(found, list) and not found) or rows == {}
        return _filled(template[NONE] if nothing else template.get("value"), args, out, rows, state, item)
    if isinstance(template, dict) and WHEN in template:
        return _filled(template.get("value"), args, out, rows, state, item)
    if isinstance(template, dict) and isinstance(template.get(PROJECTED), list):
        if not isinstance(rows, list):
            return _MISSING
        return [projected(r, template[PROJECTED], template.get("also") or ()) for r in rows]
    if isinstance(template, dict) and isinstance(template.get(EACH), str):
        head, _, path = template[EACH].partition(".")
        if head == "state":
            records = _held(template, path, args, state)
        else:
            try:
                records = leaf(sources.get(head), path)
            except KeyError:
                return _MISSING
        if not isinstance(records, list):
            return _MISSING
        values = [_filled(template.get("item"), args, out, rows, state, record) for record in records]
        if any(v is _MISSING for v in values):
            return _MISSING
        if isinstance(template.get("join"), str):
            return _joined(template, values, args, out, rows, state, item, records)
        return values
    if isinstance(template, dict):
        items = {k: _filled(v, args, out, rows, state, item) for k, v in template.items()
                 if not _left_out(v, args, out, rows, state, item)}  # fmt: skip
        return _MISSING if any(v is _MISSING for v in items.values()) else items
    if isinstance(template, list):
        values = [_filled(v, args, out, rows, state, item) for v in template]
        return _MISSING if any(v is _MISSING for v in values) else values
    if not isinstance(template, str):
        return template
    counted = TALLY.fullmatch(template)
    if counted:
        if state is None:
            return _MISSING
        try:
            return tally(state, counted.group(1), counted.group(2), counted.group(4), counted.group(3) == "!")
        except KeyError:  # an entity the state does not hold
            return _MISSING
    if template in (ROWS, COUNT):
        if not isinstance(rows, list):
            return _MISSING
        return rows if template == ROWS else len(rows)
    try:
        whole = SLOT.fullmatch(template)
        if whole:
            return _slot_value(sources[whole.group(1)], whole.group(2) or "")
        return _substituted(template, sources)
    except KeyError:
        return _lines_kept(template, sources) if "\n" in template else _MISSING


def _substituted(text: str, sources: JSON) -> str:
    """``text`` with every slot in it written as the value it names (``KeyError`` where one names nothing)."""
    return SLOT.sub(lambda m: _text(_slot_value(sources[m.group(1)], m.group(2) or "")), text)


def _slot_value(source: Any, path: str) -> Any:
    """What a slot's path names in ``source`` (:func:`leaf`); a joined slot (``tags|, ``) the list
    there as one text, its values with the separator between them; a formatted one (``amount:.0f``)
    the number there as the format writes it."""
    place, joined, between = path.partition(JOINED)
    place, formatted, spec = place.partition(FORMATTED)
    value = leaf(source, place)
    if formatted:
        if spec not in NUMBER_FORMATS or not isinstance(value, (int, float)) or isinstance(value, bool):
            raise KeyError(path)  # a format that writes no such value: the slot names nothing
        return format(value, spec)
    if joined and isinstance(value, list):
        return between.join(_text(v) for v in value)
    return value


def _lines_kept(template: str, sources: JSON) -> Any:
    """A text of several lines whose slots do not all fill: the lines whose slots fill, a line naming
    what the record does not hold left out (``Due: {out.due}`` of a task given no due date), or
    unfilled where no line holding a slot fills."""
    kept, filled = [], 0
    for line in template.split("\n"):
        try:
            kept.append(_substituted(line, sources))
        except KeyError:
            continue
        filled += SLOT.search(line) is not None
    return "\n".join(kept) if filled else _MISSING


def _joined(template: JSON, values: list[Any], args: JSON, out: Any, rows: Any, state: State | None,
            item: Any, records: list[Any]) -> Any:  # fmt: skip
    """An ``EACH`` template's worded records as one text, between its head and its tail (where
    ``{count}`` is how many, ``{sum.FIELD}`` their total)."""
    ends = []
    for end in (template.get("head", ""), template.get("tail", "")):
        if isinstance(end, str):
            end = summed(end.replace(COUNT, str(len(values))), records)
        filled = _MISSING if end is None else _filled(end, args, out, rows, state, item)
        if filled is _MISSING:
            return _MISSING
        ends.append(_text(filled))
    return ends[0] + template["join"].join(_text(v) for v in values) + ends[1]


def total(records: Iterable[Any], field: str) -> int | float | None:
    """The sum of ``field`` over ``records`` where every one holds a number there (none: 0), else ``None``."""
    values = [r.get(field) if isinstance(r, dict) else None for r in records]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return None
    return sum(values)  # type: ignore[arg-type]


def summed(text: str, records: list[Any]) -> str | None:
    """``text`` with each ``{sum.FIELD}`` (``{sum.FIELD:SPEC}``) written as the records' :func:`total`
    there (formatted by ``SPEC``, one of ``NUMBER_FORMATS``); ``None`` where one cannot be."""
    missing = False

    def written(m: re.Match[str]) -> str:
        nonlocal missing
        value, spec = total(records, m.group(1)), m.group(2)
        if value is None or (spec is not None and spec not in NUMBER_FORMATS):
            missing = True
            return ""
        return format(value, spec) if spec else _text(value)

    out = SUMMED.sub(written, text)
    return None if missing else out


def projected(row: Any, always: Iterable[str], also: Iterable[str] = ()) -> Any:
    """A record holding the fields ``always`` (null where it lacks one) and those of ``also`` it holds."""
    if not isinstance(row, dict):
        return row
    out = {f: row.get(f) for f in always}
    out.update({f: row[f] for f in also if f in row})
    return out


def _left_out(template: Any, args: JSON, out: Any, rows: Any, state: State | None, item: Any) -> bool:
    """Whether a member is a ``WHEN`` one whose slot is not true (or cannot be filled; with ``given``,
    whose slot fills with nothing or null)."""
    if not isinstance(template, dict) or WHEN not in template:
        return False
    value = _filled(template[WHEN], args, out, rows, state, item)
    return value in (_MISSING, None) if template.get("given") is True else value is not True


def _held(template: JSON, entity: str, args: JSON, state: State | None) -> list[JSON] | object:
    """The records ``state`` holds of ``entity`` that an ``EACH`` template over the state words: those
    whose fields are its ``where`` values (slots filled from the arguments), as written or newest first."""
    if state is None:
        return _MISSING
    where = _filled(template.get("where") or {}, args, None)
    if not isinstance(where, dict):
        return _MISSING
    wanted = {k: token(v) for k, v in where.items()}
    try:
        held = [r for r in state(entity) if all(token(r.get(k)) == v for k, v in wanted.items())]
    except KeyError:  # an entity the state does not hold
        return _MISSING
    held = held[::-1] if template.get("order") == NEWEST else held
    by = template.get(DISTINCT)
    if not isinstance(by, str):
        return held
    return distinct(held, by, sort=template.get("order") == SORTED, counted=template.get(COUNTED) is True)


def distinct(records: Iterable[JSON], field: str, *, sort: bool = False, counted: bool = False) -> list[JSON]:
    """The values ``records`` hold in ``field`` — each value of a list there apart —, each once, as
    records ``{field: value}``: in the order first held, or sorted (as :func:`token` writes them);
    ``counted``: with how many records hold each, ``{field: value, "$count": n}``."""
    seen: dict[str, Any] = {}
    holding: Counter[str] = Counter()
    for record in records:
        value = record.get(field)
        held = {token(one): one for one in (value if isinstance(value, list) else [value])
                if one is not None and not isinstance(one, (dict, list))}  # fmt: skip
        holding.update(held.keys())
        for key, one in held.items():
            seen.setdefault(key, one)
    keys = sorted(seen) if sort else list(seen)
    return [{field: seen[k], HOLDING: holding[k]} if counted else {field: seen[k]} for k in keys]


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return orjson.dumps(value).decode() if isinstance(value, (dict, list)) else str(value)


def opened_text(value: Any) -> Any:
    """A reply that is JSON written as text (a record where the output schema says string), parsed."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def shape_of(value: Any) -> str:
    """A value's shape: its type, for a flag its value (``confirm: true`` where only that is
    accepted), for a number whether it is whole, for a text its runs of capitals, small letters,
    digits and other characters (``"P2"`` is ``A9``, ``"2026-12-01"`` is ``9-9-9``); checks learned
    from the real implementation compare shapes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return "int" if float(value).is_integer() else "fraction"
    if not isinstance(value, str):
        return type(value).__name__
    classes = ["A" if c.isupper() else "a" if c.islower() else "9" if c.isdigit() else c for c in value[:64]]
    return "".join(c for i, c in enumerate(classes) if i == 0 or c != classes[i - 1]) or "empty"


def _shape(value: Any, shapes: tuple[str, ...]) -> str:
    """``shape_of(value)``; a flag is ``bool`` to a check saved before flags had a value as shape."""
    shape = shape_of(value)
    return "bool" if isinstance(value, bool) and "bool" in shapes else shape


def checked(checks: tuple[ArgCheck, ...], execute: Executor) -> Executor:
    """``execute`` behind the argument checks: a value of an unseen shape, or not as a refusal stated, is
    refused before anything runs."""

    def run(ctx: Any, args: JSON) -> Any:
        for check in checks:
            if check.arg not in args:
                continue
            if check.stated:
                if not meets(args[check.arg], check.stated):
                    raise ToolError("invalid_arguments", check.message)
                continue
            shape = _shape(args[check.arg], check.shapes)
            if (shape in check.refused if check.refused else shape not in check.shapes) or (
                check.values and token(args[check.arg]) not in check.values
            ):
                raise ToolError("invalid_arguments", check.message)
        return execute(ctx, args)

    return run


def missing_accepted(execute: Executor) -> Executor:
    """``execute``, answering nothing where it refuses a record nobody holds (``not_found``): the call
    is accepted and changes nothing, worded as the tool's learned wording says."""

    def run(ctx: Any, args: JSON) -> Any:
        try:
            return execute(ctx, args)
        except ToolError as e:
            if e.code != "not_found":
                raise
            return {}

    return run


def answered(answer: Answer, execute: Executor, shape: Callable[[Any], Any]) -> Executor:
    """An executor that runs ``execute``, shapes its value and words the reply as ``answer`` says."""
    if answer.kind == "template":

        def templated(ctx: Any, args: JSON) -> Any:
            raw = execute(ctx, args)
            ctx.raw = raw
            out = shape(raw)
            ctx.shaped = out
            reply = fill(answer.template, args, opened_text(out), answer.defaults, raw, ctx.store.rows)
            return out if reply is None else reply

        return templated

    def recorded(ctx: Any, args: JSON) -> Any:
        key = args_key(args)
        reply = answer.recorded.get(key)
        if isinstance(reply, dict) and set(reply) == {REFUSED}:  # refused before anything changes
            raise ToolError("precondition_failed", str(reply[REFUSED]))
        raw = execute(ctx, args)
        ctx.raw = raw
        out = shape(raw)
        ctx.shaped = out
        return reply if key in answer.recorded else out

    return recorded


__all__ = [
    "CASE", "COUNT", "COUNTED", "DISTINCT", "EACH", "HOLDING", "NEWEST", "NONE", "PARTS", "PROJECTED", "REFUSED",
    "ROWS", "SORTED", "TALLY", "WHEN", "answered", "args_key", "checked", "distinct", "fill", "leaf", "leaf_or_none",
    "opened_text", "projected", "shape_of", "tally", "token",
]  # fmt: skip

"""What an omitted argument stood for, read off the replies that word it, and where a tool keeps it.

``Project: {arg.project_id}`` of the calls that named one, ``Project: general`` of those that did
not: the argument stands for ``general`` (:func:`omitted_read`), a create stores it in the field
the argument fills and a list filters by it (:func:`kept_as_read`).
"""

from __future__ import annotations

import re
from typing import Any

from envfactory.ir.effect import Behaviour, CreateEffect, ListEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import primary_type
from envfactory.real.volatile import VOLATILE
from envfactory.runtime.answers import FORMATTED, JOINED, SLOT
from envfactory.synth.candidates import JSON
from envfactory.synth.proposers.shapes import canonical, default_sets


def read_off(spec: EnvSpec, tool: str, defaults: JSON) -> JSON:
    """Of what a wording's omitted arguments stand for, those read off the replies (:func:`omitted_read`),
    not declared nor guessed (:func:`default_sets`): a date the replies word where the schema declares
    ``null`` is read off them."""
    guessed = {(k, canonical(v)) for d in default_sets(spec, tool) for k, v in d.items()}
    return {k: v for k, v in defaults.items() if (k, canonical(v)) not in guessed}


def kept_as_read(behaviour: Behaviour, read: JSON) -> Behaviour:
    """A create whose replies say what an omitted argument stood for (:func:`omitted_read`) stores
    that value in the field the argument fills: the record made is the one the reply words; a list
    filters by it where the argument is an equality filter with no default (a text's word for
    nothing, ``Category: none``, stands for nothing)."""
    effect = behaviour.effect
    read = {k: v for k, v in read.items() if not _nothing(v)}
    if not read:
        return behaviour
    if isinstance(effect, ListEffect):  # a list filters by it: "No contexts found for project 'general'"
        unset = [f.arg in read and f.op == "eq" and f.default is None for f in effect.filters]
        filters = tuple(f.model_copy(update={"default": read[f.arg]}) if u else f
                        for f, u in zip(effect.filters, unset, strict=True))  # fmt: skip
        made: Any = effect.model_copy(update={"filters": filters}) if filters != effect.filters else None
    elif isinstance(effect, CreateEffect):
        stored = {
            effect.args[k]: v for k, v in read.items() if k in effect.args and effect.args[k] not in effect.defaults
        }
        made = effect.model_copy(update={"defaults": {**effect.defaults, **stored}}) if stored else None
    else:
        made = None
    return behaviour if made is None else behaviour.model_copy(update={"effect": made})


def _nothing(value: Any) -> bool:
    """Whether a value read off a text is how the text words nothing (``Category: none``): no value to store."""
    return isinstance(value, str) and value.strip().strip("()").casefold() in _NOTHING


_NOTHING = frozenset({"", "none", "null", "nil", "n/a", "-", "not specified", "unspecified", "not set"})


def omitted_read(template: Any, worded: list[Any], given: list[JSON], schema: JSON) -> JSON:
    """What omitted arguments stand for, read off the replies: where ``template`` words an argument
    (``Project: {arg.project}``) and the calls that omitted it were worded with one same value there
    (``Project: general``) — two at least, most of them, none with another value (a call worded
    otherwise elsewhere reads nothing) —, the argument stands for that value (typed as the input
    ``schema`` declares it). ``worded``: each call's reply as a wording of its own (:func:`template_of`),
    ``given``: each call's arguments."""
    props = schema.get("properties") or {}
    names = sorted(argument_slots(template))
    read = [_slot_values(template, w, names) for w in worded]
    out: JSON = {}
    for name in names:
        arg = slot_argument(name)
        omitted = [r for r, g in zip(read, given, strict=True) if g.get(arg) is None]  # a declared null: not given
        values = [r[name] for r in omitted if r is not None and name in r]
        if len(values) < 2 or len(values) * 2 < len(omitted):
            continue
        first = values[0]
        if any(canonical(v) != canonical(first) for v in values):
            continue
        out[arg] = _typed(first, props.get(arg))
    return out


_SLOT_OR_MARK = re.compile(r"\{(arg|out|raw|item)[.}]|" + re.escape(VOLATILE))  # a slot or a mark, not a value


def slot_argument(path: str) -> str:
    """The argument a slot's path names: ``tags`` of ``tags|, `` (its values joined) and ``amount`` of
    ``amount:.0f`` (the number formatted)."""
    return path.partition(JOINED)[0].partition(FORMATTED)[0]


def argument_slots(template: Any) -> set[str]:
    """The slots of top-level arguments a wording fills in (``{arg.project}``, ``{arg.tags|, }``),
    wherever it does, by path (:func:`slot_argument` names the argument)."""
    if isinstance(template, str):
        slots = [m.group(2) or "" for m in SLOT.finditer(template) if m.group(1) == "arg"]
        return {path for path in slots if slot_argument(path).isidentifier()}
    inner = template.values() if isinstance(template, dict) else template if isinstance(template, list) else ()
    return {name for v in inner for name in argument_slots(v)}


def _slot_values(template: Any, worded: Any, names: list[str]) -> JSON | None:
    """What ``worded`` holds where ``template`` fills the arguments ``names`` — a value, not a slot
    of its own —, by argument; ``None`` where the two are not one wording."""
    if isinstance(template, str) and isinstance(worded, str):
        wanted = "|".join(re.escape(f"{{arg.{n}}}") for n in names)
        if not wanted:
            return {} if template == worded else None
        parts = re.split(f"({wanted})", template)
        pattern = "".join("(.*?)" if i % 2 else re.escape(part) for i, part in enumerate(parts))
        matched = re.fullmatch(pattern, worded, flags=re.DOTALL)
        if matched is None:
            return None
        out: JSON = {}
        for slot, value in zip(parts[1::2], matched.groups(), strict=True):
            name = slot[len("{arg.") : -1]
            if _SLOT_OR_MARK.search(value):
                continue
            if out.setdefault(name, value) != value:
                return None
        return out
    if isinstance(template, str) and SLOT.fullmatch(template):
        whole = SLOT.fullmatch(template)
        name = whole.group(2) if whole is not None and whole.group(1) == "arg" else None
        return {name: worded} if name in names and not isinstance(worded, (dict, list)) else {}
    pairs: list[tuple[Any, Any]] = []
    if isinstance(template, dict) and isinstance(worded, dict):
        pairs = [(v, worded[k]) for k, v in template.items() if k in worded]
    elif isinstance(template, list) and isinstance(worded, list) and len(template) == len(worded):
        pairs = list(zip(template, worded, strict=True))
    else:
        return {} if canonical(template) == canonical(worded) else None
    found: JSON = {}
    for mine, theirs in pairs:
        inner = _slot_values(mine, theirs, names)
        for name, value in (inner or {}).items():
            found.setdefault(name, value)
    return found


def _typed(value: Any, schema: Any) -> Any:
    """A value read off a text as the argument's declared type holds it (``"5"`` of an integer is 5)."""
    kind = primary_type(schema) if isinstance(schema, dict) else None
    if isinstance(value, str) and kind in ("integer", "number"):
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if kind == "integer" and number.is_integer() else number
    return value


__all__ = ["argument_slots", "kept_as_read", "omitted_read", "read_off", "slot_argument"]

"""What proposers read in real replies: the records a reply holds, its envelope, and templates
over it with slots for what the arguments and the model's answer share with it."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import orjson

from envfactory.ir.effect import ListEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import Entity
from envfactory.real.volatile import VOLATILE, masked, restored
from envfactory.runtime.answers import COUNT, EACH, ROWS, fill
from envfactory.synth.candidates import JSON, Evidence, Pair


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
    if isinstance(template, dict):
        return {k: unmasked(v, example.get(k) if isinstance(example, dict) else None) for k, v in template.items()}
    if isinstance(template, list):
        inner = example if isinstance(example, list) else []
        return [unmasked(v, inner[i] if i < len(inner) else None) for i, v in enumerate(template)]
    return template


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


def list_reads(spec: EnvSpec, evidence: Evidence) -> list[tuple[str, list[Pair], Entity, ListEffect]]:
    """The list tools of the evidence: each with its calls, the entity it lists and its effect."""
    out = []
    for tool, pairs in evidence.pairs.items():
        effect = spec.behaviour(tool).effect
        if isinstance(effect, ListEffect) and effect.entity in spec.state_schema:
            out.append((tool, pairs, spec.state_schema[effect.entity], effect))
    return out


def template_of(real: Any, args: JSON, model: Any, raw: Any = None) -> Any:
    """``real`` (text or JSON) with the values it shares with the arguments and the model's answer
    as slots: a whole value becomes one slot (keeping its type), words inside a text become slots
    (arguments first, longer values first, whole words only)."""
    slots: dict[str, str] = {}
    for path, value in leaves(args):
        slots.setdefault(_word(value), f"{{arg.{path}}}")
    for path, value in leaves(model):
        slots.setdefault(_word(value), f"{{out.{path}}}")
    for path, value in leaves(raw if isinstance(raw, dict) else None):
        slots.setdefault(_word(value), f"{{raw.{path}}}")
    flags = {v: f"{{arg.{k}}}" for k, v in reversed(list(args.items())) if isinstance(v, bool)}  # an echoed flag
    # the model's whole answer (and each list or object inside it), wrapped as the real thing wraps it
    wholes = {**_parts(model, "out"), **_parts(raw, "raw")}
    lists = {**_record_lists(model, "out"), **_record_lists(raw, "raw")}
    return _templated(real, slots, wholes, flags, lists, args)


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
    at ``place`` (same length, in order), all worded by one template: ``{"$each": place, "item": T}``.
    ``T`` takes, member by member, the wording that words that member as the real side did for the
    most records (a record lacking one part of a composed text suggests another wording there); it
    is kept when it words at least half of all members so. A list of any length is then worded,
    where a template read place by place fits only the length it was read at."""
    if not all(isinstance(r, dict) for r in real):
        return None
    for place, records in lists.items():
        if len(records) != len(real) or not all(_names(r, records, i) for i, r in enumerate(real)):
            continue
        worded = [_item_template(r, args, m) for r, m in zip(real, records, strict=True)]
        item: JSON = {}
        right = total = 0
        for key in dict.fromkeys(k for r in real for k in r):
            options = list({canonical(w.get(key)): w.get(key) for w in worded if key in w}.values())
            scored = [(sum(_worded(o, args, m) == r.get(key, _ABSENT) for r, m in zip(real, records, strict=True)), o)
                      for o in options]  # fmt: skip
            hits, item[key] = max(scored, key=lambda x: x[0])  # the first of equals
            right, total = right + hits, total + len(real)
        if "{item" in canonical(item) and right * 2 >= total:
            return {EACH: place, "item": item}
    return None


def _names(real: JSON, records: list[JSON], i: int) -> bool:
    """Whether ``real`` holds a value of ``records[i]`` that no other record holds at that place: the
    real side answered that record there (not the same records in another order)."""
    held = {_word(v) for _, v in leaves(real)}
    others = [dict(leaves(r)) for j, r in enumerate(records) if j != i]
    return any(_word(v) in held and all(o.get(path) != v for o in others) for path, v in leaves(records[i]))


def _worded(template: Any, args: JSON, record: JSON) -> Any:
    """``template`` filled for one record (``None`` where it cannot be)."""
    filled = fill({EACH: "out", "item": template}, args, [record])
    return filled[0] if filled else None


def _item_template(real: JSON, args: JSON, record: JSON) -> Any:
    """``real`` worded for one ``record`` of a list: ``{item.PATH}`` slots, arguments first; a member
    the record holds under the same name and equal, whatever it holds, is that member."""
    slots: dict[str, str] = {}
    for path, value in leaves(args):
        slots.setdefault(_word(value), f"{{arg.{path}}}")
    for path, value in leaves(record):
        slots.setdefault(_word(value), f"{{item.{path}}}")
    named = {k: f"{{item.{k}}}" for k, v in real.items() if k in record and record[k] == v and k.isidentifier()}
    worded = _templated({k: v for k, v in real.items() if k not in named}, slots, _parts(record, "item"), None,
                        _record_lists(record, "item"), args)  # fmt: skip
    # a member the record holds under the same name, equal (null, empty or not): that member
    return {k: named.get(k, worded.get(k)) for k in real} if isinstance(worded, dict) else worded


def _templated(real: Any, slots: dict[str, str], wholes: dict[str, Any] | None = None,
               flags: dict[bool, str] | None = None, lists: dict[str, list[JSON]] | None = None,
               args: JSON | None = None) -> Any:  # fmt: skip
    if isinstance(real, (dict, list)):
        whole = next((slot for slot, value in (wholes or {}).items() if value == real), None)
        if whole is not None:
            return whole
    if isinstance(real, list) and real and lists:
        each = _each(real, args or {}, lists)
        if each is not None:
            return each
    if isinstance(real, dict):
        return {k: _templated(v, slots, wholes, flags, lists, args) for k, v in real.items()}
    if isinstance(real, list):
        return [_templated(v, slots, wholes, flags, lists, args) for v in real]
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
    "leaves",
    "list_reads",
    "record_in",
    "records_in",
    "schema_of",
    "steady",
    "template_of",
    "unmasked",
]

"""A device: keyless tools that read and set one shared record of scalar fields.

Vehicle, thermostat, player or robot tool sets have no ids: ``setHeadlights(mode)`` answers
``headlightStatus``, ``displayCarStatus`` answers that field among others, ``fillFuelTank(fuelAmount)``
answers ``fuelLevel``. Their outputs name the same fields, so the fields are one state. When
at least three tools that would otherwise fall back share output fields, they become one
``device`` record (a singleton) whose fields are the union of their outputs:

- an output member (``_parkingBrakeForce``, ``fuelLevel`` inside ``status``) answers the field of
  its name (case, underscores and a leading ``_`` aside);
- an argument named like a field (``fanSpeed``, ``temperature`` -> ``currentTemperature``) sets it;
- an enum argument sets the enum field whose values it names (``engage`` -> ``engaged``; a last
  unmatched pair, ``START`` -> ``running``, pairs up); a boolean argument sets the two-valued field
  one of whose values it names (``unlock: true`` -> ``unlocked``, ``activate`` -> ``active``);
- a number the description says is *added* (``fuelAmount``, "the additional fuel to add") adds to
  the numeric field it shares a word with (else the one numeric field the tool answers), within
  "up to N" the tool's description states.

Interlocks (an engine that starts only with the brake pressed) are code, not description; they
are not invented.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from envfactory.ir.effect import Behaviour, SingletonEffect
from envfactory.ir.jsonschema import data_path, primary_type
from envfactory.ir.state import Entity
from envfactory.ir.tool import ToolSpec
from envfactory.synth.naming import flat, tokens

JSON = dict[str, Any]
ENTITY = "device"
_ADDS = re.compile(r"\b(add|adds|added|additional|increase|top up|fill)\b", re.IGNORECASE)
_CAP = re.compile(r"\b(?:up to|at most|maximum of|holds?|capacity of)\s+(-?\d+(?:\.\d+)?)", re.IGNORECASE)
MIN_TOOLS = 3
# members that report on the call rather than hold state: shared by many tools, they prove nothing
ANSWER_WORDS = frozenset({"status", "message", "result", "success", "error", "ok", "detail", "details", "response",
                          "info", "msg", "notification", "output", "data"})  # fmt: skip
_SET = {"set", "update", "change", "configure", "adjust", "toggle"}


def _members(schema: JSON, prefix: str = "") -> dict[str, JSON]:
    """An output's scalar members by dotted path, one object level deep (``status.fuelLevel``)."""
    out: dict[str, JSON] = {}
    for name, sub in ((schema or {}).get("properties") or {}).items():
        if not isinstance(sub, dict):
            continue
        if primary_type(sub) == "object" and sub.get("properties") and not prefix:
            inner = _members(sub, f"{name}.")
            out.update(inner)
            if all(primary_type(s) == "object" for s in (sub.get("properties") or {}).values()):
                out[name] = sub
        elif primary_type(sub) != "object" or not prefix:
            out[f"{prefix}{name}"] = sub
    return out


def _leaf(path: str) -> str:
    return path.rsplit(".", 1)[-1]


def _stem_match(a: str, b: str) -> bool:
    """``engage``/``engaged``, ``STOP``/``stopped``, ``activate``/``active``, ``on``/``on``."""
    x, y = a.casefold(), b.casefold()
    if x == y:
        return True
    common = next((i for i, (c, d) in enumerate(zip(x, y, strict=False)) if c != d), min(len(x), len(y)))
    shorter = min(len(x), len(y))
    return (common >= 4 and common >= shorter - 2) or common == shorter >= 2


def _value_map(values: list[Any], targets: list[Any]) -> dict[str, Any]:
    """Argument values -> field values: by shared stem, and a last unmatched pair together."""
    out: dict[str, Any] = {}
    for v in values:
        match = next((t for t in targets if isinstance(t, str) and _stem_match(str(v), t)), None)
        if match is not None:
            out[str(v)] = match
    left = [v for v in values if str(v) not in out]
    free = [t for t in targets if t not in out.values()]
    if len(left) == 1 and len(free) == 1:
        out[str(left[0])] = free[0]
    return out


def plan_device(tools: list[ToolSpec]) -> tuple[Entity | None, dict[str, Behaviour]]:
    """The device record and the behaviours of the tools it absorbs, or ``(None, {})``."""
    outputs = {t.name: _members(t.output_schema or {}) for t in tools}
    counts = Counter(flat(_leaf(p)) for m in outputs.values() for p in {flat(_leaf(p)): p for p in m}.values())
    shared = {f for f, n in counts.items() if n >= 2 and f not in ANSWER_WORDS}
    members = [t for t in tools if {flat(_leaf(p)) for p in outputs[t.name]} & shared]
    if len(members) < MIN_TOOLS:
        return None, {}
    # with a device found, a keyless read of no arguments and a setter (``set_navigation``) join it
    # ... and so does a tool whose arguments set what it answers (``lockDoors(unlock)`` -> ``lockStatus``)
    members += [t for t in tools if t not in members and outputs[t.name]
                and (not t.properties or next(iter(tokens(t.name)), "") in _SET or _sets_itself(t))]  # fmt: skip
    members.sort(key=tools.index)
    fields: dict[str, JSON] = {}
    names: dict[str, str] = {}  # normalized -> the field's name
    for tool in members:
        for path, schema in outputs[tool.name].items():
            leaf = _leaf(path).lstrip("_")
            name = names.setdefault(flat(leaf), leaf)
            known = fields.setdefault(name, {})
            fields[name] = {**{k: v for k, v in schema.items() if k != "default"}, **known}  # enums, bounds: any tool's
    behaviours: dict[str, Behaviour] = {}
    for tool in members:
        args, values, adds = _setters(tool, fields, names)
        if next(iter(tokens(tool.name)), "") in _SET:  # what a setter's other arguments name is state too
            for arg, schema in tool.properties.items():
                if arg in args or arg in adds or not isinstance(schema, dict) or primary_type(schema) == "object":
                    continue
                name = names.setdefault(flat(arg), arg)
                fields.setdefault(name, {k: v for k, v in schema.items() if k != "default"})
                args[arg] = name
        for arg, field in args.items():  # bounds the argument states bound the field (seeded values too)
            bounds = {k: v for k, v in tool.properties[arg].items() if k in ("minimum", "maximum", "multipleOf")}
            if arg not in values and bounds and not {"minimum", "maximum"} & set(fields[field]):
                fields[field] = {**fields[field], **bounds}
        record = data_path(tool.output_schema)[1] or {}  # envelopes (``{status: {...}}``) are shaped at run time
        answers = {path: names[flat(_leaf(path))] for path in _members(record) if flat(_leaf(path)) in names}
        for field in adds.values():
            cap = _CAP.search(tool.description or "")
            if cap and "maximum" not in fields[field]:
                fields[field] = {**fields[field], "maximum": float(cap.group(1))}
        sets = _verb_sets(tool, fields, names, set(args.values()) | set(adds.values()))
        writes = bool(args or adds or sets)
        effect = SingletonEffect(entity=ENTITY, op="set" if writes else "get", args=args, values=values, adds=adds,
                                 sets=sets, answers=answers)  # fmt: skip
        said = [f"{a} -> {f}" for a, f in args.items()] + [f"{a} adds to {f}" for a, f in adds.items()]
        said += [f"{f} = {v!r}" for f, v in sets.items()]
        ignored = [a for a in tool.properties if a not in args and a not in adds]
        notes = [f"the {ENTITY}'s shared record" + (f": sets {', '.join(said)}" if said else ": reads it")]
        notes += [f"ignored: {ignored}"] if ignored else []
        behaviours[tool.name] = Behaviour(tool=tool.name, effect=effect, prior="plausible", notes=tuple(notes))
    entity = Entity.singleton(ENTITY, fields, sources=tuple(t.name for t in members))
    return entity, behaviours


def _sets_itself(tool: ToolSpec) -> bool:
    own = {_leaf(p).lstrip("_"): sub for p, sub in _members(tool.output_schema or {}).items()}
    args, _, adds = _setters(tool, own, {flat(f): f for f in own})
    return bool(args or adds)


def _verb_sets(tool: ToolSpec, fields: dict[str, JSON], names: dict[str, str], taken: set[str]) -> JSON:
    """``pressBrakePedal`` sets ``brakePedalStatus`` to ``pressed``: the tool's verb names one value
    of an enum field it answers (and no argument sets that field)."""
    verb = next(iter(tokens(tool.name)), "")
    out: JSON = {}
    for path in _members(tool.output_schema or {}):
        field = names.get(flat(_leaf(path)))
        if field is None or field in taken:
            continue
        named = [v for v in fields[field].get("enum") or [] if isinstance(v, str) and _stem_match(verb, v)]
        if len(named) == 1:
            out[field] = named[0]
    return out


Setters = tuple[dict[str, str], dict[str, JSON], dict[str, str]]


def _setters(tool: ToolSpec, fields: dict[str, JSON], names: dict[str, str]) -> Setters:
    """``(args, values, adds)``: which field each argument sets, how enum/boolean values translate,
    which argument adds to a field."""
    args: dict[str, str] = {}
    values: dict[str, JSON] = {}
    adds: dict[str, str] = {}
    own = [names[n] for n in (flat(_leaf(p)) for p in _members(tool.output_schema or {})) if n in names]
    for arg, schema in tool.properties.items():
        if not isinstance(schema, dict):
            continue
        kind = primary_type(schema)
        direct = names.get(flat(arg)) or next((f for f in own if flat(f).endswith(flat(arg)) and len(arg) >= 4), None)
        if kind in ("number", "integer") and _ADDS.search(str(schema.get("description") or "")):
            numeric = [f for f in own if primary_type(fields[f]) in ("number", "integer")]
            # the numeric field it shares a word with (``fuelAmount`` -> ``fuelLevel``), else the only one it answers
            target = next((f for f in numeric if set(tokens(f)) & set(tokens(arg))), None)
            target = target or (numeric[0] if len(numeric) == 1 else None)
            if target is not None:
                adds[arg] = target
                continue
        if direct is not None:
            args[arg] = direct
            if isinstance(schema.get("enum"), list) and fields[direct].get("enum"):  # ``sleep`` -> ``sleeping``
                mapped = _value_map(schema["enum"], list(fields[direct]["enum"]))
                if mapped and any(k != v for k, v in mapped.items()):
                    values[arg] = mapped
            continue
        if isinstance(schema.get("enum"), list):
            for field in own:
                mapped = _value_map(schema["enum"], list(fields[field].get("enum") or []))
                if len(mapped) >= 2:
                    args[arg], values[arg] = field, mapped
                    break
        elif kind == "boolean":
            for field in own:
                enum = list(fields[field].get("enum") or [])
                named = [v for v in enum if isinstance(v, str) and _stem_match(arg, v)]
                if len(enum) == 2 and len(named) == 1:
                    other = next(v for v in enum if v != named[0])
                    args[arg], values[arg] = field, {"true": named[0], "false": other}
                    break
    return args, values, adds


__all__ = ["ENTITY", "plan_device"]

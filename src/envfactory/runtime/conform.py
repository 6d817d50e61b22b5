"""Make a value fit the schema a tool declares for its output, deterministically.

Real descriptions contradict themselves: a language's ``id`` is a string parameter but an integer
in the record, a field is a number in one response and an object in another. The state keeps one
value; the output must still be what the tool declares. :func:`compile_conformer` builds, once
per schema, a function that leaves fitting values alone (the common case costs one ``isinstance``
per field) and replaces a misfit with a value of the declared type derived from it: ``"12"``
becomes ``12``, ``"shelf_3"`` a stable integer, a value outside an enum one of its members chosen
by the value's hash, a non-uuid a uuid derived from it (a non-uri, a non-email alike), a text
its declared ``pattern`` refuses one the pattern accepts, and a closed object (``additionalProperties:
false``) only the members it declares.
"""

from __future__ import annotations

import functools
import hashlib
import json
import random
import re
import uuid
import zlib
from collections.abc import Callable
from typing import Any

import orjson

from envfactory.ir.jsonschema import first_alternative, primary_type
from envfactory.patterns import linear_pattern, matching_string, sized_to_pattern
from envfactory.runtime.store import clone
from envfactory.runtime.validation import taken_by_one

JSON = dict[str, Any]
Conformer = Callable[[Any], Any]
MAX_DEPTH = 6
_PLACEHOLDER: dict[str, Any] = {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "object": {}}
_DATE_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$")
_DATE = re.compile(r"^\d{4}-\d\d-\d\d$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _stable(value: Any) -> int:
    return zlib.crc32(repr(value).encode())


def _to_int(value: Any) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    text = str(value)
    return int(text) if re.fullmatch(r"-?\d{1,18}", text) else _stable(value) % 100_000


def _to_number(value: Any) -> int | float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    try:
        return float(str(value))
    except ValueError:
        return _stable(value) % 100_000


# (a name's labels of letters, digits and inner hyphens, dot-separated: JSON Schema's ``hostname``)
_HOSTNAME = re.compile(
    r"^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
)
FORMATS: dict[str, tuple[re.Pattern[str], Callable[[Any], str]]] = {
    "uuid": (_UUID, lambda v: str(uuid.UUID(int=_stable(v) * 0x9E3779B97F4A7C15 % (1 << 128)))),
    "uri": (re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$"), lambda v: f"https://example.com/{_stable(v) % 100_000}"),
    "email": (re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$"), lambda v: f"user{_stable(v) % 100_000}@example.com"),
    "date-time": (_DATE_TIME, lambda v: f"2025-{_stable(v) % 12 + 1:02d}-{_stable(v) % 28 + 1:02d}T12:00:00Z"),
    "date": (_DATE, lambda v: f"2025-{_stable(v) % 12 + 1:02d}-{_stable(v) % 28 + 1:02d}"),
    "hostname": (_HOSTNAME, lambda v: f"host{_stable(v) % 100_000}.example.com"),
}


# conformers by (depth, a digest of the schema's canonical text): a large description repeats its
# schemas (a user object in every answer that holds one), and a conformer is a pure function of them;
# bounded (the texts themselves would hold 22 MB for Discord's description)
_MADE: dict[tuple[int, bytes], Conformer | None] = {}
MADE_MAX = 8192


def compile_conformer(schema: JSON | None, depth: int = 0) -> Conformer | None:
    """A function making values fit ``schema``; None when ``schema`` constrains nothing checkable.
    The same schema (by content) at the same depth gets the function made before."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return None
    try:
        key = (depth, hashlib.blake2b(orjson.dumps(schema, option=orjson.OPT_SORT_KEYS), digest_size=16).digest())
    except TypeError:  # a value JSON cannot write: made afresh
        return _compiled(schema, depth)
    if key not in _MADE:
        if len(_MADE) >= MADE_MAX:
            _MADE.clear()
        _MADE[key] = _compiled(schema, depth)
    return _MADE[key]


def _compiled(schema: JSON, depth: int) -> Conformer | None:
    if "type" not in schema and "properties" not in schema and ("anyOf" in schema or "oneOf" in schema):
        return _alternatives(schema, depth)
    typ = primary_type(schema) or ("object" if "properties" in schema else "array" if "items" in schema else None)
    if isinstance(schema.get("type"), list) and "null" in schema["type"]:
        inner = compile_conformer({**schema, "type": typ}, depth) if typ else None
        return (lambda v: v if v is None else inner(v)) if inner else None
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        members = typed_members(enum, schema.get("type"))
        allowed = set(map(repr, members))
        as_text = schema.get("type") == "string"

        def member(v: Any) -> Any:
            if repr(v) in allowed:
                return v
            if as_text and v is not None and repr(text := _text_of(v)) in allowed:
                return text
            return members[_stable(v) % len(members)]

        return member
    if typ == "object":
        return _object(schema, depth)
    if typ == "array":
        item = compile_conformer(schema.get("items"), depth + 1)
        most = schema.get("maxItems")
        most = most if isinstance(most, int) and not isinstance(most, bool) and most >= 0 else None

        least = schema.get("minItems")
        least = least if isinstance(least, int) and not isinstance(least, bool) and least > 0 else 0
        filler = (
            placeholder_value(schema["items"], depth + 1) if least and isinstance(schema.get("items"), dict) else None
        )

        def array(v: Any) -> Any:
            values = v if isinstance(v, list) else [] if v is None or isinstance(v, dict) else [v]
            values = values if most is None else values[:most]  # an answer holding at most n: the first n
            if len(values) < least:  # one holding at least n (a shipment's packages): the rest placeholders
                values = [*values, *(clone(filler) for _ in range(least - len(values)))]
            return [item(x) for x in values] if item else values

        return array
    if typ == "integer":
        return lambda v: v if isinstance(v, int) and not isinstance(v, bool) else _to_int(v)
    if typ == "number":
        return lambda v: v if isinstance(v, (int, float)) and not isinstance(v, bool) else _to_number(v)
    if typ == "boolean":
        return lambda v: v if isinstance(v, bool) else bool(v)
    if typ == "string":
        text = _string(schema)
        low, high = schema.get("minLength"), schema.get("maxLength")
        matched = _matching(schema.get("pattern"), low if isinstance(low, int) else 0,
                            high if isinstance(high, int) else None)  # fmt: skip
        if matched is None:
            return text
        return lambda v: matched(text(v))
    return None


def typed_members(enum: list[Any], declared: Any) -> list[Any]:
    """An enum's members as the declared type has them: a description that lists ``[169, 32, 43]``
    for a string field means the texts; a null is a member only where the type allows it."""
    if declared == "string":
        members = [m if isinstance(m, str) else _text_of(m) for m in enum if m is not None]
        return members or list(enum)
    return list(enum)


def _text_of(value: Any) -> str:
    return json.dumps(value) if isinstance(value, (dict, list, bool)) else str(value)


_KINDS: dict[type, str] = {
    dict: "object", list: "array", bool: "boolean", int: "integer", float: "number", str: "string"
}  # fmt: skip


def _alternatives(schema: JSON, depth: int) -> Conformer | None:
    """``anyOf``/``oneOf``: a value is made to fit the first alternative of its own JSON type (an
    integer fits a number), merged with what the schema says beside them; null passes where an
    alternative allows it, and a value of no alternative's type is left as it is."""
    base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
    options = [o for key in ("anyOf", "oneOf") for o in schema.get(key) or [] if isinstance(o, dict)]
    nullable = any(o.get("type") == "null" for o in options)
    typed: list[tuple[str | None, Conformer | None]] = []
    for option in options:
        if option.get("type") == "null":
            continue
        merged = {**base, **option}
        kind = primary_type(merged) or ("object" if "properties" in merged else "array" if "items" in merged else None)
        typed.append((kind, compile_conformer(merged, depth + 1)))
    if not any(c is not None for _, c in typed):
        return None

    missing = placeholder_value(schema, depth)  # of the first alternative that is not null (and alone, of oneOf)
    only = [o for o in schema.get("oneOf") or () if isinstance(o, dict)]

    def pick(v: Any) -> Any:
        if v is None:  # nothing where something is declared: the first alternative's smallest value
            return v if nullable else clone(missing)
        if v == [] and len(only) > 1 and not taken_by_one(only, v):  # an empty list every alternative takes
            return clone(missing)
        kind = _KINDS.get(type(v))
        for want, conform in typed:
            if want == kind or (want == "number" and kind == "integer"):
                return conform(v) if conform is not None else v
        return v

    return pick


def _string(schema: JSON) -> Conformer:
    pattern, make = FORMATS.get(str(schema.get("format")), (None, None))
    if pattern is not None and make is not None:
        check, fix = pattern, make
        return lambda v: v if isinstance(v, str) and check.match(v) else fix(v)
    return lambda v: v if isinstance(v, str) else json.dumps(v) if isinstance(v, (dict, list)) else str(v)


def _matching(pattern: Any, low: int = 0, high: int | None = None) -> Callable[[str], str] | None:
    """A text made to match ``pattern`` where it does not: one the pattern accepts, drawn from the
    text's own digest (the same text, the same replacement), as long as ``low`` and ``high`` allow
    (``[A-z0-9]`` of 24 characters); None where RE2 cannot check it."""
    check = linear_pattern(pattern) if isinstance(pattern, str) else None
    if check is None:
        return None

    @functools.lru_cache(maxsize=1024)
    def fix(text: str) -> str:
        rng = random.Random(_stable(text))
        return sized_to_pattern(matching_string(pattern, rng) or text, pattern, rng, low, high)

    def fits(text: str) -> bool:
        return check(text) and low <= len(text) <= (high if high is not None else len(text))

    return lambda text: text if fits(text) else fix(text)


def _object(schema: JSON, depth: int) -> Conformer:
    props = schema.get("properties") or {}
    # a closed object (``additionalProperties: false``) answers only the members it declares: none, where it
    # declares none (OnSched's list views; patternProperties would admit more, and are left to them)
    closed = (
        frozenset(props) if schema.get("additionalProperties") is False and "patternProperties" not in schema else None
    )
    members = {k: c for k, sub in props.items() if (c := compile_conformer(sub, depth + 1)) is not None}
    required = _required_placeholders(schema, depth)
    empty = placeholder_value(schema, depth)
    branches = _required_branches(schema)
    least, fillers = _fillers(schema, depth)

    def obj(v: Any) -> Any:
        if not isinstance(v, dict):
            return clone(empty) if isinstance(empty, dict) else {}
        if closed is not None and not closed.issuperset(v):
            v = {k: x for k, x in v.items() if k in closed}
        if branches:
            v = _one_branch(v, branches)
        if not members and all(k in v for k in required):
            return v
        out = dict(v)
        for key, conform in members.items():
            if key in out:
                out[key] = conform(out[key])
        for key, default in required.items():
            if key not in out:
                out[key] = clone(default)
        return _filled(out, least, fillers)

    return obj


def _fillers(schema: JSON, depth: int) -> tuple[int, JSON]:
    """(``minProperties``, a placeholder for each declared member it does not require, in order): an
    object with fewer members than it must hold takes the first of them (a pronunciation, all of
    whose members are optional, holds at least one)."""
    least, props = schema.get("minProperties"), schema.get("properties") or {}
    if not isinstance(least, int) or isinstance(least, bool) or least <= 0 or depth > MAX_DEPTH:
        return 0, {}
    required = set(schema.get("required") or ())
    return least, {k: placeholder_value(v, depth + 1) for k, v in props.items()
                   if k not in required and isinstance(v, dict)}  # fmt: skip


def _filled(out: JSON, least: int, fillers: JSON) -> JSON:
    """``out`` given the first of ``fillers`` it lacks until it holds ``least`` members (:func:`_fillers`)."""
    for key, default in fillers.items():
        if len(out) >= least:
            break
        if key not in out:
            out[key] = clone(default)
    return out


def _distinct_tries(first: Any, schema: JSON, depth: int) -> tuple[Any, ...]:
    """``first`` and, where every alternative would take it too, a value less bare: ``x`` for an empty
    text, one item for an empty list (``[]`` is a list of numbers and a list of pairs alike)."""
    if first == "":
        return first, "x"
    if first == [] and isinstance(schema.get("items"), dict) and depth <= MAX_DEPTH:
        return first, [placeholder_value(schema["items"], depth + 1)]
    return (first,)


def _required_branches(schema: JSON) -> tuple[frozenset[str], ...]:
    """A ``oneOf`` whose alternatives only require members (InfluxDB's mapping: ``orgID`` or
    ``org``, not both): the members each requires; empty for any other schema."""
    alternatives = schema.get("oneOf")
    if not isinstance(alternatives, list) or len(alternatives) < 2:
        return ()
    said = {"required", "title", "description"}
    if not all(isinstance(a, dict) and set(a) <= said and isinstance(a.get("required"), list) for a in alternatives):
        return ()
    return tuple(frozenset(str(m) for m in a["required"]) for a in alternatives)


def _one_branch(value: JSON, branches: tuple[frozenset[str], ...]) -> JSON:
    """``value`` holding the members of one branch only: the first it holds in full (else the one it
    holds most of), without the members only the others require."""
    chosen = max(branches, key=lambda b: (b <= value.keys(), len(b & value.keys())))
    others = frozenset().union(*(b for b in branches if b is not chosen)) - chosen
    return {k: x for k, x in value.items() if k not in others} if others & value.keys() else value


def placeholder_value(schema: JSON, depth: int = 0) -> Any:
    """The smallest value of ``schema``'s type that satisfies it: its first enum value, its
    minimum, or an object with placeholders for its required members; of alternatives (``anyOf``,
    ``oneOf``), the first that is not null — of ``oneOf``, the first whose value no other alternative
    also takes (an empty text fits both ``enum: [""]`` and a plain string: a plain string's is ``x``)."""
    alternatives = [a for a in schema.get("oneOf") or () if isinstance(a, dict)] \
        if "type" not in schema and "properties" not in schema else []  # fmt: skip
    if len(alternatives) > 1:
        base = {k: v for k, v in schema.items() if k != "oneOf"}
        for option in alternatives:
            merged = {**base, **option}
            first = placeholder_value(merged, depth)
            for made in _distinct_tries(first, merged, depth):
                if taken_by_one(alternatives, made):
                    return made
    schema = first_alternative(schema) or schema
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    typ = primary_type(schema) or ""
    low, above = schema.get("minimum"), schema.get("exclusiveMinimum")
    if typ in ("integer", "number") and isinstance(above, (int, float)) and not isinstance(above, bool):
        return above + 1  # (JSON Schema's exclusive bound: above it)
    if typ in ("integer", "number") and isinstance(low, (int, float)):
        return low + 1 if above is True else low  # (OpenAPI 3.0's ``exclusiveMinimum: true``: above the minimum)
    if typ == "string" and str(schema.get("format")) in FORMATS:
        return FORMATS[str(schema["format"])][1]("")
    if typ == "string" and isinstance(schema.get("pattern"), str):  # ``api_version``: ``^(0|[1-9]\d*)\.…``
        made = matching_string(schema["pattern"], random.Random(0))
        if made is not None:
            return made
    if typ == "string" and isinstance(schema.get("minLength"), int) and schema["minLength"] > 0:
        return "x" * schema["minLength"]  # "" where a text must be at least one character long
    if typ == "object" and depth <= MAX_DEPTH:
        return _filled(_required_placeholders(schema, depth), *_fillers(schema, depth))
    least = schema.get("minItems")
    if typ == "array" and isinstance(least, int) and least > 0 and isinstance(schema.get("items"), dict):
        return [placeholder_value(schema["items"], depth + 1) for _ in range(least)]  # a label's one package
    return clone(_PLACEHOLDER.get(typ))


_UNSAID = object()


def _required_placeholders(schema: JSON, depth: int) -> JSON:
    """A placeholder for each member ``schema`` requires: as its declared schema says; one it requires
    without declaring it (BIAPI's ``{required: [jwt_token, payload]}``) as the schema of members it
    does not declare says, ``null`` where that says nothing; none where it admits no other member."""
    props, extra = schema.get("properties") or {}, schema.get("additionalProperties", _UNSAID)
    out: JSON = {}
    for k in schema.get("required") or ():
        if not isinstance(k, str):
            continue
        if isinstance(props.get(k), dict):
            out[k] = placeholder_value(props[k], depth + 1)
        elif k not in props and extra is not False:
            out[k] = placeholder_value(extra, depth + 1) if isinstance(extra, dict) and extra else None
    return out

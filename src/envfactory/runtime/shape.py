"""Output shaping: make a behaviour's rows look like the tool's declared output schema.

Shapers are compiled once per tool. A row is projected onto the record schema's properties
(missing required properties get a typed placeholder), and wrapped in every envelope the schema
declares on the way to its records (:func:`~envfactory.ir.jsonschema.data_path`):
``{"items": [...], "total": n}``, ``{"data": {"accounts": [...], "server_knowledge": 0}}``, HAL's
``{"_embedded": {"orders": [...]}, "_links": ...}``, ``{"data": {"account": {...}}}``. A string
schema gets JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from envfactory.core import to_json_text
from envfactory.ir.jsonschema import PYTHON_TYPES, data_path, keyed_map_record, primary_type
from envfactory.ir.state import Entity, names_key
from envfactory.runtime.conform import FORMATS, compile_conformer, placeholder_value, typed_members
from envfactory.runtime.store import clone

JSON = dict[str, Any]
Shaper = Callable[[Any], Any]
_COUNT_NAMES = {"total", "count", "totalcount", "numfound", "totalresults", "size", "totalitems"}


def identity(value: Any) -> Any:
    return value


def compile_renderer(
    schema: JSON | None, aliases: dict[str, str] | None, shared: frozenset[int], *, plain: Shaper | None = None
) -> Callable[[Any], str]:
    """A tool's answer as JSON text: the record of each row of the environment's shared starting
    state (``shared``: their ids) is shaped and serialized once (:func:`remembered` with
    ``as_json``) and copied into every later answer that holds it; other rows are shaped afresh.
    Text that only ``json`` can write (an integer past 64 bits) is rendered from the plain shaper
    instead (``plain``: that shaper, where the caller has compiled it already), so the answer is
    always what ``to_json_text(shaper(value))`` gives.

    An answer of one record (no envelope, no list) is the same text for the same starting row on
    every call: that text is kept, per starting row; a row an episode wrote is answered with
    ``to_json_text`` of its plain record (the record and its text made once, not twice)."""
    fast = compile_shaper(schema, aliases, shared=shared, shared_as_json=True)
    slow = plain if plain is not None else compile_shaper(schema, aliases, shared=shared)
    path, _, as_list = data_path(schema) if schema else ((), None, False)
    # an answer of the row itself (no schema: the shaper is ``identity``) is one record too
    single = not schema or (primary_type(schema) in ("array", "object") and not path and not as_list)
    texts: dict[int, str] = {}  # a starting row's id -> its answer (``single``)

    def rendered(value: Any) -> str:
        try:
            return orjson.dumps(fast(value), option=orjson.OPT_NON_STR_KEYS).decode()
        except TypeError:
            return to_json_text(slow(value))

    listed = _whole_answers_kept(rendered)
    if not single:
        return listed
    # ``slow`` of a row not shared, without its wrappers
    project = _record_projector(schema, aliases) if schema else identity

    def render(value: Any) -> str:
        if type(value) is not dict:
            return listed(value)
        key = id(value)
        if key not in shared:
            return to_json_text(project(value))
        text = texts.get(key)
        if text is None:  # (its record is not kept as well: the text is all this renderer answers of it)
            text = texts[key] = to_json_text(project(value))
        return text

    return render


# per renderer, the list answers kept whole: at most this many, listing this many rows and this many
# characters in all (then all are dropped), so that a spec of many list tools served for long keeps little
ANSWERS, ANSWER_ROWS, ANSWER_CHARS = 128, 2048, 1 << 19


def _whole_answers_kept(rendered: Callable[[Any], str]) -> Callable[[Any], str]:
    """``rendered``, whose answer to a list is kept, under the ids of the rows it lists, beside
    those rows: while they are kept alive there, no other object can have their ids, so the same
    ids are the same rows, and a row is never changed once written (the store's contract). A list
    tool answering the same rows again (the same filter, the same state, in any episode) costs a
    look-up."""
    answers: dict[tuple[int, ...], tuple[tuple[Any, ...], str]] = {}
    kept = [0, 0]  # rows and characters the answers kept hold

    def render(value: Any) -> str:
        if type(value) is not list:
            return rendered(value)
        key = tuple(map(id, value))
        hit = answers.get(key)
        if hit is not None:
            return hit[1]
        text = rendered(value)
        if len(answers) >= ANSWERS or kept[0] >= ANSWER_ROWS or kept[1] >= ANSWER_CHARS:
            answers.clear()
            kept[0] = kept[1] = 0
        answers[key] = (tuple(value), text)
        kept[0] += len(key)
        kept[1] += len(text)
        return text

    return render


def compile_shaper(
    schema: JSON | None,
    aliases: dict[str, str] | None = None,
    *,
    shared: frozenset[int] | None = None,
    shared_as_json: bool = False,
) -> Shaper:
    """The shaper of one tool's output. ``aliases``: record member -> the row field it answers
    (an order's ``id`` answered as the ``order_id`` the output declares). ``shared``: the ids of
    the rows of the environment's starting state, which every episode shares and none mutates
    (:class:`~envfactory.runtime.store.BaseState`): their records are shaped once and answered
    again (:func:`remembered`) instead of being projected and conformed on every call."""
    if not schema:
        return identity
    typ = primary_type(schema)
    if typ in ("string",):
        if schema.get("maxLength") == 0:  # ``empty_response_body``: the call answers nothing
            return lambda value: ""
        return lambda value: value if isinstance(value, str) else json.dumps(value, ensure_ascii=True)
    if typ == "boolean":  # "true when it was added": a write that answers did what it was asked
        return lambda value: value if isinstance(value, bool) else value is not None
    if typ in ("integer", "number"):  # ``ClientApi_New`` answers the new client's id
        return _numbered
    if typ not in ("array", "object"):
        return identity
    path, _, as_list = data_path(schema)
    project = _record_projector(schema, aliases)
    if shared and project is not identity:
        project = remembered(project, shared, as_json=shared_as_json)
    if as_list:
        shaper: Shaper = lambda value: [project(v) for v in (value if isinstance(value, list) else [value])]  # noqa: E731
    else:
        shaper = lambda value: [project(v) for v in value] if isinstance(value, list) else project(value)  # noqa: E731
    for key, level in reversed(path):  # wrap from the innermost envelope out
        shaper = _envelope(level, key, shaper)
    return shaper


def compile_keyed_map_shaper(schema: JSON, key: str, aliases: dict[str, str] | None = None) -> Shaper:
    """The shaper of a listing answered as a map (:func:`keyed_map_record`): ``{key: record}`` per
    row, or ``{key: value}`` — the row's first field of the value's type and format, else the
    value's placeholder."""
    held = keyed_map_record(schema) or {}
    if primary_type(held) == "object":
        project = compile_shaper(held, aliases)
    else:
        fit = compile_conformer(held) or identity
        kind, fmt = primary_type(held), held.get("format")

        def project(row: JSON) -> Any:
            value = next((v for f, v in row.items() if f != key and _of_kind(v, kind, fmt)), None)
            return fit(value) if value is not None else placeholder_value(held)

    def shape(value: Any) -> Any:
        rows = value if isinstance(value, list) else [value]
        return {str(r.get(key)): project(r) for r in rows if isinstance(r, dict)}

    return shape


def _of_kind(value: Any, kind: str | None, fmt: Any) -> bool:
    types = PYTHON_TYPES.get(kind or "")
    if types is None or isinstance(value, bool) != (kind == "boolean") or not isinstance(value, types):
        return False
    shape = FORMATS.get(str(fmt), (None, None))[0] if fmt is not None else None
    return shape is None or (isinstance(value, str) and shape.match(value) is not None)


def compile_members_shaper(schema: JSON | None, members: Iterable[str]) -> Shaper:
    """The shaper of an answer whose top-level ``members`` each hold records (a dump: ``{orders:
    [...], continuationToken}``): each member shaped as its own schema declares — a list of records
    stays a list —, then the whole fit to the object declared (its required members given)."""
    props = (schema or {}).get("properties") or {}
    inner = {m: compile_shaper(props[m]) for m in members if isinstance(props.get(m), dict)}
    if not inner:
        return compile_shaper(schema)
    conform = compile_conformer(schema)

    def shape(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        out = {m: inner[m](v) if m in inner else v for m, v in value.items()}
        return conform(out) if conform is not None else out

    return shape


def _numbered(value: Any) -> Any:
    """A record answered where a number is declared: its id (a create's new key), a list its length,
    anything else one (one record written)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if isinstance(value, dict):
        key = next(
            (v for k, v in value.items() if k.lower() == "id" and isinstance(v, int) and not isinstance(v, bool)), None
        )
        return key if key is not None else 1
    return len(value) if isinstance(value, list) else 1


def _record_projector(schema: JSON, aliases: dict[str, str] | None) -> Shaper:
    """What makes one row the record an array or object ``schema`` answers (none kept); a record
    declared as one member holding it (``[{"product": {...}}]``) wraps each row that lacks it."""
    path, record, _ = data_path(schema)
    if record is None and not path and primary_type(schema) == "object":
        record = schema  # a map (``additionalProperties: {type: integer}``) or a closed object declaring no members
    plain = _projected(record, aliases)
    member = _wrapping_member(record)
    if member is None:
        return plain
    inner = _envelope(record or {}, member, _projected((record or {})["properties"][member], aliases))
    return lambda row: inner(row) if isinstance(row, dict) and member not in row else plain(row)


def _projected(record: JSON | None, aliases: dict[str, str] | None) -> Shaper:
    project = _fitted(_aliased(_row_projector(record), aliases or {}), compile_conformer(record))
    return _fused(record, aliases or {}, project) or project


def _wrapping_member(record: JSON | None) -> str | None:
    """The one member of a record schema that holds the record itself, an object of its own members
    (Jumpseller's list items ``{"product": {"id", "name", ...}}``), else ``None``."""
    props = (record or {}).get("properties") if isinstance(record, dict) else None
    if not isinstance(props, dict) or len(props) != 1:
        return None
    ((member, inner),) = props.items()
    if not isinstance(inner, dict) or primary_type(inner) != "object" or len(inner.get("properties") or {}) < 2:
        return None
    return member


def remembered(project: Shaper, shared: frozenset[int], *, as_json: bool = False) -> Shaper:
    """``project`` of a row, kept for the rows whose ids are in ``shared`` (the starting state's
    rows: they live as long as the environment, so an id among them is always that row, and none
    is ever mutated): a list tool answers the same starting rows in every episode, and shaping each
    was most of a ``call_tool`` (``bench/env_step.py``). At most one record per starting row. The
    records handed out are shared: callers serialize them and never change them. ``as_json``: the
    record is kept as its JSON text (an ``orjson.Fragment``, which orjson copies into an answer as
    it is), for a renderer whose output is only ever serialized (:func:`compile_renderer`); and the
    records of the rows episodes wrote are kept too (a list answers them on every call after the
    write), each beside its row, so that an id kept names that very row (a row is never changed
    once written: the store's contract, which its cached digests rely on too), the last
    ``RECENT_ROWS`` of them; without it they are shaped afresh."""
    memory: dict[int, Any] = {}
    recent: dict[int, tuple[Any, Any]] = {}  # as_json: an episode's rows, each kept beside its record

    def shaped(row: Any) -> Any:
        key = id(row)
        if key not in shared:
            if not as_json or type(row) is not dict:
                return project(row)
            hit = recent.get(key)
            if hit is not None and hit[0] is row:
                return hit[1]
            out = _as_fragment(project(row))
            if len(recent) >= RECENT_ROWS:
                recent.clear()
            recent[key] = (row, out)
            return out
        out = memory.get(key)
        if out is None:
            out = project(row)
            if as_json:
                out = _as_fragment(out)
            memory[key] = out
        return out

    return shaped


RECENT_ROWS = 256  # per renderer: the rows written lately, whose records are kept (then all are dropped)


def _as_fragment(record: Any) -> Any:
    """``record`` as JSON text orjson copies into an answer as it is; what only json can write
    (integers past 64 bits) stays as it is."""
    try:
        return orjson.Fragment(orjson.dumps(record, option=orjson.OPT_NON_STR_KEYS))
    except TypeError:
        return record


def with_outcome_flags(shaper: Shaper, flags: tuple[str, ...]) -> Shaper:
    """``shaper`` whose object answers say ``true`` for the members that report the call's success
    (``sent_status``; :func:`~envfactory.ir.jsonschema.outcome_flags`): it only runs on success."""
    if not flags:
        return shaper

    def shape(value: Any) -> Any:
        out = shaper(value)
        # what the behaviour answered stays (a sign-out with nobody signed in: ``false``); a flag it did not
        # answer is ``true``, over the placeholder ``false`` a required member gets from the shaper
        unsaid = [f for f in flags if not (isinstance(value, dict) and f in value)]
        if isinstance(out, dict) and any(out.get(f) is not True for f in unsaid):
            out = {**out, **{f: True for f in unsaid}}
        return out

    return shape


def _envelope(schema: JSON, data_key: str, inner: Shaper) -> Shaper:
    """``{data_key: inner(value)}`` plus the envelope's other members: counts of the rows, and
    typed placeholders for required members the state cannot fill."""
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    extras: dict[str, Callable[[list[Any]], Any]] = {}
    for key, sub in props.items():
        if key == data_key or not isinstance(sub, dict):
            continue
        if key.replace("_", "").lower() in _COUNT_NAMES and primary_type(sub) in ("integer", "number"):
            extras[key] = len
        elif key in required:
            extras[key] = _placeholder(sub)

    def shape(value: Any) -> JSON:
        rows = value if isinstance(value, list) else [value]
        out: JSON = {data_key: inner(value)}
        for key, make in extras.items():
            out[key] = make(rows)
        return out

    return shape


def _aliased(project: Shaper, aliases: dict[str, str]) -> Shaper:
    if not aliases:
        return project

    def alias(row: Any) -> Any:
        if isinstance(row, dict):
            row = {**row, **{m: row[f] for m, f in aliases.items() if m not in row and f in row}}
        return project(row)

    return alias


def key_aliases(schema: JSON | None, entity: Entity | None) -> dict[str, str]:
    """The output's ``<entity>_id`` member (``order_id``, ``orderId``) for an entity keyed by ``id``
    that holds no such field: it answers the key."""
    if not schema or entity is None:
        return {}
    _, record, _ = data_path(schema)
    members = record.get("properties") or {} if isinstance(record, dict) else {}
    return {m: entity.key for m in members if m not in entity.fields and names_key(m, entity.name, entity.key)}


def _fitted(project: Shaper, conform: Shaper | None) -> Shaper:
    """``project`` then make the record fit its declared schema (:mod:`~envfactory.runtime.conform`)."""
    return project if conform is None else lambda row: conform(project(row))


def _value_kinds(schema: Any) -> tuple[type, ...] | None:
    """The Python types a map's values may have (every alternative of an ``anyOf``/``oneOf``);
    ``None`` where one of them is of no checkable type (anything goes)."""
    if not isinstance(schema, dict):
        return None
    options = [o for key in ("anyOf", "oneOf") for o in schema.get(key) or ()] or [schema]
    kinds: tuple[type, ...] = ()
    for option in options:
        found = PYTHON_TYPES.get(primary_type(option) or "") if isinstance(option, dict) else None
        if found is None:
            return None
        kinds += found
    return kinds


def _fused(record: JSON | None, aliases: dict[str, str], slow: Shaper) -> Shaper | None:
    """``slow`` (project a row onto ``record``, then conform it) as one generated function for the
    common record, an object whose members are listed and which the projection closes (it requires
    members, or admits no others): a row holding every required member is projected and conformed
    member by member, each member's value kept at the cost of one type test where it already fits
    (the test is the conformer's own, inlined) and handed to its conformer otherwise; anything else
    (a row missing a required member, not a plain dict) goes to ``slow``. The same records, in the
    same order; None where the record is not of that kind."""
    if not isinstance(record, dict) or record.get("type") != "object":
        return None
    props = record.get("properties")
    enum = record.get("enum")
    if not isinstance(props, dict) or not props or (isinstance(enum, list) and enum):
        return None
    if record.get("additionalProperties", True) is not False and not record.get("required"):
        return None  # an open record is kept as the row has it (_row_projector)
    required = [k for k in record.get("required") or () if isinstance(props.get(k), dict)]
    scope: dict[str, Any] = {"slow": slow, "alias": _aliased(identity, aliases) if aliases else None}
    lines = ["def shape(row):", "    if type(row) is not dict:", "        return slow(row)"]
    lines += ["    r = alias(row)"] if aliases else ["    r = row"]
    if required:
        lines.append(f"    if not ({' and '.join(f'{k!r} in r' for k in required)}):")
        lines.append("        return slow(row)")
    lines.append("    out = {}")
    for i, (key, sub) in enumerate(props.items()):
        conform = compile_conformer(sub, 1)
        lines += [f"    if {key!r} in r:", f"        v = r[{key!r}]"]
        if conform is None:
            lines.append(f"        out[{key!r}] = v")
            continue
        scope[f"c{i}"] = conform
        fits = _fits(sub, scope, i)
        lines.append(f"        out[{key!r}] = v if {fits} else c{i}(v)" if fits else f"        out[{key!r}] = c{i}(v)")
    lines.append("    return out")
    exec("\n".join(lines), scope)  # the source is ours: keys are written as repr literals
    fused: Shaper = scope["shape"]
    return fused


def _fits(sub: JSON, scope: dict[str, Any], i: int) -> str | None:
    """The test, as source, that a value already fits ``sub`` (its conformer would keep it as it
    is: :func:`~envfactory.runtime.conform.compile_conformer`), for the plain kinds; None for
    the others."""
    typ, enum = sub.get("type"), sub.get("enum")
    if not isinstance(typ, str) or sub.get("pattern") is not None:
        return None
    if isinstance(enum, list) and enum:
        members = _enum_texts(enum) if typ == "string" else None
        if members is None:
            return None
        scope[f"s{i}"] = members
        return f"(type(v) is str and v in s{i})"
    if typ == "string":
        formatted = FORMATS.get(str(sub.get("format")))
        if formatted is None:
            return "type(v) is str"
        scope[f"p{i}"] = formatted[0].match
        return f"(type(v) is str and p{i}(v))"
    return {"integer": "type(v) is int", "number": "(type(v) is int or type(v) is float)",
            "boolean": "type(v) is bool"}.get(typ)  # fmt: skip


def _enum_texts(enum: list[Any]) -> frozenset[str] | None:
    """The texts a string enum's conformer keeps (its members as text: ``typed_members``), where
    each is a plain ``str``; None otherwise."""
    members = typed_members(enum, "string")
    texts = frozenset(m for m in members if type(m) is str)
    return texts if all(type(m) is str or not isinstance(m, str) for m in members) else None


def _row_projector(schema: JSON | None) -> Shaper:
    if schema and primary_type(schema) == "object" and not schema.get("properties"):
        kinds = _value_kinds(schema.get("additionalProperties"))
        if kinds is not None:  # a map of typed values: keep only the fields of those types
            return lambda row: {k: v for k, v in row.items() if isinstance(v, kinds)} if isinstance(row, dict) else row
    if not schema or primary_type(schema) != "object" or not schema.get("properties"):
        return identity
    props = schema["properties"]
    keys = tuple(props)
    if schema.get("additionalProperties", True) is not False and not schema.get("required"):
        # open schema: keep the row as it is when it already fits
        wanted = set(keys)
        return lambda row: {k: v for k, v in row.items() if k in wanted} if isinstance(row, dict) else row
    required = {k: placeholder_value(props[k]) for k in schema.get("required") or () if isinstance(props.get(k), dict)}

    def project(row: Any) -> Any:
        if not isinstance(row, dict):
            return row
        out = {k: row[k] for k in keys if k in row}
        for k, default in required.items():
            if k not in out:
                out[k] = default
        return out

    return project


def _placeholder(schema: JSON) -> Callable[[Any], Any]:
    """A required envelope field the state cannot fill: a typed placeholder."""
    value = placeholder_value(schema)
    return lambda _rows: clone(value)

"""Output shaping: make a behaviour's rows look like the tool's declared output schema.

Shapers are compiled once per tool. A row is projected onto the schema's properties (missing
required properties get a typed placeholder), lists are wrapped in the envelope the schema
declares (``{"items": [...], "total": n}``), and a non-object schema gets JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from envfactory.ir.jsonschema import entity_schema, primary_type

JSON = dict[str, Any]
Shaper = Callable[[Any], Any]
_PLACEHOLDER = {
    "string": "",
    "integer": 0,
    "number": 0,
    "boolean": False,
    "array": [],
    "object": {},
}
_COUNT_NAMES = {"total", "count", "totalcount", "numfound", "totalresults", "size", "totalitems"}


def identity(value: Any) -> Any:
    return value


def compile_shaper(schema: JSON | None) -> Shaper:
    if not schema:
        return identity
    typ = primary_type(schema)
    if typ == "array":
        item = _row_projector(schema.get("items"))
        return lambda value: [item(v) for v in value] if isinstance(value, list) else [item(value)]
    if typ == "object":
        return _object_shaper(schema)
    if typ in ("string",):
        return lambda value: value if isinstance(value, str) else json.dumps(value, ensure_ascii=True)
    return identity


def _object_shaper(schema: JSON) -> Shaper:
    props = schema.get("properties") or {}
    arrays = [k for k, p in props.items() if primary_type(p) == "array"]
    inner = entity_schema(schema)
    if arrays and inner is not schema and len(arrays) == 1:
        return _envelope(schema, arrays[0])
    wrappers = [k for k, p in props.items() if primary_type(p) == "object" and p.get("properties")]
    if len(props) == 1 and len(wrappers) == 1:
        key, project = wrappers[0], _row_projector(props[wrappers[0]])
        return lambda value: {key: project(value)}
    project = _row_projector(schema)
    return lambda value: [project(v) for v in value] if isinstance(value, list) else project(value)


def _envelope(schema: JSON, items_key: str) -> Shaper:
    props = schema["properties"]
    item = _row_projector(props[items_key].get("items"))
    extras: dict[str, Callable[[list[Any]], Any]] = {}
    for key, sub in props.items():
        if key == items_key:
            continue
        if key.replace("_", "").lower() in _COUNT_NAMES and primary_type(sub) in (
            "integer",
            "number",
        ):
            extras[key] = len
        elif key in (schema.get("required") or ()):
            extras[key] = _placeholder(primary_type(sub))

    def shape(value: Any) -> JSON:
        rows = value if isinstance(value, list) else [value]
        out: JSON = {items_key: [item(r) for r in rows]}
        for key, make in extras.items():
            out[key] = make(rows)
        return out

    return shape


def _row_projector(schema: JSON | None) -> Shaper:
    if not schema or primary_type(schema) != "object" or not schema.get("properties"):
        return identity
    props = schema["properties"]
    keys = tuple(props)
    if schema.get("additionalProperties", True) is not False and not schema.get("required"):
        # open schema: keep the row as it is when it already fits
        wanted = set(keys)
        return lambda row: {k: v for k, v in row.items() if k in wanted} if isinstance(row, dict) else row
    required = {k: _PLACEHOLDER.get(primary_type(props[k]) or "") for k in schema.get("required") or ()}

    def project(row: Any) -> Any:
        if not isinstance(row, dict):
            return row
        out = {k: row[k] for k in keys if k in row}
        for k, default in required.items():
            if k not in out:
                out[k] = default
        return out

    return project


def _placeholder(typ: str | None) -> Callable[[Any], Any]:
    """A required envelope field the state cannot fill: a typed placeholder."""
    value = _PLACEHOLDER.get(typ or "")
    return lambda _rows: value

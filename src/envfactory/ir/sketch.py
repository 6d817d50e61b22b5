"""Reply shapes sketched in prose: ``Returns: {"ok": true, "task": {id, title, status}, "count": N}``.

Docstrings often draw the reply a tool answers as a loose JSON sketch: quoted or bare keys, keys
without values, ``N`` for a number, ``[task, ...]`` for a list, ``...`` for more. A person reads it
as the reply's shape; :func:`sketch_schema` reads it into a JSON schema — objects with their
members, arrays, booleans, numbers, strings, and ``{}`` where the sketch names a member without
saying what it holds. Alternatives (``str or null``, ``"cli"|"mcp"|null``) are the first that is not
null; ``task + "overdue_days"`` is the task with one more member; a ``(note)`` is read past; a
member drawn as ``{...}`` (``"task": {...}``) is the thing another sketch draws under that name.
Only the first sketch counts (the success reply; "or {...} if it fails" follows it).
Anything that does not parse is no sketch.
"""

from __future__ import annotations

import re
from typing import Any

JSON = dict[str, Any]
MAX_SKETCH = 4_000
_TOKEN = re.compile(r"""\s*(?:(?P<punct>[{}\[\]:,|+])|(?P<dots>\.\.\.|…)|(?P<string>"[^"]{0,200}"|'[^'\n]{0,200}')|"""
                    r"""(?P<note>\([^(){}\[\]]{0,200}\))|"""
                    r"""(?P<number>-?\d+(?:\.\d+)?)|(?P<word>[A-Za-z_][A-Za-z0-9_\-.]*))""")  # fmt: skip
_NUMBERS = frozenset({"n", "int", "integer", "number", "float", "count", "num", "total"})
_STRINGS = frozenset({"str", "string", "text"})
_BOOLS = frozenset({"bool", "boolean"})


class _NoSketch(ValueError):
    pass


def sketch_schemas(texts: dict[str, str]) -> dict[str, JSON]:
    """The sketch of each text that holds one, a thing one sketch names but does not draw
    (``"tasks": [task, ...]``) drawn as another sketch draws it (``"task": {id, title}``)."""
    raw = {name: found for name, text in texts.items() if (found := _sketch(text)) is not None}
    drawn: dict[str, JSON] = {}
    for schema in raw.values():
        _drawn(schema, drawn)
    return {name: _unmarked(_named(schema, drawn)) for name, schema in raw.items()}


def sketch_schema(text: str | None) -> JSON | None:
    """The JSON schema of the first reply sketch in ``text`` (see the module docstring), or ``None``."""
    schema = _sketch(text)
    return None if schema is None else _unmarked(_named(schema, _drawn(schema)))


def _sketch(text: str | None) -> JSON | None:
    if not text:
        return None
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        return None
    tokens = _tokens(text[start : start + MAX_SKETCH])
    try:
        schema, used = _value(tokens, 0)
    except (_NoSketch, IndexError):
        return None
    if schema.get("type") == "object" and not schema.get("properties"):
        return None  # ``{...}``: says nothing
    return schema if used > 1 else None


def _drawn(schema: JSON, out: dict[str, JSON] | None = None) -> dict[str, JSON]:
    """The objects the sketch draws, by the member that holds them (``"task": {id, title}``)."""
    out = {} if out is None else out
    for key, member in (schema.get("properties") or {}).items():
        if member.get("type") == "object" and member.get("properties"):
            out.setdefault(key, member)
        _drawn(member, out)
    if isinstance(schema.get("items"), dict):
        _drawn(schema["items"], out)
    return out


def _named(schema: JSON, drawn: dict[str, JSON], key: str | None = None) -> JSON:
    """``schema`` with each thing named but not drawn (``[task, ...]``, ``"task": {...}``) as the
    sketch draws it elsewhere, with the members a ``+`` adds; the reading's marks taken out."""
    plus: JSON = {str(m): {} for m in schema.get("$plus", [])}
    if "$named" in schema:
        name = str(schema["$named"])
        found = drawn.get(name) or drawn.get(name.rstrip("s")) or {}
        return {**found, "properties": {**found.get("properties", {}), **plus}} if found and plus else found
    out = {k: v for k, v in schema.items() if k not in ("$said", "$plus")}
    if key is not None and out.get("type") == "object" and not out.get("properties") and key in drawn:
        out = dict(drawn[key])
    if "properties" in out or plus:
        out["properties"] = {**{k: _named(v, drawn, k) for k, v in out.get("properties", {}).items()}, **plus}
    if isinstance(out.get("items"), dict):
        out["items"] = _named(out["items"], drawn)
    return out


def _unmarked(schema: JSON) -> JSON:
    """``schema`` without the reading's marks; a thing named that no sketch draws holds anything."""
    if "$named" in schema:
        return {}
    out = {k: v for k, v in schema.items() if k not in ("$said", "$plus")}
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _unmarked(v) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = _unmarked(out["items"])
    return out


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    depth, at = 0, 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None or match.end() == at:
            if depth == 0:
                break
            raise_at = text[at : at + 1]
            if raise_at.isspace():
                at += 1
                continue
            return []  # something a sketch does not hold
        kind = match.lastgroup or ""
        value = match.group(kind)
        at = match.end()
        if kind == "note":  # ``N (tasks only)``: a remark on the value, not part of it
            continue
        if value in "{[":
            depth += 1
        elif value in "}]":
            depth -= 1
        out.append((kind, value))
        if depth == 0:
            break
    return out


def _value(tokens: list[tuple[str, str]], at: int) -> tuple[JSON, int]:
    """One value, with the alternatives (``or``, ``|``) and additions (``+``) that follow it."""
    schema, at = _one(tokens, at)
    while at < len(tokens) and (tokens[at][1] in ("|", "+") or tokens[at] == ("word", "or")):
        joint = tokens[at][1]
        other, at = _one(tokens, at + 1)
        if joint == "+":  # ``task + "overdue_days"``: the task and one more member
            schema = {**schema, "$plus": [*schema.get("$plus", []), *_added(other)]}
        elif schema.get("type") == "null":  # ``null | str``: the value it holds when it holds one
            schema = other
    return schema, at


def _added(added: JSON) -> list[str]:
    """The member names a ``+`` adds: a named thing or a quoted word, else an object's members."""
    named = added.get("$named") or added.get("$said")
    if named:
        return [str(named)]
    return list((added.get("properties") or {}).keys())


def _one(tokens: list[tuple[str, str]], at: int) -> tuple[JSON, int]:
    kind, value = tokens[at]
    if value == "{":
        return _object(tokens, at + 1)
    if value == "[":
        return _array(tokens, at + 1)
    if kind == "string":
        return {"type": "string", "$said": value.strip("\"'")}, at + 1
    if kind == "number":
        return {"type": "integer" if "." not in value else "number"}, at + 1
    if kind == "word":
        low = value.lower()
        if low in ("true", "false"):
            return {"type": "boolean"}, at + 1
        if low in ("null", "none"):
            return {"type": "null"}, at + 1
        if low in _NUMBERS:
            return {"type": "integer"}, at + 1
        if low in _STRINGS:
            return {"type": "string"}, at + 1
        if low in _BOOLS:
            return {"type": "boolean"}, at + 1
        return {"$named": value}, at + 1  # ``[task, ...]``: a thing drawn elsewhere in the sketch, or not at all
    raise _NoSketch(value)


def _object(tokens: list[tuple[str, str]], at: int) -> tuple[JSON, int]:
    props: JSON = {}
    while tokens[at][1] != "}":
        kind, value = tokens[at]
        if kind == "dots":
            at += 1
        elif kind in ("string", "word"):
            key = value.strip("\"'")
            at += 1
            if tokens[at][1] == ":":
                props[key], at = _value(tokens, at + 1)
            else:
                props[key] = {}  # ``{id, title}``: a member named, not drawn
        else:
            raise _NoSketch(value)
        if tokens[at][1] == ",":
            at += 1
        elif tokens[at][1] != "}":
            raise _NoSketch(tokens[at][1])
    return {"type": "object", "properties": props}, at + 1


def _array(tokens: list[tuple[str, str]], at: int) -> tuple[JSON, int]:
    items: JSON | None = None
    while tokens[at][1] != "]":
        if tokens[at][0] == "dots":
            at += 1
        else:
            item, at = _value(tokens, at)
            items = item if items is None else items
        if tokens[at][1] == ",":
            at += 1
        elif tokens[at][1] != "]":
            raise _NoSketch(tokens[at][1])
    return ({"type": "array", "items": items} if items else {"type": "array"}), at + 1


__all__ = ["sketch_schema", "sketch_schemas"]

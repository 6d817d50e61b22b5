"""Statistics tools: answers made only of counts, computed from the state.

``get_user_stats(username) -> {tweet_count, following_count, retweet_count}`` does not read a
record of its own: it counts. Each field named or described as a count (``tweet_count``,
``total_contacts``, ``num_items``, "Number of messages received by ...") names what it counts —
an entity (rows, narrowed by the arguments that name the entity's fields: a user's tweets) or a
list a singleton holds (the ``following_list``) — by its own name first, else by its
description's noun. A tool is a statistics tool only when every field of its answer (inside one
optional envelope such as ``stats``) is an integer count and at least one of them names
something the state holds; a count of something it holds nowhere answers 0 (nothing of it was
ever made here).
"""

from __future__ import annotations

import re
from typing import Any

from envfactory.ir.effect import Behaviour, Count, CountEffect
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import SINGLETON_KEY, StateSchema
from envfactory.ir.tool import ToolSpec
from envfactory.synth.naming import matching_field, singular, tokens
from envfactory.synth.session import ENTITY as SESSION

JSON = dict[str, Any]

_NAMED = re.compile(r"^(?:(?P<a>[a-z_]+?)_count|count_of_(?P<b>[a-z_]+)|num(?:ber)?_of_(?P<c>[a-z_]+)|"
                    r"total_(?P<d>[a-z_]+)|num_(?P<e>[a-z_]+))$")  # fmt: skip
_SAID = re.compile(r"^\s*(?:the\s+)?(?:total\s+)?(?:number|count)\s+of\s+(?:the\s+)?(?P<noun>[a-z]+)", re.I)


def plan_counts(tools: list[ToolSpec], schema: StateSchema, behaviours: list[Behaviour]) -> list[Behaviour]:
    """``behaviours`` with every statistics tool's made a :class:`CountEffect` (reads only)."""
    out = []
    for behaviour, tool in zip(behaviours, tools, strict=True):
        effect = None if behaviour.effect.kind not in ("list", "read", "fallback") else _counting(tool, schema)
        if effect is None:
            out.append(behaviour)
            continue
        said = ", ".join(_said(c) for c in effect.counts)
        out.append(Behaviour(tool=tool.name, effect=effect, prior="confident", notes=(f"statistics: {said}",)))
    return out


def _said(count: Count) -> str:
    if count.by is not None:
        return f"{count.entity} by {count.by}"
    return f"{count.field} counts {count.entity or count.list_field or 'nothing held'}"


def _counting(tool: ToolSpec, schema: StateSchema) -> CountEffect | None:
    if primary_type(tool.output_schema or {}) == "integer":  # GET /users/count: the answer is the count
        return _bare_count(tool, schema)
    if _counts_map(tool.output_schema or {}):  # GET /store/inventory: {status: how many}
        return _tally(tool, schema)
    props = (tool.output_schema or {}).get("properties") or {}
    envelope = None
    if len(props) == 1:
        ((name, inner),) = props.items()
        if isinstance(inner, dict) and primary_type(inner) == "object" and inner.get("properties"):
            envelope, props = name, inner["properties"]
    if not props or any(
        not isinstance(s, dict) or primary_type(s) not in ("integer", "number") for s in props.values()
    ):
        return None
    counts = []
    for field, prop in props.items():
        nouns = _nouns(field, prop)
        if not nouns:
            return None  # a field that is not a count: not a statistics tool
        counts.append(_resolve(field, nouns, tool, schema))
    if all(c.entity is None and c.list_field is None for c in counts):
        return None
    return CountEffect(counts=tuple(counts), envelope=envelope)


def _bare_count(tool: ToolSpec, schema: StateSchema) -> CountEffect | None:
    """A tool whose whole answer is an integer and whose name ends in ``count`` after what it counts
    (``get_users_count``, ``countUsers`` is not: its noun comes after): a count of that entity."""
    words = tokens(tool.name)
    if len(words) < 2 or words[-1] != "count":
        return None
    count = _resolve("count", [singular(words[-2])], tool, schema)
    if count.entity is None or count.list_field is not None:
        return None
    return CountEffect(counts=(count,), bare=True)


def _counts_map(schema: JSON) -> bool:
    """An object of no declared members whose every value is an integer: a map of counts."""
    extra = schema.get("additionalProperties")
    return (primary_type(schema) == "object" and not schema.get("properties") and isinstance(extra, dict)
            and primary_type(extra) == "integer")  # fmt: skip


_BY = re.compile(r"\bby\s+(?:their\s+|its\s+|the\s+)?(?P<field>[a-z][a-z_]*)", re.I)


def _tally(tool: ToolSpec, schema: StateSchema) -> CountEffect | None:
    """A map of counts said to be *by* a field (``getInventory``: "Returns pet inventories by status")
    of a thing the description or name names (``pet``), whose records hold that field: that thing's
    records tallied by it. An entity this tool alone is read from (its own made-up ``inventory``)
    is none."""
    words = {singular(w) for w in [*tokens(tool.name), *re.findall(r"[a-z]+", tool.description.lower())]}
    named = [e for e in schema.entities if e.name in words and e.key != SINGLETON_KEY and e.sources != (tool.name,)]
    for said in _BY.finditer(tool.description):
        for entity in named:
            field = matching_field(entity.fields, said.group("field"), entity.name)
            if field is not None and field != entity.key:
                filters = {a: f for a in tool.properties if (f := matching_field(entity.fields, a, entity.name))}
                return CountEffect(counts=(Count(field=field, entity=entity.name, filters=filters, by=field),),
                                   bare=True)  # fmt: skip
    return None


def _nouns(field: str, prop: JSON) -> list[str]:
    """What a count field counts, by its name and then by its description (singular nouns)."""
    out = []
    named = _NAMED.match("_".join(tokens(field)))
    if named:
        out.append(next(v for v in named.groupdict().values() if v))
    said = _SAID.match(str(prop.get("description") or ""))
    if said:
        out.append(said.group("noun").lower())
    return ["_".join([*n.split("_")[:-1], singular(n.split("_")[-1])]) for n in out]


def _resolve(field: str, nouns: list[str], tool: ToolSpec, schema: StateSchema) -> Count:
    for noun in nouns:
        if noun in schema.names and schema[noun].key != SINGLETON_KEY:
            entity = schema[noun]
            filters = {arg: f for arg in tool.properties if (f := matching_field(entity.fields, arg, noun)) is not None}
            return Count(field=field, entity=noun, filters=filters)
        for single in schema.entities:  # a list a singleton holds: the following_list
            if single.key != SINGLETON_KEY:
                continue
            listed = next((f for f, s in single.fields.items() if primary_type(s) == "array" and _names(f, noun)), None)
            if listed is not None:
                return Count(field=field, entity=single.name, list_field=listed, owner=_owner(tool, schema))
    return Count(field=field)


def _owner(tool: ToolSpec, schema: StateSchema) -> tuple[str, str, str] | None:
    """The argument naming whose list a count reads, when a signed-in session says who holds the
    singleton's lists (``username`` against the session's ``username``)."""
    if SESSION not in schema.names:
        return None
    session = schema[SESSION]
    return next(((arg, SESSION, f) for arg in tool.required
                 if (f := matching_field(session.fields, arg, SESSION)) is not None), None)  # fmt: skip


def _names(field: str, noun: str) -> bool:
    """A list field named after what it holds: ``following_list`` for "following", ``tags`` for "tag"."""
    words = tokens(field)
    return field == noun or words[:1] == [noun] or singular(words[0]) == noun


__all__ = ["plan_counts"]

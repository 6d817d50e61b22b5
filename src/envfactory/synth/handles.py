"""Records named by their key or by a field: a key argument that says it takes either ("The ID or
name of the container", "Server size identifier expressed as UUID or name", ``id_or_name``) names a
record by that field too (:attr:`envfactory.ir.state.Entity.named_by`; the runtime's ``key_finder``)."""

from __future__ import annotations

import re
from typing import Any

from envfactory.ir.state import Entity, StateSchema
from envfactory.ir.tool import ToolSet
from envfactory.synth.naming import matching_field, same_field, tokens

JSON = dict[str, Any]

_KEY_WORDS = frozenset({"id", "identifier", "uuid", "key"})
# "<key word> or <word>", "<word> or <key word>": the word is what else names the record
_EITHER = re.compile(
    r"\b(?:id|identifier|uuid|key)\s+or\s+(?:its\s+|the\s+)?(?P<after>[a-z]+)"
    r"|\b(?P<before>[a-z]+)\s+or\s+(?:its\s+|the\s+)?(?:id|identifier|uuid|key)\b",
    re.I,
)


def _keyish(words: tuple[str, ...] | list[str], entity: Entity) -> bool:
    joined = "_".join(words)
    return (
        (len(words) == 1 and words[0] in _KEY_WORDS)
        or same_field(joined, entity.key)
        or same_field(joined, f"{entity.name}_id")
    )


def either_parts(arg: str, entity: Entity) -> tuple[str, ...] | None:
    """The words besides the key an argument named for either names (``id_or_name`` -> ``("name",)``),
    where one side of its ``or`` is the entity's key; else ``None``."""
    words = tokens(arg)
    if "or" not in words:
        return None
    at = words.index("or")
    before, after = tuple(words[:at]), tuple(words[at + 1 :])
    if before and after and _keyish(before, entity):
        return after
    if before and after and _keyish(after, entity):
        return before
    return None


def either_field(arg: str, prop: Any, entity: Entity) -> str | None:
    """The field of ``entity`` besides its key that the key argument ``arg`` says it takes (by its
    name, else by its description), if the entity has one."""
    said = either_parts(arg, entity)
    words: list[str] = ["_".join(said)] if said else []
    text = prop.get("description") if isinstance(prop, dict) else None
    if not words and isinstance(text, str):
        words = [w for m in _EITHER.finditer(text) if (w := (m.group("after") or m.group("before")).lower())]
    for word in words:
        if word in _KEY_WORDS:
            continue
        field = matching_field(entity.fields, word, entity.name)
        if field is not None and field != entity.key and field in entity.fields:
            return field
    return None


def named_records(schema: StateSchema, behaviours: list[Any], tools: ToolSet) -> StateSchema:
    """Each entity a key argument of some tool says it names by a field as well as by its key gets
    that field as its ``named_by`` (the first such tool's, in tool order)."""
    by_name = {t.name: t for t in tools.tools}
    found: dict[str, str] = {}
    for b in behaviours:
        entity, arg = getattr(b.effect, "entity", None), getattr(b.effect, "key_arg", None)
        if not isinstance(entity, str) or not isinstance(arg, str) or entity not in schema or entity in found:
            continue
        tool = by_name.get(b.tool)
        field = either_field(arg, tool.properties.get(arg), schema[entity]) if tool is not None else None
        if field is not None:
            found[entity] = field
    if not found:
        return schema
    return StateSchema(entities=tuple(
        e.model_copy(update={"named_by": found[e.name]}) if e.name in found else e for e in schema.entities
    ))  # fmt: skip


__all__ = ["either_field", "either_parts", "named_records"]

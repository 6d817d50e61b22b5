"""What a refusal says an argument may be: the values it lists (``kind 'answer' is not valid; must
be one of {design, schema, production, meta}``), for the argument the refusal names.

Exploration draws an argument's values from its schema; a schema that says only ``string`` leaves
every draw refused where the real side takes a few words. The real side's refusal names them, so
the explorer draws from them next (:func:`told_schema`). Pure; nothing is read where unsure: a
message listing values for no argument it names, or naming several, tells nothing.
"""

from __future__ import annotations

import re
from typing import Any

from envfactory.ir.env import EnvSpec
from envfactory.words import stands_in

JSON = dict[str, Any]

_LISTING = re.compile(
    r"\b(?:(?:must be|expected|should be) one of|one of|valid (?:values|options|choices) (?:are|is)|"
    r"allowed (?:values )?(?:are|is)|possible values are|choose from|expected|must be)\s*:?\s*(?P<rest>.+)",
    re.IGNORECASE | re.DOTALL,
)
_BRACKETED = re.compile(r"^[\[{(]([^\]})]*)[\]})]")
_VALUE = re.compile(r"^[A-Za-z0-9][\w\- .]{0,39}$")
_SPLIT = re.compile(r"\s*(?:,|\||/|\bor\b)\s*")
_TYPE = re.compile(
    r"^(?:an? )?(?:string|text|number|integer|int|float|boolean|bool|null|none|array|list|object|"
    r"dict|date|positive|negative|non-empty|empty)\b",
    re.IGNORECASE,
)
MIN_VALUES = 2
MAX_VALUES = 30


def listed_values(message: str) -> list[str]:
    """The values a refusal lists after "one of", "valid values are", "must be", ...: inside
    brackets or braces, or up to the sentence's end; each a short word or phrase, quotes taken off;
    [] where fewer than two (or too many) are listed."""
    return _listing(message)[1]


def _listing(message: str) -> tuple[str, list[str]]:
    """The text before a refusal's listing, and the values it lists (see :func:`listed_values`)."""
    match = _LISTING.search(message)
    if match is None:
        return message, []
    return message[: match.start()], _values_of(match)


def _values_of(match: re.Match[str]) -> list[str]:
    rest = match.group("rest").strip()
    bracketed = _BRACKETED.match(rest)
    listing = bracketed.group(1) if bracketed else re.split(r"[.;\n]\s|[.;\n]$|\)", rest)[0]
    values = [v.strip().strip("'\"`").strip() for v in _SPLIT.split(listing)]
    values = [v for v in values if v]
    if not MIN_VALUES <= len(values) <= MAX_VALUES or not all(_VALUE.match(v) for v in values):
        return []
    if any(_TYPE.match(v) for v in values):  # "must be a string or null": kinds of value, not values
        return []
    return list(dict.fromkeys(values))


def told_argument(message: str, args: JSON) -> tuple[str, list[str]] | None:
    """The argument a refusal of a call given ``args`` lists the values of, and those values: the one
    text argument whose value the message quotes or holds as a word before its listing, else whose
    name it holds so (one only; "must be one of" names no value ``be``); ``None`` where it lists none
    or names no one argument."""
    head, values = _listing(message)
    if not values:
        return None
    texts = {k: v for k, v in args.items() if isinstance(v, str) and v.strip() and v not in values}
    quoted = [k for k, v in texts.items() if stands_in(v, head)]
    named = [k for k in args if stands_in(k, head)]
    for found in (quoted, named):
        if len(found) == 1:
            return found[0], values
    return None


def told_schema(spec: EnvSpec, tool: str, arg: str, values: list[str]) -> EnvSpec:
    """``spec`` with ``tool``'s argument ``arg`` drawn from ``values`` (its schema an enum of them,
    its description kept); unchanged where the argument is not a declared one or has an enum."""
    if tool not in spec.tools.names:
        return spec
    schema = spec.tools[tool].input_schema
    props = schema.get("properties") or {}
    prop = props.get(arg)
    if not isinstance(prop, dict) or "enum" in prop:
        return spec
    told: JSON = {"type": "string", "enum": values}
    if isinstance(prop.get("description"), str):
        told["description"] = prop["description"]
    changed = {**schema, "properties": {**props, arg: told}}
    tools = tuple(t.model_copy(update={"input_schema": changed}) if t.name == tool else t for t in spec.tools.tools)
    return spec.model_copy(update={"tools": spec.tools.model_copy(update={"tools": tools})})


__all__ = ["listed_values", "told_argument", "told_schema"]

"""What a refusal says an argument must be: the values it lists (``kind 'answer' is not valid; must
be one of {design, schema, production, meta}``), a least length (``root_cause is too vague. Write at
least 20 characters``), an ending (``not a note: 'floor' (a note path ends in .md or .base)``), a
written form (``since must be an ISO date (YYYY-MM-DD), not 'run'``), a range (``importance must be
between 1 and 10``), the look of an example (``id must look like rec_00001``) — for the argument the
refusal names.

Exploration draws an argument's values from its schema; a schema that says only ``string`` leaves
every draw refused where the real side takes a few words, a long text, a file name. The real side's
refusal says what it takes, so the explorer draws so next (:func:`told_schema`), and a check learned
from those refusals makes the model refuse alike (:mod:`envfactory.runtime.stated`). Each statement
is a reader in :data:`READERS` (a pattern, and the JSON-schema keywords it means for a text or a
number); adding one is adding a reader. Pure; nothing is read where unsure: a message stating a rule
for no argument it names, or naming several, tells nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
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
    match = _LISTING.search(message)
    return [] if match is None else _values_of(match)


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


@dataclass(frozen=True)
class Reader:
    """One kind of statement: where it stands in a message, and the schema keywords it means for an
    argument given a text (``text``) or a number (``number``); ``None`` where it means nothing for it."""

    pattern: re.Pattern[str]
    text: Callable[[re.Match[str]], JSON | None]
    number: Callable[[re.Match[str]], JSON | None] = lambda _: None


def _listed(m: re.Match[str]) -> JSON | None:
    values = _values_of(m)
    return {"type": "string", "enum": values} if values else None


def _between(m: re.Match[str]) -> JSON | None:
    low, high = int(m.group("lo")), int(m.group("hi"))
    return {"minimum": low, "maximum": high} if low <= high else None


def _ending(m: re.Match[str]) -> JSON:
    """A name ending as stated (``ends in .md or .base``, ``a .json extension``): one of the endings."""
    endings = re.findall(r"\.(\w{1,12})", m.group("ends") or m.group("ext"))
    return {"pattern": rf"\.({'|'.join(dict.fromkeys(endings))})$"}


def _example(m: re.Match[str]) -> JSON | None:
    """The look of an example value: its letters and marks as they are, each run of digits as many digits."""
    example = m.group("example")
    if not any(c.isdigit() for c in example) or not any(c.isalpha() for c in example):
        return None
    parts = re.split(r"(\d+)", example)
    return {"pattern": "^" + "".join(rf"\d{{{len(p)}}}" if p.isdigit() else re.escape(p) for p in parts) + "$"}


_FORMS: tuple[tuple[re.Pattern[str], JSON], ...] = (  # a written form, most specific first
    (re.compile(r"YYYY-MM-DD[T ]HH:MM(?::SS)?|ISO[ -]?8601 date[- ]?time|date-?time", re.I), {"format": "date-time"}),
    (re.compile(r"YYYY-MM-DD|ISO(?:[ -]?8601)? date", re.I), {"format": "date"}),
    (re.compile(r"YYYY-MM\b"), {"pattern": r"^\d{4}-(0[1-9]|1[0-2])$"}),
)


def _form(m: re.Match[str]) -> JSON | None:
    return next((dict(keywords) for form, keywords in _FORMS if form.search(m.group(0))), None)


_LEAST = re.compile(
    r"\b(?:at least|minimum(?: length)?(?: of)?|min\.?|no (?:fewer|less) than)\s+(?P<n>\d{1,4})\s+"
    r"(?:characters|chars|letters)\b|\b(?P<n2>\d{1,4})\s+(?:characters|chars)\s+or more\b",
    re.IGNORECASE,
)
_BETWEEN = re.compile(
    r"\bbetween\s+(?P<lo>-?\d{1,6})\s+and\s+(?P<hi>-?\d{1,6})(?P<chars>\s+(?:characters|chars))?", re.IGNORECASE
)
_ENDS = re.compile(
    r"\b(?:ends?|ending)\s+(?:in|with)\s+(?P<ends>['\"`]?\.\w{1,12}['\"`]?(?:\s*(?:,|or)\s*['\"`]?\.\w{1,12}['\"`]?)*)"
    r"|\b(?:an?|the)\s+(?P<ext>['\"`]?\.\w{1,12}['\"`]?)\s+(?:extension|suffix)\b",
    re.IGNORECASE,
)
_FORM = re.compile(r"YYYY-MM(?:-DD)?(?:[T ]HH:MM(?::SS)?)?|\bISO[ -]?(?:8601 )?date(?:[- ]?time)?", re.IGNORECASE)
_LOOKS = re.compile(r"\b(?:look|looks) like\s+['\"`]?(?P<example>[A-Za-z0-9][\w-]{1,40}[A-Za-z0-9])", re.IGNORECASE)


def _length(m: re.Match[str]) -> JSON | None:
    if m.re is _LEAST:
        return {"minLength": int(m.group("n") or m.group("n2"))}
    return {"minLength": max(0, int(m.group("lo"))), "maxLength": int(m.group("hi"))} if m.group("chars") else None


# the statements read, in order: a message stating several is read by the first
READERS: dict[str, Reader] = {
    "values": Reader(_LISTING, _listed, _listed),  # a listing holds whatever the value given
    "least-length": Reader(_LEAST, _length),
    "between": Reader(_BETWEEN, _length, lambda m: None if m.group("chars") else _between(m)),
    "ending": Reader(_ENDS, _ending),
    "form": Reader(_FORM, _form),
    "looks-like": Reader(_LOOKS, _example),
}


@dataclass(frozen=True)
class Told:
    """What a refusal said ``arg`` must be, as JSON-schema keywords (``{"minLength": 20}``), and the
    reader that read it."""

    arg: str
    schema: JSON
    reader: str


def told(message: str, args: JSON) -> Told | None:
    """What a refusal of a call given ``args`` says one argument must be: the first statement of
    :data:`READERS` it makes that means something for the argument it names — the one text argument
    whose value the message quotes or holds as a word before the statement, else the one argument
    whose name it holds so (one only; "must be one of" names no value ``be``); ``None`` where it
    states nothing, or names no one argument."""
    for name, reader in READERS.items():
        for match in reader.pattern.finditer(message):
            arg = _named(message[: match.start()], args, match.group(0))
            if arg is None:
                continue
            value = args[arg]
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            # a listing holds whatever the value given; the other statements are about a text or a number
            text = isinstance(value, str) or name == "values"
            schema = reader.number(match) if number else reader.text(match) if text else None
            if schema:
                return Told(arg, schema, name)
    return None


def _named(head: str, args: JSON, statement: str) -> str | None:
    """The one argument ``head`` (the words before a statement) names: by its value, else its name."""
    texts = {k: v for k, v in args.items() if isinstance(v, str) and v.strip() and v not in statement}
    for found in ([k for k, v in texts.items() if stands_in(v, head)], [k for k in args if stands_in(k, head)]):
        if len(found) == 1:
            return found[0]
    return None


def told_argument(message: str, args: JSON) -> tuple[str, list[str]] | None:
    """The argument a refusal of a call given ``args`` lists the values of, and those values (see
    :func:`told`); ``None`` where it lists none or names no one argument."""
    found = told(message, args)
    return (found.arg, list(found.schema["enum"])) if found is not None and "enum" in found.schema else None


def told_schema(spec: EnvSpec, tool: str, arg: str, told: list[str] | JSON) -> EnvSpec:
    """``spec`` with ``tool``'s argument ``arg`` drawn as a refusal said: from the values it listed
    (a list: its schema an enum of them), else within the keywords it stated, its description kept;
    unchanged where the argument is not a declared one or has an enum."""
    if tool not in spec.tools.names:
        return spec
    schema = spec.tools[tool].input_schema
    props = schema.get("properties") or {}
    prop = props.get(arg)
    if not isinstance(prop, dict) or "enum" in prop:
        return spec
    keywords: JSON = {"type": "string", "enum": told} if isinstance(told, list) else told
    if "enum" in keywords:
        drawn: JSON = dict(keywords)
        if isinstance(prop.get("description"), str):
            drawn["description"] = prop["description"]
    else:  # laid on the one typed branch of a nullable argument (``anyOf: [string, null]``), which draws ignore else
        drawn = {k: v for k, v in _typed(prop).items() if not ("pattern" in keywords and k == "format")} | keywords
    if drawn == prop:
        return spec
    changed = {**schema, "properties": {**props, arg: drawn}}
    tools = tuple(t.model_copy(update={"input_schema": changed}) if t.name == tool else t for t in spec.tools.tools)
    return spec.model_copy(update={"tools": spec.tools.model_copy(update={"tools": tools})})


def _typed(prop: JSON) -> JSON:
    """An argument's schema with its one typed ``anyOf``/``oneOf`` branch taken up (a null one aside)."""
    branches = prop.get("anyOf") or prop.get("oneOf")
    typed = [b for b in branches if isinstance(b, dict) and b.get("type") not in (None, "null")] if isinstance(
        branches, list) else []  # fmt: skip
    if len(typed) != 1:
        return prop
    return {k: v for k, v in prop.items() if k not in ("anyOf", "oneOf")} | typed[0]


__all__ = ["READERS", "Reader", "Told", "listed_values", "told", "told_argument", "told_schema"]

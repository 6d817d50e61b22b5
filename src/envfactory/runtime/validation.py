"""Argument validation: one fastjsonschema validator compiled per tool, at environment load."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import fastjsonschema

JSON = dict[str, Any]
Validator = Callable[[Any], str | None]  # returns an error message or None
MAX_STRING = 10_000
# formats fastjsonschema does not know (OpenAPI's): accept any value of the right type
_KNOWN_FORMATS = {
    "date-time",
    "date",
    "time",
    "email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "regex",
    "uri",
    "iri",
    "uri-reference",
    "iri-reference",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "uuid",
    "duration",
}
_PREFIX = re.compile(r"^data\.?")


def _formats(schema: Any, found: set[str]) -> set[str]:
    if isinstance(schema, dict):
        fmt = schema.get("format")
        if isinstance(fmt, str):
            found.add(fmt)
        for value in schema.values():
            _formats(value, found)
    elif isinstance(schema, list):
        for value in schema:
            _formats(value, found)
    return found


def compile_validator(schema: JSON, *, strict: bool = True) -> Validator:
    """A fast validator; with ``strict`` unknown top-level arguments are rejected."""
    schema = dict(schema)
    if strict and "additionalProperties" not in schema:
        schema["additionalProperties"] = False
    unknown = {f: (lambda _v: True) for f in _formats(schema, set()) - _KNOWN_FORMATS}
    try:
        check = fastjsonschema.compile(schema, formats=unknown, use_default=False)
    except fastjsonschema.JsonSchemaDefinitionException:
        check = fastjsonschema.compile({"type": "object"})
    props = list((schema.get("properties") or {}).keys())

    def validate(args: Any) -> str | None:
        try:
            check(args)
        except fastjsonschema.JsonSchemaValueException as err:
            return _message(err, props)
        return _too_long(args)

    return validate


def _message(err: fastjsonschema.JsonSchemaValueException, props: list[str]) -> str:
    if err.rule == "additionalProperties":
        extra = ""
        if isinstance(err.value, dict):
            extra = ", ".join(sorted(k for k in err.value if k not in props))
        return f"unknown argument(s) {extra}; expected: {', '.join(props) or 'no arguments'}"
    if err.rule == "required" and isinstance(err.value, dict):
        missing = [r for r in err.rule_definition or () if r not in err.value]
        where = _PREFIX.sub("", err.name or "")
        inside = f" in {where!r}" if where else ""
        return f"missing required argument(s){inside}: {', '.join(missing)}"
    path = _PREFIX.sub("", err.name or "")
    tail = (
        err.message[len(err.name or "") :].strip() if err.message.startswith(err.name or "") else err.message
    )
    if not path:
        return "arguments must be a JSON object" if err.rule == "type" else f"arguments {tail}"
    return f"argument {path!r} {tail}"


def _too_long(value: Any) -> str | None:
    if isinstance(value, str):
        return (
            f"a string argument is {len(value)} characters; the limit is {MAX_STRING}"
            if len(value) > MAX_STRING
            else None
        )
    if isinstance(value, dict):
        for v in value.values():
            if (msg := _too_long(v)) is not None:
                return msg
    elif isinstance(value, list):
        for v in value:
            if (msg := _too_long(v)) is not None:
                return msg
    return None

"""Argument validation: one fastjsonschema validator compiled per tool, at environment load."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import fastjsonschema
import jsonschema
from fastjsonschema.draft07 import CodeGeneratorDraft07

from envfactory.patterns import linear_pattern

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
PATTERN_FORMAT = "envfactory-pattern-"


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


_COMPILED: dict[str, Callable[[Any], Any]] = {}
_MAX_COMPILED = 4096


def compile_schema(schema: JSON, *, fallback: JSON | None = None) -> Callable[[Any], Any]:
    """:func:`compiled_schema`, once per distinct schema: a big spec's tools share answers (every
    Slack method answers ``{ok, ...}``), and generating a validator's code is the slow part."""
    try:
        key = json.dumps([schema, fallback], sort_keys=True, allow_nan=False)
    except (TypeError, ValueError, RecursionError):  # not plain JSON: compile it as it is
        return compiled_schema(schema, fallback=fallback)
    found = _COMPILED.get(key)
    if found is None:
        if len(_COMPILED) >= _MAX_COMPILED:
            _COMPILED.clear()
        found = _COMPILED[key] = compiled_schema(schema, fallback=fallback)
    return found


def accepts(schema: JSON, value: Any) -> bool:
    """Whether ``value`` passes ``schema`` (its compiled validator, once per distinct schema)."""
    try:
        compile_schema(schema)(value)
    except Exception:  # the validator's own refusal, whatever type it raises
        return False
    return True


def taken_by_one(alternatives: list[JSON], value: Any) -> bool:
    """Whether exactly one of ``alternatives`` accepts ``value``, as ``oneOf`` requires."""
    return sum(accepts(a, value) for a in alternatives) == 1


def compiled_schema(schema: JSON, *, fallback: JSON | None = None) -> Callable[[Any], Any]:
    """fastjsonschema's checker; formats it does not know (OpenAPI's int32, ...) accept anything.

    ``pattern`` is checked by RE2, in time linear in the string whatever the spec says (Python's
    ``re`` takes seconds on ``^(a+)+$`` and 25 characters); a pattern RE2 cannot compile
    (back-references, look-arounds) is not enforced. A schema fastjsonschema cannot compile is
    replaced by ``fallback`` (default: accept anything).
    """
    patterns: dict[str, tuple[str, Callable[[Any], bool]]] = {}
    schema = _linear_patterns(schema, patterns)
    unknown = {f: (lambda _v: True) for f in _formats(schema, set()) - _KNOWN_FORMATS - set(patterns)}
    checks = {name: check for name, (_, check) in patterns.items()}
    try:
        compiled = fastjsonschema.compile(schema, formats={**unknown, **checks}, use_default=False)
    except Exception:  # JsonSchemaDefinitionException, or any error on a schema of the wrong shape
        return fastjsonschema.compile(fallback or {})
    if not patterns:
        return compiled
    texts = {name: text for name, (text, _) in patterns.items()}

    def check(value: Any) -> Any:
        try:
            return compiled(value)
        except fastjsonschema.JsonSchemaValueException as err:
            raise _in_spec_terms(err, texts) from None

    return check


def _in_spec_terms(err: fastjsonschema.JsonSchemaValueException, patterns: dict[str, str]) -> Exception:
    """A refusal of a pattern moved into a format (``must be envfactory-pattern-3``) said as the spec
    says it: ``data.carrier_id must match the pattern '^[A-Z]{2}$'``."""
    fmt = err.definition.get("format") if err.rule == "format" and isinstance(err.definition, dict) else None
    if fmt not in patterns:
        return err
    pattern = patterns[str(fmt)]
    return fastjsonschema.JsonSchemaValueException(
        f"{err.name} must match the pattern {pattern!r}", value=err.value, name=err.name,
        definition={"pattern": pattern}, rule="pattern",
    )  # fmt: skip


# keywords whose value maps names to schemas: a member named ``pattern`` (Mandrill's inbound route) is no keyword
_NAMED_SCHEMAS = frozenset({"properties", "definitions", "$defs", "dependentSchemas"})


def _named_schemas(named: JSON, found: dict[str, tuple[str, Callable[[Any], bool]]]) -> JSON:
    return {name: _linear_patterns(sub, found) for name, sub in named.items()}


def _linear_patterns(schema: Any, found: dict[str, tuple[str, Callable[[Any], bool]]]) -> Any:
    """``schema`` with every ``pattern`` moved into a format checked by RE2, ``patternProperties``
    (regular expressions as keys) dropped, and any ``$ref`` that is not local dropped."""
    if isinstance(schema, list):
        return [_linear_patterns(s, found) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        k: v if k in ("enum", "const", "default", "examples")
        else _named_schemas(v, found) if k in _NAMED_SCHEMAS and isinstance(v, dict)
        else _linear_patterns(v, found)
        for k, v in schema.items()
        if k != "patternProperties"
    }  # fmt: skip
    ref = out.get("$ref")
    if ref is not None and not (isinstance(ref, str) and ref.startswith("#")):
        out.pop("$ref")  # a remote $ref would make fastjsonschema fetch it: never touch the network
    pattern = out.pop("pattern", None)
    if isinstance(pattern, str):
        check = linear_pattern(pattern)
        if check is not None:
            name = f"{PATTERN_FORMAT}{len(found)}"
            found[name] = (pattern, check)
            out["allOf"] = [*(out.get("allOf") or []), {"format": name}]
    return out


_FORMAT_REGEXES = {name: re.compile(regex) for name, regex in CodeGeneratorDraft07.FORMAT_REGEXS.items()}


def interpreted_validator(schema: JSON, *, root: str = "output") -> Validator:
    """A check without code generation (``jsonschema``, interpreted) for a schema checked a few times:
    the self-check validates each tool's answers once or twice, and generating a validator for a big
    spec's answers (Discord's: 600 of them, thousands of nodes each) took longer than all the rest of
    the self-check. Patterns are checked by RE2 as everywhere; a schema it cannot read accepts anything."""
    patterns: dict[str, tuple[str, Callable[[Any], bool]]] = {}
    linear = _linear_patterns(schema, patterns)
    checker = jsonschema.FormatChecker(formats=())
    for name, regex in _FORMAT_REGEXES.items():  # the formats a compiled validator checks, the same way
        checker.checks(name)(lambda value, regex=regex: not isinstance(value, str) or regex.match(value) is not None)
    for name, (_, check) in patterns.items():
        checker.checks(name)(lambda value, check=check: not isinstance(value, str) or check(value))
    validator = jsonschema.Draft7Validator(linear, format_checker=checker)

    def validate(value: Any) -> str | None:
        try:
            error = next(iter(validator.iter_errors(value)), None)
        except Exception:  # a keyword of a shape jsonschema cannot apply: nothing to hold the value to
            return None
        if error is None:
            return None
        where = root + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        fmt = error.validator_value if error.validator == "format" else None
        if isinstance(fmt, str) and fmt in patterns:
            return f"{where} must match the pattern {patterns[fmt][0]!r}"
        return f"{where}: {error.message}"

    return validate


def compile_validator(schema: JSON, *, strict: bool = True) -> Validator:
    """Argument validation; with ``strict`` unknown top-level arguments are rejected. The checker
    is generated on the first call: an environment of 242 tools starts without generating 242 of
    them (seconds, for a large description), and pays for each tool an episode calls, once."""
    schema = _cap_strings(dict(schema))
    if strict and "additionalProperties" not in schema:
        schema["additionalProperties"] = False
    made: list[Callable[[Any], Any]] = []
    props = list((schema.get("properties") or {}).keys())

    def validate(args: Any) -> str | None:
        if not made:
            made.append(compile_schema(schema, fallback={"type": "object"}))
        try:
            made[0](args)
        except fastjsonschema.JsonSchemaValueException as err:
            return _message(err, props)
        return None

    return validate


def _cap_strings(schema: Any) -> Any:
    """Give every string schema a ``maxLength`` so that huge strings are refused while validating."""
    if isinstance(schema, list):
        return [_cap_strings(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _cap_strings(v) if isinstance(v, (dict, list)) and k != "enum" and k != "const" else v
           for k, v in schema.items()}  # fmt: skip
    typ = out.get("type")
    if (typ == "string" or (isinstance(typ, list) and "string" in typ)) and "maxLength" not in out:
        out["maxLength"] = MAX_STRING
    return out


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
    tail = err.message[len(err.name or "") :].strip() if err.message.startswith(err.name or "") else err.message
    if not path:
        return "arguments must be a JSON object" if err.rule == "type" else f"arguments {tail}"
    return f"argument {path!r} {tail}"

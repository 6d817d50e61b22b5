"""Refusals say what the schema asks for in the spec's own terms (issue #25: self-check messages
read ``output.carrier_id must be envfactory-pattern-N``, a format made up inside envfactory)."""

from __future__ import annotations

import json

import fastjsonschema
import pytest

from envfactory.runtime.validation import compile_schema, compile_validator
from envfactory.synth.probe import output_validator

CARRIER = {"type": "object", "properties": {"carrier_id": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{4}$"},
                                            "code": {"type": "string", "format": "uuid"}}}  # fmt: skip


def test_a_pattern_refusal_names_the_pattern() -> None:
    check = compile_schema(CARRIER)
    check({"carrier_id": "AB1234"})
    with pytest.raises(fastjsonschema.JsonSchemaValueException) as caught:
        check({"carrier_id": "ab"})
    assert caught.value.message == "data.carrier_id must match the pattern '^[A-Z]{2}[0-9]{4}$'"
    assert caught.value.rule == "pattern"


def test_self_check_and_argument_messages_never_name_an_internal_format() -> None:
    said = output_validator(CARRIER)({"carrier_id": "nope"})
    assert said == "output.carrier_id must match the pattern '^[A-Z]{2}[0-9]{4}$'"
    told = compile_validator(CARRIER)({"carrier_id": "nope"})
    assert told == "argument 'carrier_id' must match the pattern '^[A-Z]{2}[0-9]{4}$'"
    nested = compile_validator({"type": "object", "properties": {"legs": {"type": "array", "items": CARRIER}}})
    assert "envfactory" not in (nested({"legs": [{"carrier_id": "x"}]}) or "")
    assert "must be uuid" in (compile_validator(CARRIER)({"code": "x"}) or "")  # a format of the spec's own


def test_a_schema_is_compiled_once_however_many_tools_share_it() -> None:
    """A big spec's tools share their answers' schemas; generating a validator's code is the slow part."""
    assert compile_schema(json.loads(json.dumps(CARRIER))) is compile_schema(json.loads(json.dumps(CARRIER)))
    assert compile_schema(CARRIER) is not compile_schema({**CARRIER, "required": ["code"]})


def test_outputs_are_checked_without_generating_code() -> None:
    validate = output_validator({"type": "array", "items": CARRIER})
    assert validate([{"carrier_id": "AB1234", "code": "00000000-0000-4000-8000-000000000000"}]) is None
    assert validate([{"carrier_id": 5}]) == "output[0].carrier_id: 5 is not of type 'string'"
    assert output_validator({"type": 5})({"a": 1}) is None  # a schema it cannot read holds nothing back

"""Refusals say what the schema asks for in the spec's own terms (issue #25: self-check messages
read ``output.carrier_id must be envfactory-pattern-N``, a format made up inside envfactory)."""

from __future__ import annotations

import fastjsonschema
import pytest

from envfactory.runtime.validation import compile_schema, compile_validator
from envfactory.synth.selfcheck import _output_validator

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
    said = _output_validator(CARRIER)({"carrier_id": "nope"})
    assert said == "output.carrier_id must match the pattern '^[A-Z]{2}[0-9]{4}$'"
    told = compile_validator(CARRIER)({"carrier_id": "nope"})
    assert told == "argument 'carrier_id' must match the pattern '^[A-Z]{2}[0-9]{4}$'"
    nested = compile_validator({"type": "object", "properties": {"legs": {"type": "array", "items": CARRIER}}})
    assert "envfactory" not in (nested({"legs": [{"carrier_id": "x"}]}) or "")
    assert "must be uuid" in (compile_validator(CARRIER)({"code": "x"}) or "")  # a format of the spec's own

"""Outputs made to fit their declared schema (runtime.conform), value by value."""

import re

from envfactory.runtime.conform import compile_conformer
from envfactory.runtime.shape import compile_shaper


def fit(schema: dict, value: object) -> object:
    conform = compile_conformer(schema)
    assert conform is not None
    return conform(value)


def test_fitting_values_are_left_alone() -> None:
    record = {"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"},
                                               "tags": {"type": "array", "items": {"type": "string"}}}}  # fmt: skip
    row = {"id": 7, "name": "Ada", "tags": ["a"], "extra": 1}
    assert fit(record, row) == row


def test_misfits_become_values_of_the_declared_type() -> None:
    assert fit({"type": "integer"}, "12") == 12
    assert fit({"type": "integer"}, 3.0) == 3
    assert fit({"type": "integer"}, "shelf_3") == fit({"type": "integer"}, "shelf_3")  # stable
    assert isinstance(fit({"type": "integer"}, "shelf_3"), int)
    assert fit({"type": "number"}, "2.5") == 2.5
    assert fit({"type": "string"}, 5) == "5"
    assert fit({"type": "string"}, {"a": 1}) == '{"a": 1}'
    assert fit({"type": "boolean"}, 1) is True
    assert fit({"type": "array", "items": {"type": "integer"}}, "4") == [4]
    assert fit({"type": "object", "properties": {"n": {"type": "integer"}}}, "x") == {}
    assert fit({"type": ["integer", "null"]}, None) is None


def test_enums_and_formats_are_met() -> None:
    assert fit({"type": "string", "enum": ["track"]}, "album") == "track"
    assert fit({"type": "string", "enum": ["a", "b"]}, "b") == "b"
    made = fit({"type": "string", "format": "uuid"}, "ticket_0001")
    assert isinstance(made, str) and re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", made)
    assert made == fit({"type": "string", "format": "uuid"}, "ticket_0001")
    assert fit({"type": "string", "format": "date-time"}, "2025-03-01T10:00:00Z") == "2025-03-01T10:00:00Z"
    assert re.fullmatch(r"2025-\d\d-\d\dT12:00:00Z", str(fit({"type": "string", "format": "date-time"}, "soon")))
    assert re.fullmatch(r"2025-\d\d-\d\d", str(fit({"type": "string", "format": "date"}, 20250101)))


def test_the_shaper_fits_records_inside_their_envelope() -> None:
    schema = {"type": "object", "properties": {
        "data": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "integer"}}}}}}  # fmt: skip
    assert compile_shaper(schema)([{"id": "41"}, {"id": 2}]) == {"data": [{"id": 41}, {"id": 2}]}


def test_nothing_checkable_compiles_to_none() -> None:
    assert compile_conformer(None) is None
    assert compile_conformer({}) is None


def test_a_text_its_pattern_refuses_a_uri_or_email_that_is_none_and_a_closed_objects_extras() -> None:
    schema = {"type": "object", "additionalProperties": False, "properties": {
        "channel": {"type": "string", "pattern": "^[CGD][A-Z0-9]{8,}$"},
        "url": {"type": "string", "format": "uri"}, "mail": {"type": "string", "format": "email"}}}  # fmt: skip
    conform = compile_conformer(schema)
    assert conform is not None
    fixed = conform({"channel": "general", "url": "", "mail": "nobody", "extra": 1})
    assert set(fixed) == {"channel", "url", "mail"}  # what the object does not declare is left out
    assert re.fullmatch(r"[CGD][A-Z0-9]{8,}", fixed["channel"])
    assert fixed["url"].startswith("https://") and re.fullmatch(r"[^@]+@[^@]+\.[^@]+", fixed["mail"])
    assert conform({"channel": "general"}) == {"channel": fixed["channel"]}  # the same text, the same fix
    fitting = {"channel": "C12345678", "url": "https://x.y/z", "mail": "a@b.co"}
    assert conform(fitting) == fitting
    assert compile_conformer({"type": "string", "pattern": "(?<=a)b"}) is not None  # RE2 cannot check it: kept
    assert compile_conformer({"type": "string", "pattern": "(?<=a)b"})("zz") == "zz"


def test_alternatives_fit_a_value_to_the_one_of_its_own_type() -> None:
    record = {"type": "object", "additionalProperties": False,
              "properties": {"id": {"type": "string", "pattern": "^[0-9]+$"}}}  # fmt: skip
    schema = {"oneOf": [{"type": "null"}, record]}
    conform = compile_conformer(schema)
    assert conform is not None
    assert conform(None) is None
    fixed = conform({"id": "user_7", "extra": True})
    assert set(fixed) == {"id"} and re.fullmatch(r"[0-9]+", fixed["id"])
    assert conform("text") == "text"  # of no alternative's type: left as it is
    number = compile_conformer({"anyOf": [{"type": "string", "format": "uri"}, {"type": "number"}]})
    assert number is not None and number(3) == 3 and number("").startswith("https://")


def test_an_enum_of_numbers_declared_text_is_its_texts_and_null_only_where_allowed() -> None:
    assert fit({"type": "string", "enum": [169, 32, 43]}, 43) == "43"
    assert fit({"type": "string", "enum": ["red", None]}, None) == "red"
    assert fit({"type": ["string", "null"], "enum": ["red", None]}, None) is None


def test_nothing_where_alternatives_allow_no_null_is_the_first_ones_smallest_value() -> None:
    address = {"type": "object", "required": ["line"], "properties": {"line": {"type": "string", "minLength": 1}}}
    match = {"anyOf": [address, {"type": "string"}]}
    record = {"type": "object", "required": ["match", "count"],
              "properties": {"match": match, "count": {"type": "integer", "minimum": 0}}}  # fmt: skip
    result = {"anyOf": [record, {"type": "array", "items": record}]}  # ideal-postcodes' cleansed address
    assert fit(result, None) == {"match": {"line": "x"}, "count": 0}
    assert fit({"anyOf": [record, {"type": "null"}]}, None) is None


def test_a_member_required_but_not_declared_is_answered() -> None:
    """BIAPI: ``{type: object, required: [jwt_token, payload]}`` declares no properties at all."""
    fit = compile_conformer({"type": "object", "required": ["jwt_token", "payload"]})
    assert fit is not None
    assert fit({"duration": 3}) == {"duration": 3, "jwt_token": None, "payload": None}
    assert fit({"jwt_token": "t"}) == {"jwt_token": "t", "payload": None}
    typed = compile_conformer({"type": "object", "required": ["n"], "additionalProperties": {"type": "integer"}})
    assert typed is not None and typed({}) == {"n": 0}
    closed = {"type": "object", "required": ["n"], "properties": {}, "additionalProperties": False}
    fit = compile_conformer(closed)
    assert fit is None or fit({}) == {}  # admits no member: none is made up


def test_a_required_member_deep_inside_is_answered_as_deep_as_conformers_go() -> None:
    """GoDaddy: an order's ``items[].pricing.fees`` requires its ``total``, five objects down."""
    fees = {"type": "object", "required": ["total"], "properties": {"total": {"type": "integer"}}}
    pricing = {"type": "object", "required": ["fees"], "properties": {"fees": fees}}
    item = {"type": "object", "required": ["pricing"], "properties": {"pricing": pricing}}
    order = {"type": "object", "properties": {"items": {"type": "array", "items": item}}}
    fit = compile_conformer({"type": "object", "required": ["order"], "properties": {"order": order}})
    assert fit is not None
    assert fit({"order": {"items": [{}]}}) == {"order": {"items": [{"pricing": {"fees": {"total": 0}}}]}}

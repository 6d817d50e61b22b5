"""Values the self-check and the seeder make pass the checks the descriptions declare."""

from __future__ import annotations

from envfactory.runtime.validation import compile_schema
from envfactory.synth.arguments import fits
from envfactory.synth.data import coerce_key
from envfactory.values import ValueMaker


def test_a_multiple_of_a_decimal_step_passes_the_validators_own_test() -> None:
    """183.1 is a multiple of 0.1, but 183.1 / 0.1 is 1830.9999999999998 to a validator."""
    schema = {"type": "number", "minimum": 100, "maximum": 200, "multipleOf": 0.1}
    check = compile_schema(schema)
    maker = ValueMaker(0)
    for _ in range(300):
        value = maker.value(schema, "tank_length", "fish")
        check(value)  # raises where the validator refuses it
        assert (value / 0.1).is_integer()


def test_a_list_of_lists_does_not_fit_a_list_of_ids() -> None:
    ids = {"type": "array", "items": {"type": "string"}}
    assert fits(["a", "b"], ids)
    assert not fits([["a"], ["b"]], ids)
    assert fits([True], {"type": "array", "items": {"type": "boolean"}})
    assert not fits([1], {"type": "array", "items": {"type": "boolean"}})


def test_a_key_passed_to_a_number_parameter_is_a_number() -> None:
    assert coerce_key("7", {"type": "number"}) == 7
    assert coerce_key("7", {"type": "integer"}) == 7
    assert coerce_key(7, {"type": "string"}) == "7"


def test_characters_a_value_may_hold_are_no_enum() -> None:
    from envfactory.ir.prose import enum_from_description

    text = "The identifier should only include alphanumeric characters, '.', '_', or '-'."
    assert enum_from_description(text) == []
    assert enum_from_description("One of: 'open', 'closed'") == ["open", "closed"]


def test_a_map_that_must_hold_members_is_made_with_them() -> None:
    tags = {"type": "object", "additionalProperties": {"type": "string"}, "minProperties": 1}
    check = compile_schema(tags)
    maker = ValueMaker(0)
    for _ in range(20):
        check(maker.value(tags, "Tags", "integration"))


def test_a_placeholder_text_is_as_long_as_it_must_be() -> None:
    from envfactory.runtime.conform import placeholder_value

    assert placeholder_value({"type": "string", "minLength": 3}) == "xxx"
    assert placeholder_value({"type": "string"}) == ""


def test_a_value_of_one_of_alternatives_is_taken_by_exactly_one() -> None:
    """Ideal Postcodes: ``context`` is ``oneOf: [{enum: [""]}, {type: string}]``; an empty text fits both,
    which ``oneOf`` refuses: the placeholder and the seeded value are texts only the second takes."""
    from envfactory.runtime.conform import placeholder_value

    context = {"oneOf": [{"type": "string", "enum": [""]}, {"type": "string", "description": "A boundary."}]}
    check = compile_schema(context)
    check(placeholder_value(context))
    maker = ValueMaker(0)
    for _ in range(20):
        check(maker.value(context, "context", "key"))
    assert (
        placeholder_value({"oneOf": [{"type": "integer"}, {"type": "string"}]}) == 0
    )  # the first, where it fits alone


def test_a_declared_boolean_answer_says_whether_the_write_answered() -> None:
    from envfactory.runtime.shape import compile_shaper

    shape = compile_shaper({"type": "boolean"})
    assert shape({"id": "membership_0013"}) is True
    assert shape(False) is False and shape(None) is False


def test_a_formatted_text_with_a_pattern_matches_both() -> None:
    url = {"type": "string", "format": "uri", "pattern": ".+/v[0-1](\\\\.[0-9]+)*/?$"}
    check = compile_schema(url)
    maker = ValueMaker(0)
    for _ in range(20):
        check(maker.value(url, "url", "api_version"))


def test_a_placeholder_text_matches_its_pattern() -> None:
    from envfactory.runtime.conform import placeholder_value

    semver = {"type": "string", "pattern": "^(0|[1-9]\\\\d*)\\\\.(0|[1-9]\\\\d*)\\\\.(0|[1-9]\\\\d*)$"}
    compile_schema(semver)(placeholder_value(semver))


def test_a_key_with_a_pattern_and_a_length_has_both() -> None:
    from envfactory.keys import shaped_key

    shape = {"pattern": "[a-f0-9]+", "minLength": 40, "maxLength": 40}
    keys = [shaped_key("analysis", n, shape, f"analysis_{n:04d}") for n in range(1, 30)]
    assert all(len(k) == 40 and set(k) <= set("abcdef0123456789") for k in keys)
    assert len(set(keys)) == len(keys)


def test_members_required_beside_branches_are_made() -> None:
    body = {"required": ["Title", "File", "DocumentId"],
            "anyOf": [{"type": "object", "properties": {"DocumentId": {"type": "string"}, "VAT": {"type": "number"}}},
                      {"type": "object", "properties": {"Title": {"type": "string"}}}]}  # fmt: skip
    check = compile_schema(body)
    maker = ValueMaker(0)
    for _ in range(10):
        check(maker.value(body, "body", "invoice"))


def test_an_email_address_is_an_email_and_a_street_address_a_street() -> None:
    maker = ValueMaker(0)
    assert "@" in maker.value({"type": "string"}, "contact_email_address", "webhook")
    assert "@" not in maker.value({"type": "string"}, "address", "customer")


def test_keys_of_a_declared_text_format_have_it() -> None:
    from envfactory.keys import shaped_key

    for fmt in ("email", "hostname", "uri", "ipv4"):
        check = compile_schema({"type": "string", "format": fmt})
        keys = [shaped_key("follower", n, {"format": fmt}, f"follower_{n:04d}") for n in range(1, 20)]
        for key in keys:
            check(key)
        assert len(set(keys)) == len(keys)


def test_a_number_declared_for_a_write_is_the_record_id() -> None:
    from envfactory.runtime.shape import compile_shaper

    shape = compile_shaper({"type": "integer", "format": "int32"})
    assert shape({"Id": 553, "Name": "x"}) == 553
    assert shape({"name": "no id"}) == 1 and shape([{}, {}]) == 2 and shape(7) == 7


def test_a_value_the_schema_rules_out_is_drawn_again() -> None:
    lac = {"type": "integer", "minimum": 65533, "maximum": 65535, "not": {"minimum": 65534, "maximum": 65534}}
    check = compile_schema(lac)
    maker = ValueMaker(0)
    for _ in range(30):
        check(maker.value(lac, "lac", "cell"))


def test_a_key_fits_the_one_alternative_that_takes_it() -> None:
    """PeerTube: a video is named by ``oneOf: [uuid text, integer id]``; a read's ``id`` adds a short
    uuid of any text, so a uuid fits two of its three alternatives and the validator refuses it."""
    uuid = {"type": "string", "format": "uuid", "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
            "[0-9a-f]{12}$"}  # fmt: skip
    made = {"oneOf": [uuid, {"type": "integer", "minimum": 1}]}
    read = {"oneOf": [{"type": "integer", "minimum": 1}, uuid, {"type": "string"}]}
    assert coerce_key(99_999, made) == 99_999  # not the text "99999", which neither alternative takes
    assert fits(99_999, made) and fits(99_999, read)
    assert fits("9c9de5e8-0a1e-484a-b099-e80766180a6d", made)
    assert not fits("9c9de5e8-0a1e-484a-b099-e80766180a6d", read)  # two of oneOf's alternatives
    assert fits("9c9de5e8-0a1e-484a-b099-e80766180a6d", {"anyOf": read["oneOf"]})
    check = compile_schema(read)
    check(99_999)
    assert not fits("99999", made)


def test_a_date_time_is_written_as_long_as_its_schema_allows() -> None:
    """Telstra: timestamps of exactly 24 characters (``2026-01-24T12:00:00.000Z``)."""
    maker = ValueMaker(0)
    for lo, hi, length in ((24, 24, 24), (25, 25, 25), (0, 20, 20), (21, 26, 24), (None, None, 20)):
        schema = {"type": "string", "format": "date-time", **({"minLength": lo, "maxLength": hi} if lo else {})}
        value = maker.value(schema, "createTimestamp", "message")
        compile_schema(schema)(value)
        assert len(value) == length and value[:4].isdigit() and value[10] == "T"


def test_a_key_with_a_format_and_a_pattern_no_format_value_fits_takes_the_pattern() -> None:
    """Keys of one entity read from two routes: one declares a uuid, the other ``^se(-[a-z0-9]+)+$``."""
    from envfactory.keys import shaped_key

    check = compile_schema({"type": "string", "pattern": "^se(-[a-z0-9]+)+$"})
    shape = {"format": "uuid", "pattern": "^se(-[a-z0-9]+)+$", "maxLength": 25}
    for n in range(1, 20):
        check(shaped_key("request", n, shape, f"request_{n:04d}"))
    assert shaped_key("request", 1, {"format": "uuid", "pattern": "^[0-9a-f-]+$"}, "r").count("-") == 4  # both: a uuid


def test_a_key_the_parameter_pattern_refuses_does_not_fit() -> None:
    code = {"type": "string", "pattern": "^[a-z0-9]+(_[a-z0-9]+)*$"}
    assert fits("small_flat_rate_box", code)
    assert not fits("se-a1-bzds", code)


def test_a_placeholder_holds_as_many_items_and_as_large_a_number_as_it_must() -> None:
    from envfactory.runtime.conform import compile_conformer, placeholder_value

    package = {"type": "object", "required": ["weight"],
               "properties": {"weight": {"type": "number", "minimum": 0, "exclusiveMinimum": True}}}  # fmt: skip
    packages = {"type": "array", "minItems": 1, "items": package}
    assert placeholder_value(packages) == [{"weight": 1}]
    assert placeholder_value({"type": "integer", "exclusiveMinimum": 5}) == 6
    assert placeholder_value({"type": "integer", "minimum": 5}) == 5
    fit = compile_conformer(packages)
    assert fit is not None
    assert fit([]) == [{"weight": 1}]  # an answer that must hold one package holds one
    assert fit([{"weight": 2.5}, {"weight": 3}]) == [{"weight": 2.5}, {"weight": 3}]


def test_an_empty_response_body_answers_nothing() -> None:
    from envfactory.runtime.shape import compile_shaper

    empty = compile_shaper({"type": "string", "maxLength": 0, "title": "empty_response_body"})
    assert empty({"webhook_id": "se-1", "url": "https://example.org"}) == ""
    assert compile_shaper({"type": "string"})({"a": 1}) == '{"a": 1}'


def test_a_record_that_must_hold_one_of_two_members_holds_one() -> None:
    """InfluxDB's mapping: ``oneOf: [{required: [orgID, ...]}, {required: [org, ...]}]``."""
    from envfactory.runtime.conform import compile_conformer

    text = {"type": "string"}
    mapping = {"type": "object", "oneOf": [{"required": ["orgID", "database"]}, {"required": ["org", "database"]}],
               "properties": {"orgID": text, "org": text, "database": text}}  # fmt: skip
    fit = compile_conformer(mapping)
    assert fit is not None
    check = compile_schema(mapping)
    both = fit({"orgID": "o1", "org": "acme", "database": "db"})
    assert both == {"orgID": "o1", "database": "db"}
    check(both)
    assert fit({"org": "acme", "database": "db"}) == {"org": "acme", "database": "db"}


def test_an_empty_list_both_of_two_list_alternatives_take_is_made_one_of_them() -> None:
    """Fulfillment.com's coordinates: ``oneOf: [[number], [[number]]]``; ``[]`` is valid under each."""
    from envfactory.runtime.conform import compile_conformer, placeholder_value

    coordinates = {"oneOf": [{"type": "array", "items": {"type": "number"}},
                             {"type": "array", "items": {"type": "array", "items": {"type": "number"}}}]}  # fmt: skip
    check = compile_schema(coordinates)
    assert placeholder_value(coordinates) == [0]
    fit = compile_conformer(coordinates)
    assert fit is not None
    check(fit([]))
    assert fit([1.5, 2.5]) == [1.5, 2.5]


def test_numbers_and_lists_keep_to_small_and_exclusive_bounds() -> None:
    """Otoroshi's fault ``ratio`` (at most 1, its example 42.2), Portfolio Optimizer's ``decayFactor``
    (below 1), AppVeyor's ``stacks`` (``maxItems: 0``)."""
    maker = ValueMaker(0)
    for schema, name in (({"type": "number", "maximum": 1, "examples": [42.2]}, "ratio"),
                         ({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}, "decayFactor"),
                         ({"type": "number", "exclusiveMaximum": 1}, "confidenceLevel"),
                         ({"type": "array", "maxItems": 0, "items": {"type": "string"}}, "stacks")):  # fmt: skip
        check = compile_schema(schema)
        for _ in range(50):
            check(maker.value(schema, name, "service"))
    assert maker.value({"type": "number", "maximum": 100, "examples": [42.2]}, "ratio", "x") is not None


def test_a_member_named_pattern_is_a_member_not_a_keyword() -> None:
    """Mandrill's ``inbound/add-route.json`` takes ``{domain, pattern, url}``: every call was refused."""
    route = {"type": "object", "additionalProperties": False, "properties": {
        "domain": {"type": "string"}, "pattern": {"type": "string", "pattern": "^[a-z*]+$"}}}  # fmt: skip
    check = compile_schema(route)
    check({"domain": "example.org", "pattern": "mail*"})
    try:
        check({"domain": "example.org", "pattern": "MAIL!"})
    except Exception as err:  # the member's own pattern still holds
        assert "pattern" in str(err)
    else:
        raise AssertionError("a pattern the member breaks passed")


def test_a_text_of_an_unanchored_pattern_is_as_long_as_its_bounds_say() -> None:
    """Contract-P's roles: ``{pattern: "[A-z0-9]", minLength: 24, maxLength: 24}``."""
    from envfactory.runtime.conform import compile_conformer

    role = {"type": "string", "pattern": "[A-z0-9]", "minLength": 24, "maxLength": 24}
    check = compile_schema(role)
    maker = ValueMaker(0)
    for _ in range(20):
        check(maker.value(role, "role", "api_key"))
    fit = compile_conformer(role)
    assert fit is not None
    check(fit("r"))
    check(fit("whose"))
    assert not fits("predictor_settings_0004", role)  # 23 characters

from envfactory.diagnostics import Diagnostics
from envfactory.ir.jsonschema import (
    entity_schema,
    inline_local_refs,
    normalize_schema,
    primary_type,
)


def norm(schema: object) -> tuple[dict, list[str]]:
    diag = Diagnostics(file="x.json")
    return normalize_schema(schema, diag, tool="t"), diag.warnings


def test_python_type_names_become_json_schema_types_with_a_warning() -> None:
    out, warnings = norm(
        {
            "type": "object",
            "properties": {
                "a": {"type": "int"},
                "b": {"type": "float"},
                "c": {"type": "dict"},
                "d": {"type": "tuple", "items": {"type": "str"}},
                "e": {"type": "any"},
            },
        }
    )
    props = out["properties"]
    assert [props[k].get("type") for k in "abcde"] == ["integer", "number", "object", "array", None]
    assert props["d"]["items"] == {"type": "string"}
    assert len(warnings) == 6  # a, b, c, d, d[], e
    assert warnings[0].startswith("file 'x.json', tool 't', field '$.a'")


def test_missing_type_is_inferred_from_the_schema_shape() -> None:
    out, warnings = norm({"properties": {"tags": {"items": {"type": "string"}}, "kind": {"enum": ["a", "b"]}}})
    assert out["type"] == "object"
    assert out["properties"]["tags"]["type"] == "array"
    assert out["properties"]["kind"]["type"] == "string"
    assert warnings == []


def test_required_naming_absent_properties_is_trimmed() -> None:
    out, warnings = norm({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "ghost"]})
    assert out["required"] == ["a"]
    assert "ghost" in warnings[0]


def test_required_true_on_a_property_moves_to_the_parent() -> None:
    out, warnings = norm({"type": "object", "properties": {"a": {"type": "string", "required": True}}})
    assert out["required"] == ["a"] and "required" not in out["properties"]["a"]
    assert warnings


def test_nullable_and_all_of_are_rewritten() -> None:
    out, _ = norm(
        {
            "allOf": [
                {
                    "type": "object",
                    "properties": {"a": {"type": "string", "nullable": True}},
                    "required": ["a"],
                },
                {"properties": {"b": {"type": "integer"}}, "required": ["b"]},
            ]
        }
    )
    assert out["type"] == "object"
    assert out["properties"]["a"]["type"] == ["string", "null"]
    assert out["required"] == ["a", "b"]


def test_enum_written_in_prose_is_read_conservatively() -> None:
    out, warnings = norm({"type": "string", "description": "Must be one of `a`, `b`"})
    assert out["enum"] == ["a", "b"] and "read from the description" in warnings[0]


def test_recursive_schemas_are_cut_instead_of_looping() -> None:
    node: dict = {"type": "object", "properties": {}}
    node["properties"]["child"] = node
    out, warnings = norm(node)
    assert out["properties"]["child"] == {"type": "object"}
    assert "recursive" in warnings[0]


def test_unreadable_sub_schema_accepts_anything_with_a_warning() -> None:
    out, warnings = norm({"type": "object", "properties": {"a": "string"}})
    assert out["properties"]["a"] == {} and "not an object" in warnings[0]


def test_inline_local_refs_resolves_defs_and_guards_cycles() -> None:
    schema = {
        "type": "object",
        "properties": {"pet": {"$ref": "#/$defs/Pet"}},
        "$defs": {"Pet": {"type": "object", "properties": {"parent": {"$ref": "#/$defs/Pet"}}}},
    }
    out = inline_local_refs(schema)
    assert "$defs" not in out
    assert out["properties"]["pet"]["properties"]["parent"] == {"type": "object"}


def test_primary_type_and_entity_schema_unwrap_envelopes() -> None:
    item = {"type": "object", "properties": {"id": {"type": "string"}}}
    assert primary_type({"type": ["null", "integer"]}) == "integer"
    assert primary_type({"anyOf": [{"type": "null"}, {"type": "string"}]}) == "string"
    assert entity_schema({"type": "array", "items": item}) is item
    page = {
        "type": "object",
        "properties": {"items": {"type": "array", "items": item}, "total": {"type": "integer"}},
    }
    assert entity_schema(page) is item
    assert entity_schema({"type": "object", "properties": {"data": item}}) is item
    assert entity_schema({"type": "string"}) is None


def test_draft_four_exclusive_flags_become_the_bounds_they_qualify() -> None:
    """OpenAPI 3.0 and Swagger write ``exclusiveMaximum: false`` beside ``maximum``; read as a
    number (JSON Schema since draft 6) ``False`` is the bound 0, refusing the value 1."""
    out, _ = norm({"type": "integer", "minimum": 0, "maximum": 1, "exclusiveMinimum": True, "exclusiveMaximum": False})
    assert out == {"type": "integer", "exclusiveMinimum": 0, "maximum": 1}
    out, _ = norm({"type": "integer", "exclusiveMaximum": True})  # a flag with no bound to qualify
    assert out == {"type": "integer"}


def test_an_enum_breaking_its_type_is_read_as_the_type_or_dropped() -> None:
    out, warnings = norm({"type": "integer", "enum": ["0 (User)", "1 (Organization)"]})
    assert out["enum"] == [0, 1] and "read as 'integer'" in warnings[0]
    out, _ = norm({"type": "string", "enum": [1, 2]})
    assert out["enum"] == ["1", "2"]
    out, _ = norm({"type": "number", "enum": ["1.5", "2 (two)"]})
    assert out["enum"] == [1.5, 2.0]
    out, warnings = norm({"type": "integer", "enum": ["low", "1 (high)"]})
    assert "enum" not in out and out["type"] == "integer" and "dropped" in warnings[0]
    out, _ = norm({"type": ["integer", "null"], "enum": [1, None]})  # a nullable enum keeps its null
    assert out["enum"] == [1, None]


def test_a_record_with_a_stray_items_is_an_object_and_an_array_of_records_keeps_its_items() -> None:
    record = {"type": "array", "items": {"type": "object"}, "properties": {"code": {"type": "string"}}}
    out, _ = norm(record)
    assert out["type"] == "object" and "items" not in out and out["properties"]["code"] == {"type": "string"}
    listed = {"type": "array", "items": {"properties": {"id": {"type": "integer"}}}, "properties": {"x": {}}}
    out, _ = norm(listed)
    assert out["type"] == "array" and "properties" not in out and out["items"]["properties"]["id"]


def test_a_javascript_regex_literal_is_read_as_its_body_and_flags() -> None:
    out, _ = norm({"type": "string", "pattern": "/^[0-9]{4}[a-z]$/i"})
    assert out["pattern"] == "(?i)^[0-9]{4}[a-z]$"
    out, _ = norm({"type": "string", "pattern": "/^3[A-Z]{3,}$/"})
    assert out["pattern"] == "^3[A-Z]{3,}$"
    out, _ = norm({"type": "string", "pattern": "^a/b$"})  # a slash inside is no literal
    assert out["pattern"] == "^a/b$"


def test_keywords_an_all_of_part_brings_are_read_too() -> None:
    out, _ = norm({"allOf": [{"type": "string", "pattern": "/^[a-z0-9._]+$/", "exclusiveMinimum": False}]})
    assert out["pattern"] == "^[a-z0-9._]+$" and "exclusiveMinimum" not in out


def test_a_batch_answer_holds_its_records_in_the_list_of_those_made() -> None:
    from envfactory.ir.jsonschema import data_path

    order = {"type": "object", "properties": {"orderIdentifier": {"type": "integer"}}}
    failed = {
        "type": "object",
        "properties": {"order": order, "errors": {"type": "array", "items": {"type": "string"}}},
    }
    counts = {"successCount": {"type": "integer"}, "errorsCount": {"type": "integer"}}
    lists = {"createdOrders": {"type": "array", "items": order}, "failedOrders": {"type": "array", "items": failed}}
    answer = {"type": "object", "properties": {**counts, **lists}}
    path, record, as_list = data_path(answer)
    assert [k for k, _ in path] == ["createdOrders"] and record == order and as_list


def test_a_page_of_records_is_read_however_many_plain_members_sit_beside_it() -> None:
    """BBC's ``{$schema, limit, method, offset, replied_at, total, results: [...]}``."""
    from envfactory.ir.jsonschema import data_path

    record = {"type": "object", "properties": {"urn": {"type": "string"}, "added_at": {"type": "string"}}}
    plain = {k: {"type": "string"} for k in ("$schema", "method", "replied_at")}
    counts = {k: {"type": "integer"} for k in ("limit", "offset", "total")}
    page = {"type": "object", "properties": {**plain, **counts, "results": {"type": "array", "items": record}}}
    assert data_path(page)[1:] == (record, True)
    # a record of many plain members holding a list not named as data stays a record
    run = {"type": "object", "properties": {**plain, **counts, "steps": {"type": "array", "items": record}}}
    assert data_path(run)[1:] == (run, False)


def test_a_page_whose_facts_are_an_object_named_for_them_is_a_page() -> None:
    """ChEMBL's ``{activities: [Activity], pageMeta: {currentPage, totalPages, ...}}``: ``pageMeta``
    (``paging_info``) holds the page's own facts; an object named otherwise beside a list is a record's."""
    from envfactory.ir.jsonschema import data_path

    record = {"type": "object", "properties": {"assay": {"type": "string"}, "value": {"type": "number"}}}
    facts = {"type": "object", "properties": {"currentPage": {"type": "integer"}, "totalPages": {"type": "integer"}}}
    for name in ("pageMeta", "paging_info"):
        page = {"type": "object", "properties": {"activities": {"type": "array", "items": record}, name: facts}}
        assert data_path(page)[1:] == (record, True), name
    owner = {"type": "object", "properties": {"activities": {"type": "array", "items": record}, "owner": facts}}
    assert data_path(owner)[1:] == (owner, False)


def test_quoted_names_of_members_beside_a_nullable_field_are_no_enum() -> None:
    """ShipEngine: "Either `warehouse_id` or `ship_from` must be specified", on a nullable field."""
    out, warnings = norm({"type": "object", "properties": {
        "warehouse_id": {"type": "string", "nullable": True,
                         "description": "Either `warehouse_id` or `ship_from` must be specified."},
        "ship_from": {"type": "object"}}})  # fmt: skip
    assert "enum" not in out["properties"]["warehouse_id"]
    assert any("name parameters" in w for w in warnings)


def test_a_pattern_no_value_of_the_format_matches_is_dropped() -> None:
    out, warnings = norm({"type": "string", "format": "date-time", "pattern": "^se(-[a-z0-9]+)+$"})
    assert out == {"type": "string", "format": "date-time"}
    assert "admits no 'date-time'" in warnings[-1]
    kept = {"type": "string", "format": "date-time", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$"}
    assert norm(kept)[0] == kept  # a stricter writing of the format stays


def test_an_array_type_beside_alternatives_that_are_all_objects_is_dropped() -> None:
    """SoundCloud's subscriptions: ``items: {type: array, items: {}, anyOf: [{subscription object}]}``."""
    subscription = {"type": "object", "properties": {"recurring": {"type": "boolean"}}}
    out, warnings = norm({"type": "array", "items": {}, "anyOf": [subscription]})
    assert out == {"anyOf": [subscription]}
    assert "all objects" in warnings[-1]
    listed = {"type": "array", "items": {"type": "string"}, "anyOf": [{"minItems": 1}]}
    assert norm(listed)[0]["type"] == "array"  # alternatives that say no type keep it

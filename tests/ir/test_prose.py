from envfactory.diagnostics import Diagnostics
from envfactory.ir.jsonschema import normalize_schema
from envfactory.ir.prose import apply_prose, enum_from_description, range_from_description


def test_enums_in_prose() -> None:
    assert enum_from_description("One of: `open`, `closed`, `merged`.") == ["open", "closed", "merged"]
    assert enum_from_description("Possible values are 'asc' or 'desc'") == ["asc", "desc"]
    assert enum_from_description("The state of the order") == []
    # BFCL-style listed enums, values with spaces kept whole
    assert enum_from_description('The city. [Enum]: ["Rivermist", "Sunset Valley"]') == ["Rivermist", "Sunset Valley"]
    assert enum_from_description("[Enum]: [not json") == []
    assert enum_from_description('[Enum]: ["only"]') == []
    assert enum_from_description(" true or false") == ["true", "false"]  # a flag typed as a string
    # values joined by slashes: quoted, or three bare lowercase words in parentheses
    assert enum_from_description('Filter by "high"/"med"/"low".') == ["high", "med", "low"]
    assert enum_from_description("New priority (high/med/low). Omit to keep existing.") == ["high", "med", "low"]
    for prose in ("Date (YYYY/MM/DD)", "Tags (and/or)", "A path such as a/b/c", "Sort (asc/desc)"):
        assert enum_from_description(prose) == [], prose


def test_ranges_in_prose() -> None:
    assert range_from_description("Position of the pedal, between 0 (not pressed) and 1 (fully pressed).") == {
        "minimum": 0,
        "maximum": 1,
    }
    assert range_from_description("Priority of the ticket, from 1 to 5. Defaults to 1.", integer=True) == {
        "minimum": 1,
        "maximum": 5,
    }
    assert range_from_description("Speed, between 0 and 120 and a multiple of 5.") == {
        "minimum": 0,
        "maximum": 120,
        "multipleOf": 5,
    }
    assert range_from_description("Rating (0.5-4.5)") == {"minimum": 0.5, "maximum": 4.5}
    assert range_from_description("The distance between two cities") == {}
    speech = ("Values above 0.66 describe tracks that are probably made entirely of spoken words. Values between "
              "0.33 and 0.66 describe tracks that may contain both music and speech.")  # fmt: skip
    assert range_from_description(speech) == {}  # bands of meaning, not bounds
    assert range_from_description("from 5 to 1") == {}  # reversed: unsure, nothing


def test_apply_prose_never_overrides_declared_bounds() -> None:
    schema = {"type": "integer", "minimum": 2, "description": "from 1 to 5"}
    assert apply_prose(schema) == [] and "maximum" not in schema
    items = {"type": "array", "items": {"type": "string"}, "description": '[Enum]: ["driver", "passenger"]'}
    assert apply_prose(items) == ["item enum ['driver', 'passenger']"]
    assert items["items"]["enum"] == ["driver", "passenger"]


def test_normalizer_reports_prose_constraints() -> None:
    diag = Diagnostics(file="tools.json")
    out = normalize_schema({"type": "float", "description": "Fan speed from 0 to 100."}, diag, tool="fan")
    assert out["minimum"] == 0 and out["maximum"] == 100
    assert any("minimum 0 read from the description" in w for w in diag.warnings)


def test_values_drawn_for_prose_bounds_satisfy_them() -> None:
    from envfactory.values import ValueMaker

    vm = ValueMaker(3)
    speed = {"type": "number", "minimum": 0, "maximum": 120, "multipleOf": 5}
    drawn = [vm.value(speed, "speed", "car") for _ in range(50)]
    assert all(0 <= v <= 120 and v % 5 == 0 for v in drawn) and len(set(drawn)) > 5
    level = {"type": "integer", "minimum": 1, "maximum": 5}
    assert {vm.value(level, "priority", "ticket") for _ in range(60)} == {1, 2, 3, 4, 5}


def test_values_a_description_opens_with() -> None:
    # the values first, each with its meaning beside it, joined by "or": an enum
    assert enum_from_description('"mine" (this client\'s edit) or "theirs" (the remote\'s edit).') == ["mine", "theirs"]
    table = '"json" (default) -- the raw task records -- or "table", one rendered string per row.'
    assert enum_from_description(table) == ["json", "table"]
    assert enum_from_description("'a', 'b', or 'c' depending on the mode") == ["a", "b", "c"]
    # quoted words further in, or not joined by "or", are not values
    assert enum_from_description("The 'name' or 'id' of the user") == []
    assert enum_from_description("Use 'x' to mean all, or leave it out") == []
    assert enum_from_description("'draft' is the default") == []


def test_prose_reaches_an_optional_value() -> None:
    """``Optional[str]`` in a Python server is ``anyOf: [{type: string}, {type: null}]`` with the
    description beside it: the string's constraints, and null still accepted."""
    diag = Diagnostics(file="tools.json")
    schema = {
        "type": "object",
        "properties": {
            "priority": {"anyOf": [{"type": "string"}, {"type": "null"}],
                         "description": 'Optional, one of "low", "med", "high".'},
            "due": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "Optional ISO date string."},
            "size": {"type": ["string", "null"], "description": "One of 's', 'm'."},
        },
    }  # fmt: skip
    props = normalize_schema(schema, diag, tool="add_task")["properties"]
    assert props["priority"]["anyOf"] == [{"type": "string", "enum": ["low", "med", "high"]}, {"type": "null"}]
    assert props["due"]["anyOf"][0] == {"type": "string", "format": "date"}
    assert props["size"]["enum"] == ["s", "m", None]
    from envfactory.runtime.validation import compile_validator

    check = compile_validator(normalize_schema(schema, Diagnostics()))
    assert check({"priority": None, "size": None}) is None and check({"priority": "med", "size": "m"}) is None
    assert check({"priority": "urgent"}) is not None and check({"size": "xl"}) is not None

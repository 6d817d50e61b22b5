import json
import sys
from pathlib import Path

import pytest
from tests.conftest import FIXTURES, SPECS

from envfactory.errors import SpecError
from envfactory.ingest import load, load_toolset


def test_openai_tools_list() -> None:
    ts = load_toolset(SPECS / "calendar.openai.json")
    assert ts.name == "calendar" and len(ts.tools) == 8
    assert ts["create_event"].required == ["title", "start", "end"]
    assert ts["create_event"].source.format == "openai"
    assert ts["get_room"].output_schema["title"] == "Room"  # the optional output_schema extension


def test_anthropic_tools() -> None:
    ts = load_toolset(SPECS / "banking.anthropic.json")
    assert ts["transfer_funds"].source.format == "anthropic"
    assert ts["transfer_funds"].properties["amount"]["exclusiveMinimum"] == 0


@pytest.mark.parametrize(
    "doc",
    [
        {"name": "ping", "description": "Ping.", "parameters": {"type": "object", "properties": {}}},
        {"functions": [{"name": "ping", "description": "Ping.", "parameters": {"type": "object"}}]},
        {"type": "function", "name": "ping", "description": "Ping.", "parameters": {"type": "object"}},
    ],
)
def test_single_legacy_and_flat_function_shapes(tmp_path: Path, doc: dict) -> None:
    path = tmp_path / "f.json"
    path.write_text(json.dumps(doc))
    assert load_toolset(path).names == ["ping"]


def test_warts_are_normalized_with_warnings() -> None:
    ts = load_toolset(FIXTURES / "wart_functions.json")
    add = ts["add_item"]
    props = add.properties
    assert props["name"]["type"] == "string" and props["price"]["type"] == "number"
    assert props["meta"]["type"] == "object" and "type" not in props["anything"]
    assert props["size"]["enum"] == ["S", "M", "L"]
    assert add.required == ["name"]
    assert ts["list_items"].input_schema["type"] == "object"
    text = "\n".join(ts.warnings)
    for expected in ("'str'", "'float'", "'dict'", "'any'", "['colour']", "enum ['S', 'M', 'L']", "'int'"):
        assert expected in text
    assert "tool 'add_item'" in text and "wart_functions.json" in text


def test_non_object_input_schema_names_the_tool(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"name": "x", "description": "d", "parameters": {"type": "array"}}]))
    with pytest.raises(SpecError, match=r"tool 'x', field 'input_schema': input schema must be of type 'object'"):
        load(path)


def test_duplicate_tool_names_are_an_error(tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    tool = {"name": "x", "description": "d", "parameters": {"type": "object"}}
    path.write_text(json.dumps([tool, tool]))
    with pytest.raises(SpecError, match="tool 'x': duplicate tool name"):
        load(path)


def test_mcp_tools_list_file_and_jsonrpc_envelope(tmp_path: Path) -> None:
    ts = load_toolset(SPECS / "notes.mcp.json")
    assert ts.name == "notes" and ts["get_note"].annotations.read_only is True
    assert ts["list_notebooks"].output_schema["properties"]["notebooks"]["items"]["title"] == "Notebook"
    envelope = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [t.to_mcp() for t in ts.tools]}}
    path = tmp_path / "rpc.json"
    path.write_text(json.dumps(envelope))
    assert load_toolset(path).names == ts.names


def test_an_output_schema_that_only_says_text_declares_nothing(tmp_path: Path) -> None:
    """The MCP Python SDK declares a tool returning text as ``{"result": string}``; the text is
    often JSON of another shape, so the declaration is no shape to answer in."""
    wrapped = {"type": "object", "properties": {"result": {"type": "string", "title": "Result"}},
               "required": ["result"], "title": "todo_listOutput"}  # fmt: skip
    counted = {"type": "object", "properties": {"result": {"type": "integer"}}}
    tools = [{"name": "todo_list", "inputSchema": {"type": "object"}, "outputSchema": wrapped},
             {"name": "todo_count", "inputSchema": {"type": "object"}, "outputSchema": counted}]  # fmt: skip
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": tools}))
    ts = load_toolset(path)
    assert ts["todo_list"].output_schema is None
    assert ts["todo_count"].output_schema == counted


def test_live_mcp_server_over_stdio() -> None:
    ts = load_toolset(f"mcp+stdio:{sys.executable} {FIXTURES / 'mcp_server.py'}")
    assert ts.name == "tickets"
    assert ts.names == ["list_tickets", "get_ticket", "create_ticket", "close_ticket"]
    assert ts["create_ticket"].required == ["title"]
    assert ts["get_ticket"].source.format == "mcp-server"


def test_mcp_server_that_cannot_start_is_a_clear_error() -> None:
    with pytest.raises(SpecError, match="MCP server"):
        load("mcp+stdio:/nonexistent/server --flag")


def test_json_lines_and_yaml_in_json_and_output_keys_are_read_with_warnings(tmp_path) -> None:
    import json

    from envfactory.ingest import load

    fn = {"name": "get_weather", "description": "Weather for a city.",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
          "returns": {"type": "object", "properties": {"temp_c": {"type": "number"}}}}  # fmt: skip
    other = {**fn, "name": "get_forecast", "returns": None, "response": fn["returns"]}
    lines = tmp_path / "tools.jsonl"
    lines.write_text(json.dumps(fn) + "\n" + json.dumps(other) + "\n")
    toolset = load(lines).toolset
    assert [t.name for t in toolset.tools] == ["get_weather", "get_forecast"]
    assert all(t.output_schema and "temp_c" in t.output_schema["properties"] for t in toolset.tools)
    assert any("JSON lines" in w for w in toolset.warnings) and any("'returns'" in w for w in toolset.warnings)
    yaml_in_json = tmp_path / "tools.json"
    yaml_in_json.write_text("- name: ping\n  description: Ping the server.\n  parameters: {type: object}\n")
    loaded = load(yaml_in_json).toolset
    assert loaded.tools[0].name == "ping" and any("YAML" in w for w in loaded.warnings)


def test_quoted_parameter_names_in_a_description_are_not_an_enum() -> None:
    from envfactory.diagnostics import Diagnostics
    from envfactory.ir.jsonschema import normalize_schema

    schema = {"type": "object", "properties": {
        "file": {"type": "string", "description": "Either `file` or `url` must be given."},
        "url": {"type": "string"},
        "colour": {"type": "string", "description": "One of: 'red', 'green'."},
    }}  # fmt: skip
    diag = Diagnostics(file="f")
    out = normalize_schema(schema, diag)
    assert "enum" not in out["properties"]["file"] and out["properties"]["colour"]["enum"] == ["red", "green"]


def test_arguments_wrapped_in_one_object_are_read_as_the_tools_own(tmp_path: Path) -> None:
    """``{"params": {"$ref": "#/$defs/SearchInput"}}``, the only argument and required: the tool's
    arguments are that model's members, kept wrapped for callers (``called_schema``, what agents are
    shown); an optional object, or one beside another argument, is an argument like any other."""
    inner = {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
             "required": ["query"]}  # fmt: skip
    tools = [
        {"name": "search", "description": "Search.", "parameters": {
            "type": "object", "properties": {"params": {"$ref": "#/$defs/SearchInput"}}, "required": ["params"],
            "$defs": {"SearchInput": inner}}},
        {"name": "tag", "description": "Tag.", "parameters": {"type": "object", "properties": {"params": inner}}},
        {"name": "move", "description": "Move.", "parameters": {"type": "object", "required": ["params"],
         "properties": {"params": inner, "to": {"type": "string"}}}},
    ]  # fmt: skip
    path = tmp_path / "f.json"
    path.write_text(json.dumps(tools))
    ts = load_toolset(path)
    search = ts["search"]
    assert search.wrapped == "params" and search.required == ["query"] and set(search.properties) == {"query", "limit"}
    assert search.called_schema["properties"]["params"]["required"] == ["query"]
    assert search.to_mcp()["inputSchema"] == search.called_schema
    assert search.wrap({"query": "tea"}) == {"params": {"query": "tea"}} == search.wrap({"params": {"query": "tea"}})
    assert search.unwrap({"params": {"query": "tea"}}) == {"query": "tea"} == search.unwrap({"query": "tea"})
    assert ts["tag"].wrapped is None and ts["move"].wrapped is None

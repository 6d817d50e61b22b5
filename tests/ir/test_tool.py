import pytest

from envfactory.errors import SpecError
from envfactory.ir.tool import ToolAnnotations, ToolSet, ToolSource, ToolSpec

SCHEMA = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}


def test_converters_produce_openai_anthropic_and_mcp_shapes() -> None:
    tool = ToolSpec(
        name="get_pet",
        description="Get a pet.",
        input_schema=SCHEMA,
        output_schema={"type": "object"},
        annotations=ToolAnnotations(read_only=True),
    )
    assert tool.to_openai() == {
        "type": "function",
        "function": {"name": "get_pet", "description": "Get a pet.", "parameters": SCHEMA},
    }
    assert tool.to_anthropic()["input_schema"] == SCHEMA
    mcp = tool.to_mcp()
    assert mcp["inputSchema"] == SCHEMA and mcp["outputSchema"] == {"type": "object"}
    assert mcp["annotations"] == {"readOnlyHint": True}


def test_tool_names_and_input_schemas_are_validated() -> None:
    with pytest.raises(SpecError, match="tool names must match"):
        ToolSpec(name="find pet", input_schema=SCHEMA)
    with pytest.raises(SpecError, match=r"file 'f.json', tool 'x', field 'input_schema': input schema must"):
        ToolSpec(name="x", input_schema={"type": "array"}, source=ToolSource(format="openai", file="f.json"))


def test_toolset_rejects_duplicate_names_naming_both_places() -> None:
    a = ToolSpec(name="dup", source=ToolSource(format="openapi", file="api.yaml", locator="GET /a"))
    b = ToolSpec(name="dup", source=ToolSource(format="openapi", file="api.yaml", locator="GET /b"))
    with pytest.raises(SpecError, match=r"file 'api.yaml', tool 'dup': duplicate tool name \(also defined at GET /a\)"):
        ToolSet(name="api", tools=(a, b))


def test_toolset_lookup_and_mcp_export() -> None:
    ts = ToolSet(name="api", tools=(ToolSpec(name="a"), ToolSpec(name="b")))
    assert ts["b"].name == "b" and ts.names == ["a", "b"]
    assert [t["name"] for t in ts.to_mcp()["tools"]] == ["a", "b"]
    with pytest.raises(KeyError):
        ts["c"]

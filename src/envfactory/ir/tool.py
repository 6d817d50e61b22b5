"""ToolSpec and ToolSet: the canonical tool description (mirrors MCP) and its converters."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from envfactory.errors import SpecError

JSON = dict[str, Any]
TOOL_NAME = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
ParamLocation = Literal["path", "query", "header", "cookie", "body"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolAnnotations(_Frozen):
    """MCP-style behaviour hints; ``None`` means unknown."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


class HttpBinding(_Frozen):
    """Where an OpenAPI operation lives and where each input came from."""

    method: str
    path: str
    params: dict[str, ParamLocation] = Field(default_factory=dict)
    tags: tuple[str, ...] = ()
    # transport and auth parameters kept out of the agent's input (Accept, API keys, alt=json, ...)
    transport: dict[str, ParamLocation] = Field(default_factory=dict)
    # what each required transport value (and each header or cookie argument the spec requires) is sent
    # as when the call leaves it out: the spec's example, default or first enum value, else a placeholder
    values: dict[str, Any] = Field(default_factory=dict)


class ToolSource(_Frozen):
    """Provenance: the format, file and place a tool was read from."""

    format: str
    file: str | None = None
    locator: str | None = None
    http: HttpBinding | None = None
    python: str | None = None  # "module:qualname" of a callable, for bound real implementations
    # documentation read by a model: the words each part came from ("tool", then each parameter)
    quotes: dict[str, str] = Field(default_factory=dict)


class ToolSpec(_Frozen):
    """One tool: name, description, JSON Schemas for input and output, hints, provenance."""

    name: str
    description: str = ""
    input_schema: JSON = Field(default_factory=lambda: {"type": "object", "properties": {}})
    output_schema: JSON | None = None
    annotations: ToolAnnotations = ToolAnnotations()
    source: ToolSource = ToolSource(format="python")
    # the one object argument its callers wrap every argument in (a FastMCP tool taking ``params:
    # SearchInput``): ``input_schema`` is that object's, the arguments as the tool reads them, and
    # ``called_schema`` what callers send (:func:`wrapper_of`)
    wrapped: str | None = None

    @model_validator(mode="after")
    def _check(self) -> ToolSpec:
        if not TOOL_NAME.match(self.name):
            raise SpecError("tool names must match [A-Za-z0-9_-]{1,64}", file=self.source.file, tool=self.name)
        if self.input_schema.get("type") != "object":
            raise SpecError(
                f"input schema must be a JSON object schema, got type {self.input_schema.get('type')!r}",
                file=self.source.file,
                tool=self.name,
                field="input_schema",
            )
        return self

    @property
    def called_schema(self) -> JSON:
        """The input schema as callers send the arguments: wrapped in one object where the tool takes them so."""
        if self.wrapped is None:
            return self.input_schema
        return {"type": "object", "properties": {self.wrapped: self.input_schema}, "required": [self.wrapped]}

    def wrap(self, args: JSON) -> JSON:
        """``args`` as the tool's callers send them (in its wrapper, where it has one and they are not yet)."""
        return args if self.wrapped is None else wrapped_args(args, self.wrapped)

    def unwrap(self, args: Any) -> Any:
        """``args`` as the tool reads them: a call holding its wrapper alone, the wrapper's members."""
        return args if self.wrapped is None else unwrapped(args, self.wrapped)

    @property
    def properties(self) -> JSON:
        return self.input_schema.get("properties") or {}

    @property
    def required(self) -> list[str]:
        return list(self.input_schema.get("required") or [])

    def is_transport(self, arg: str) -> bool:
        """Does ``arg`` travel in a header or a cookie (a marketplace, a version, a hint)? Such values
        describe the call, never the records it acts on: no field, no task content."""
        http = self.source.http
        return http is not None and http.params.get(arg) in ("header", "cookie")

    # -- converters -------------------------------------------------------------------------
    def to_openai(self) -> JSON:
        """An entry of OpenAI's ``tools=[...]`` (chat completions)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.called_schema,
            },
        }

    def to_anthropic(self) -> JSON:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.called_schema,
        }

    def to_mcp(self) -> JSON:
        """An entry of an MCP ``tools/list`` result."""
        out: JSON = {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.called_schema,
        }
        if self.output_schema is not None:
            out["outputSchema"] = self.output_schema
        hints = {
            "readOnlyHint": self.annotations.read_only,
            "destructiveHint": self.annotations.destructive,
            "idempotentHint": self.annotations.idempotent,
            "openWorldHint": self.annotations.open_world,
        }
        hints = {k: v for k, v in hints.items() if v is not None}
        if hints:
            out["annotations"] = hints
        return out


class ToolSet(_Frozen):
    """The tools of one API, with the warnings produced while reading them."""

    name: str
    description: str = ""
    tools: tuple[ToolSpec, ...]
    warnings: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _unique(self) -> ToolSet:
        seen: dict[str, ToolSpec] = {}
        for tool in self.tools:
            if tool.name in seen:
                first = seen[tool.name].source.locator or "an earlier tool"
                raise SpecError(
                    f"duplicate tool name (also defined at {first})",
                    file=tool.source.file,
                    tool=tool.name,
                )
            seen[tool.name] = tool
        return self

    def __getitem__(self, name: str) -> ToolSpec:
        for tool in self.tools:
            if tool.name == name:
                return tool
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.tools]

    def to_openai(self) -> list[JSON]:
        return [t.to_openai() for t in self.tools]

    def to_mcp(self) -> JSON:
        return {"tools": [t.to_mcp() for t in self.tools]}


def wrapper_of(input_schema: JSON) -> str | None:
    """The one argument a tool's callers wrap all its arguments in: its only argument, required, an
    object of declared members (a FastMCP tool taking ``params: SearchInput``); else ``None``."""
    props = input_schema.get("properties") or {}
    if len(props) != 1:
        return None
    [(name, inner)] = props.items()
    if not isinstance(inner, dict) or inner.get("type") != "object" or not inner.get("properties"):
        return None
    return name if name in (input_schema.get("required") or ()) else None


def _holds_wrapper(args: Any, wrapper: str) -> bool:
    """Whether a call's arguments are ``wrapper`` alone, holding an object: sent wrapped."""
    return isinstance(args, dict) and set(args) == {wrapper} and isinstance(args[wrapper], dict)


def unwrapped(args: Any, wrapper: str) -> Any:
    """A call's arguments as a tool taking them wrapped in ``wrapper`` reads them: the wrapper's
    members where the call holds it alone, else the arguments as they are (sent unwrapped)."""
    return args[wrapper] if _holds_wrapper(args, wrapper) else args


def wrapped_args(args: JSON, wrapper: str) -> JSON:
    """A call's arguments as a tool taking them wrapped in ``wrapper`` is sent them: in the wrapper,
    unless they are so already."""
    return args if _holds_wrapper(args, wrapper) else {wrapper: args}


def dump_tool(tools: ToolSet) -> str | None:
    """The tool that reads everything, if the set has one: no required arguments (or only a
    ``path``, the root), read-only (by annotation or name), and a name that says "all", "graph",
    "tree", "dump" or "everything" (``read_graph``, ``directory_tree``)."""
    for tool in tools.tools:
        toks = set(tool.name.lower().replace("-", "_").split("_"))
        reads = tool.annotations.read_only or toks & {"read", "list", "get", "dump", "export"}
        if reads and tool.required in ([], ["path"]) and toks & {"all", "graph", "tree", "dump", "everything"}:
            return tool.name
    return None

"""Helpers shared by the ingesters: turning loose pieces into valid ToolSpecs."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from envfactory.diagnostics import Diagnostics
from envfactory.errors import SpecError
from envfactory.ir.docstrings import read_docstring, with_notes
from envfactory.ir.jsonschema import inline_local_refs, normalize_schema
from envfactory.ir.tool import TOOL_NAME, ToolAnnotations, ToolSource, ToolSpec, wrapper_of

JSON = dict[str, Any]
_BAD_CHARS = re.compile(r"[^A-Za-z0-9_\-]+")


def shorten_name(name: str, limit: int = 64) -> str:
    """``name`` within ``limit`` characters, still telling it from every other name cut the same way:
    its first word (the method or verb), as many of its last words as fit (what a route ends with
    is what tells it from its siblings), and 8 hex digits of the whole name's digest."""
    if len(name) <= limit:
        return name
    digest = hashlib.blake2b(name.encode(), digest_size=4).hexdigest()
    words = [w for w in name.split("_") if w]
    head, room = words[0][: limit // 3], limit - len(digest) - 1
    tail: list[str] = []
    for word in reversed(words[1:]):
        if len("_".join([head, word, *tail])) > room:
            break
        tail.insert(0, word)
    return "_".join([head, *tail, digest])


def clean_tool_name(raw: Any, diag: Diagnostics, *, where: str) -> str:
    """A valid tool name from ``raw``; spaces and odd characters become ``_`` (with a warning)."""
    if not isinstance(raw, str) or not raw.strip():
        raise SpecError(f"missing or empty tool name at {where}", file=diag.file, field="name")
    if TOOL_NAME.match(raw):
        return raw
    cleaned = _BAD_CHARS.sub("_", raw.strip()).strip("_")
    name = shorten_name(cleaned) or "tool"
    why = "is longer than 64 characters" if cleaned == raw else "is not a valid identifier"
    diag.warn(f"tool name {raw!r} {why}; renamed to {name!r}", tool=name)
    return name


def make_tool(
    *,
    name: str,
    description: str | None,
    input_schema: Any,
    output_schema: Any = None,
    annotations: ToolAnnotations | None = None,
    source: ToolSource,
    diag: Diagnostics,
    unwrap: bool = False,
) -> ToolSpec:
    """Normalize schemas and build a ToolSpec; the input schema must describe an object. ``unwrap``:
    arguments its callers wrap in one object (:func:`wrapper_of`) are read as the tool's own, the
    wrapper kept as ``ToolSpec.wrapped`` (a function schema's, an MCP tool's; not a bound callable's)."""
    if input_schema is None:
        input_schema = {"type": "object", "properties": {}}
    if not isinstance(input_schema, dict):
        raise SpecError(
            f"input schema must be a JSON object schema, got {type(input_schema).__name__}",
            file=source.file,
            tool=name,
            field="input_schema",
        )
    if isinstance(description, str) and "\n" in description:  # a docstring's Args: notes describe the arguments
        input_schema = with_notes(input_schema, read_docstring(description).params)
    schema = normalize_schema(inline_local_refs(input_schema), diag, tool=name, field="input")
    if "type" not in schema and not schema.get("properties"):
        schema = {"type": "object", "properties": {}, **schema}
    if schema.get("type") != "object":
        raise SpecError(
            f"input schema must be of type 'object', got {schema.get('type')!r}",
            file=source.file,
            tool=name,
            field="input_schema",
        )
    schema.setdefault("properties", {})
    wrapped = wrapper_of(schema) if unwrap else None
    if wrapped is not None:
        schema = {"type": "object", **schema["properties"][wrapped]}
    if description is not None and not isinstance(description, str):
        diag.warn(f"description is {type(description).__name__}, not text; dropped", tool=name, field="description")
        description = None
    out = None
    if isinstance(output_schema, dict) and output_schema:
        out = normalize_schema(inline_local_refs(output_schema), diag, tool=name, field="output")
    return ToolSpec(
        name=name,
        description=(description or "").strip(),
        input_schema=schema,
        output_schema=out or None,
        annotations=annotations or ToolAnnotations(),
        source=source,
        wrapped=wrapped,
    )

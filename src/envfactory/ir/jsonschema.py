"""JSON Schema clean-up for tool descriptions found in the wild.

Real tool docs bend JSON Schema: Python type names (``int``, ``dict``), a missing ``type``,
``required`` naming absent properties, OpenAPI's ``nullable`` and ``allOf`` composition,
enums and ranges written only in prose (:mod:`envfactory.ir.prose`). :func:`normalize_schema`
rewrites what has one sensible reading and reports every change through :class:`~envfactory.diagnostics.Diagnostics`.
"""

from __future__ import annotations

import re
from typing import Any

from envfactory import inflection
from envfactory.diagnostics import Diagnostics
from envfactory.ir.prose import apply_prose
from envfactory.patterns import contradicts

JSON = dict[str, Any]

_TYPE_ALIASES: dict[str, str | None] = {
    "integer": "integer",
    "int": "integer",
    "long": "integer",
    "int32": "integer",
    "int64": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "decimal": "number",
    "string": "string",
    "str": "string",
    "text": "string",
    "file": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "object": "object",
    "dict": "object",
    "map": "object",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "set": "array",
    "null": "null",
    "none": "null",
    "nonetype": "null",
    "any": None,
}
_CANONICAL = {"integer", "number", "string", "boolean", "object", "array", "null"}
_DROPPED_KEYS = {"xml", "discriminator", "externalDocs", "$schema"}
_SCALAR = (str, int, float, bool)
MAX_DEPTH = 24
_JS_REGEX = re.compile(r"/(.+)/([gimsuy]*)", re.DOTALL)


def normalize_schema(schema: Any, diag: Diagnostics, *, tool: str | None = None, field: str = "$") -> JSON:
    """Return a cleaned deep copy of ``schema``; every change is reported to ``diag``."""
    return _Normalizer(diag, tool).run(schema, field, depth=0, seen=())


class _Normalizer:
    def __init__(self, diag: Diagnostics, tool: str | None) -> None:
        self.diag, self.tool = diag, tool

    def warn(self, field: str, message: str) -> None:
        self.diag.warn(message, tool=self.tool, field=field)

    def run(self, schema: Any, field: str, depth: int, seen: tuple[int, ...]) -> JSON:
        if schema is True or schema is None:
            return {}
        if not isinstance(schema, dict):
            self.warn(field, f"schema is a {type(schema).__name__}, not an object; accepting any value")
            return {}
        if id(schema) in seen or depth > MAX_DEPTH:
            self.warn(field, "recursive schema cut here; accepting any object")
            return {"type": "object"}
        seen = (*seen, id(schema))
        out: JSON = {str(k): v for k, v in schema.items() if k not in _DROPPED_KEYS and not str(k).startswith("x-")}
        self._fix_keywords(out, field)
        _examples(out)
        if "allOf" in out:
            out = self._merge_all_of(out, field)
            self._fix_keywords(out, field)  # what the parts brought (a literal /^[a-z0-9._]+$/ pattern) is read too
        self._fix_type(out, field)
        self._fix_enum_type(out, field)
        self._fix_format_pattern(out, field)
        if isinstance(out.get("items"), dict) and out.get("properties") and out.get("type") in ("object", "array"):
            # a record written with a stray ``items: {type: object}`` (or typed an array): the
            # properties say what it holds, unless the items describe records of their own
            if out["items"].get("properties") and out["type"] == "array":
                out.pop("properties")
                self.warn(field, "'properties' of an array dropped (its items describe its records)")
            else:
                out.pop("items")
                out["type"] = "object"
                self.warn(field, "'items' beside 'properties' dropped: read as an object")
        if out.get("type") == "array" and isinstance(out.get("enum"), list):
            # ``{type: array, enum: [a, b], items: {type: string}}``: the enum is the items'
            items = out["items"] if isinstance(out.get("items"), dict) else {}
            out["items"] = {**items, "enum": out.pop("enum")}
            self.warn(field, "'enum' of an array moved to its items")
        elif out.get("type") == "object" and not out.get("properties") and isinstance(out.get("enum"), list):
            kinds = {type(v) for v in out["enum"] if v is not None}
            if kinds and kinds <= {str}:  # ``{type: object, enum: [personal, business]}``: a string enum
                out["type"] = "string"
                self.warn(field, "'object' with an enum of strings read as a string")
        for key in ("anyOf", "oneOf"):
            if isinstance(out.get(key), list):
                out[key] = [self.run(s, f"{field}.{key}", depth + 1, seen) for s in out[key]]
        for key in ("anyOf", "oneOf"):
            only = out.get(key)
            if (isinstance(only, list) and len(only) == 1 and isinstance(only[0], dict) and "properties" not in out
                    and only[0].get("type") != "null"
                    and out.get("type") in (None, primary_type(only[0]))):  # fmt: skip
                # Mailscript's ``{type: object, oneOf: [Address]}``: one alternative is no choice, the schema is it
                out = {**only[0], **{k: v for k, v in out.items() if k != key}}
                self.warn(field, f"a '{key}' of one alternative read as that alternative")
        branches = [s for key in ("anyOf", "oneOf") for s in out.get(key) or () if isinstance(s, dict)]
        if out.get("type") == "array" and branches and all(primary_type(s) == "object" or "properties" in s
                                                          for s in branches):  # fmt: skip
            # SoundCloud's subscription ``{type: array, items: {}, anyOf: [{subscription}]}``: the
            # alternatives say what it is; an array no alternative admits is a stray type
            out.pop("type")
            out.pop("items", None)
            self.warn(field, "'type: array' beside alternatives that are all objects dropped")
        if (
            isinstance(out.get("oneOf"), list)
            and len(out["oneOf"]) > 1
            and "anyOf" not in out
            and all(primary_type(s) == "object" or "properties" in s for s in out["oneOf"])
        ):
            # open objects overlap: OpenAPI picks the branch by its discriminator, which JSON Schema
            # cannot; "exactly one" would refuse every valid body, so any one branch will do
            out["anyOf"] = out.pop("oneOf")
            self.warn(field, "'oneOf' of objects read as 'anyOf' (open objects match several branches)")
        if "properties" in out:
            self._fix_properties(out, field, depth, seen)
        if "items" in out:
            items = out["items"]
            if isinstance(items, list):
                self.warn(field, "tuple-style 'items' list replaced by its first schema")
                items = items[0] if items else {}
            out["items"] = self.run(items, f"{field}[]", depth + 1, seen)
        if isinstance(out.get("additionalProperties"), dict):
            out["additionalProperties"] = self.run(out["additionalProperties"], f"{field}.*", depth + 1, seen)
        if out.pop("nullable", False) is True and isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
        self._fix_required(out, field)
        self._constraints_from_prose(out, field)
        return out

    def _fix_keywords(self, schema: JSON, field: str) -> None:
        """Drop keywords whose value has the wrong shape (``required: [{}]``, ``minimum: "x"``,
        ``description: 5``): each has no sensible reading, and left in place it breaks validators."""
        ref = schema.pop("$ref", None)
        if ref is not None:
            self.warn(field, f"unresolved $ref {str(ref)[:80]!r}; accepting any value")
        for key, value in list(schema.items()):
            expected = _KEYWORD_SHAPES.get(key)
            if expected is not None and not expected(value):
                schema.pop(key)
                self.warn(field, f"{key!r} is {_shown(value)}, which is not a valid {key!r}; dropped")
        if isinstance(schema.get("required"), list):
            schema["required"] = [r for r in schema["required"] if isinstance(r, str)]
        for exclusive, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            # OpenAPI 3.0 and Swagger write JSON Schema draft 4's flag; read as draft 4 does
            if isinstance(schema.get(exclusive), bool) and schema.pop(exclusive) and _number(schema.get(bound)):
                schema[exclusive] = schema.pop(bound)
        literal = _JS_REGEX.fullmatch(schema["pattern"]) if isinstance(schema.get("pattern"), str) else None
        if literal:  # ``/^[0-9]{5}$/i``: a JavaScript regular expression literal, its flags after it
            schema["pattern"] = ("(?i)" if "i" in literal.group(2) else "") + literal.group(1)
            self.warn(field, f"pattern {_shown(literal.group(0))} written as a /.../ literal; read as its body")
        if isinstance(schema.get("enum"), list):
            scalars = [v for v in schema["enum"] if v is None or isinstance(v, (str, int, float, bool))]
            if len(scalars) < len(schema["enum"]):
                self.warn(field, "non-scalar values dropped from 'enum'")
            schema["enum"] = list(dict.fromkeys(scalars))
            if not schema["enum"]:
                schema.pop("enum")
        for key in ("allOf", "anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                schema[key] = [s for s in schema[key] if isinstance(s, dict)] or None
                if schema[key] is None:
                    schema.pop(key)

    def _merge_all_of(self, schema: JSON, field: str) -> JSON:
        parts = [p for p in schema.pop("allOf") if isinstance(p, dict)]
        merged: JSON = {k: v for k, v in schema.items()}
        props: JSON = dict(merged.get("properties") or {})
        required: list[str] = list(merged.get("required") or [])
        for part in parts:
            if "allOf" in part:
                part = self._merge_all_of(dict(part), field)
            for key, value in part.items():
                if key == "properties" and isinstance(value, dict):
                    props.update(value)
                elif key == "required" and isinstance(value, list):
                    required.extend(r for r in value if r not in required)
                else:
                    merged.setdefault(key, value)
        if props:
            merged["properties"] = props
            merged.setdefault("type", "object")
        if required:
            merged["required"] = required
        return merged

    def _fix_type(self, schema: JSON, field: str) -> None:
        typ = schema.get("type")
        if typ is None:
            inferred = _infer_type(schema)
            if inferred:
                schema["type"] = inferred
            return
        if isinstance(typ, list):
            fixed = [self._canonical_type(t, field) for t in typ]
            kept = [t for t in fixed if t]
            if not kept or len(kept) < len(fixed):
                schema.pop("type")
            else:
                schema["type"] = kept if len(kept) > 1 else kept[0]
            return
        canonical = self._canonical_type(typ, field)
        if canonical is None:
            schema.pop("type")
        else:
            schema["type"] = canonical

    def _canonical_type(self, typ: Any, field: str) -> str | None:
        if isinstance(typ, str) and typ in _CANONICAL:
            return typ
        key = typ.lower().strip() if isinstance(typ, str) else None
        if key in _TYPE_ALIASES:
            canonical = _TYPE_ALIASES[key]
            shown = canonical or "any type"
            self.warn(field, f"type {typ!r} is not JSON Schema; read as {shown!r}")
            return canonical
        self.warn(field, f"unknown type {typ!r} dropped; accepting any value")
        return None

    def _fix_enum_type(self, schema: JSON, field: str) -> None:
        """An enum whose values break the declared scalar type (``type: integer`` listing ``"1 (Public)"``)
        refuses every value: each is read as the type where it can be (its leading number, a number's
        text), else the enum is dropped and the type kept."""
        typ, values = schema.get("type"), schema.get("enum")
        if not isinstance(values, list) or typ not in ("integer", "number", "boolean", "string"):
            return
        if all(v is None or _is_type(v, typ) for v in values):
            return
        fixed = [None if v is None else v if _is_type(v, typ) else _as_type(v, typ) for v in values]
        if any(v is None for v, old in zip(fixed, values, strict=True) if old is not None):
            schema.pop("enum")
            self.warn(field, f"'enum' values {_shown(values)} are not of type {typ!r}; dropped")
        else:
            schema["enum"] = list(dict.fromkeys(fixed))
            self.warn(field, f"'enum' values {_shown(values)} read as {typ!r}")

    def _fix_format_pattern(self, schema: JSON, field: str) -> None:
        """A ``format`` and a ``pattern`` no text satisfies together (a creation time declared a
        ``date-time`` beside an id's ``^se(-[a-z0-9]+)+$``, brought by a shared ``$ref``): the
        format says what the value is; the pattern is dropped."""
        pattern, fmt = schema.get("pattern"), schema.get("format")
        if isinstance(pattern, str) and isinstance(fmt, str) and contradicts(pattern, fmt):
            schema.pop("pattern")
            self.warn(field, f"'pattern' {pattern!r} admits no {fmt!r}; dropped")

    def _fix_properties(self, schema: JSON, field: str, depth: int, seen: tuple[int, ...]) -> None:
        props = schema["properties"]
        if not isinstance(props, dict):
            self.warn(field, "'properties' is not an object; dropped")
            schema.pop("properties")
            return
        required = list(schema.get("required") or []) if isinstance(schema.get("required"), list) else []
        fixed: JSON = {}
        for name, sub in props.items():
            if isinstance(sub, dict) and isinstance(sub.get("required"), bool):
                sub = dict(sub)
                if sub.pop("required") and name not in required:
                    required.append(name)
                    self.warn(f"{field}.{name}", "'required: true' on a property moved to the parent")
            fixed[str(name)] = self.run(sub, f"{field}.{name}", depth + 1, seen)
            prose_enum = fixed[str(name)].get("enum") if not (isinstance(sub, dict) and "enum" in sub) else None
            said = {v for v in prose_enum or () if v is not None}  # (a nullable field's null is no word said)
            if said and said <= {str(n) for n in props}:
                # "Either `file` or `url` must be given" names parameters, not values
                fixed[str(name)].pop("enum")
                self.warn(f"{field}.{name}", f"quoted words {prose_enum} name parameters; not read as an enum")
        schema["properties"] = fixed
        schema.setdefault("type", "object")
        if required:
            schema["required"] = required

    def _fix_required(self, schema: JSON, field: str) -> None:
        required = schema.get("required")
        if required is None:
            return
        if not isinstance(required, list):
            self.warn(field, f"'required' is {required!r}, not a list; dropped")
            schema.pop("required")
            return
        required = [r for r in required if isinstance(r, str)]
        schema["required"] = required
        props = schema.get("properties")
        if props is None:
            return
        absent = [r for r in required if r not in props]
        if absent:
            self.warn(field, f"'required' names absent properties {absent}; dropped them")
            schema["required"] = [r for r in required if r in props]
            if not schema["required"]:
                schema.pop("required")

    def _constraints_from_prose(self, schema: JSON, field: str) -> None:
        for added in apply_prose(schema):
            self.warn(field, f"{added} read from the description")


def _examples(schema: JSON) -> None:
    """OpenAPI's ``example: v`` and JSON Schema's ``examples: [...]`` as one list of scalar examples
    (seeded data and task values draw from it); anything else is dropped."""
    found = []
    if "example" in schema:
        found.append(schema.pop("example"))
    raw = schema.pop("examples", None)
    if isinstance(raw, list):
        found += raw
    scalars = [v for v in found if isinstance(v, _SCALAR) and (not isinstance(v, str) or len(v) <= 200)]
    if scalars:
        schema["examples"] = list(dict.fromkeys(scalars))


_LEADING_NUMBER = re.compile(r"\s*(-?\d+(?:\.\d+)?)(?=$|[\s(:=-])")


def _as_type(value: Any, typ: str) -> Any:
    """``value`` read as a JSON Schema scalar type, or None: ``"1 (Public)"`` as the integer 1 (a
    number's text with its label after it), ``"2.5"`` as a number, ``"true"`` as a boolean, 3 as text."""
    if isinstance(value, bool) and typ != "boolean":
        return None
    if typ == "string":
        return str(value) if _number(value) else None
    if typ == "boolean":
        return {"true": True, "false": False}.get(str(value).strip().lower())
    if isinstance(value, str):
        found = _LEADING_NUMBER.match(value)
        value = float(found.group(1)) if found else None
    if not _number(value):
        return None
    if typ == "number":
        return value
    return int(value) if float(value).is_integer() else None


def _is_type(value: Any, typ: str) -> bool:
    if typ == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if typ == "number":
        return _number(value)
    if typ == "boolean":
        return isinstance(value, bool)
    return isinstance(value, str)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


_KEYWORD_SHAPES: dict[str, Any] = {
    "type": lambda v: isinstance(v, str) or (isinstance(v, list) and all(isinstance(t, str) for t in v)),
    "required": lambda v: isinstance(v, (list, bool)),
    "description": lambda v: isinstance(v, str),
    "title": lambda v: isinstance(v, str),
    "pattern": lambda v: isinstance(v, str),
    "format": lambda v: isinstance(v, str),
    "properties": lambda v: isinstance(v, dict),
    "items": lambda v: isinstance(v, (dict, list, bool)),
    "additionalProperties": lambda v: isinstance(v, (dict, bool)),
    "enum": lambda v: isinstance(v, list),
    "allOf": lambda v: isinstance(v, list),
    "anyOf": lambda v: isinstance(v, list),
    "oneOf": lambda v: isinstance(v, list),
    "not": lambda v: isinstance(v, dict),
    "minimum": _number,
    "maximum": _number,
    "multipleOf": lambda v: _number(v) and v > 0,
    "exclusiveMinimum": lambda v: _number(v) or isinstance(v, bool),
    "exclusiveMaximum": lambda v: _number(v) or isinstance(v, bool),
    "minLength": _count,
    "maxLength": _count,
    "minItems": _count,
    "maxItems": _count,
    "minProperties": _count,
    "maxProperties": _count,
    "uniqueItems": lambda v: isinstance(v, bool),
    "nullable": lambda v: isinstance(v, bool),
    "readOnly": lambda v: isinstance(v, bool),
    "writeOnly": lambda v: isinstance(v, bool),
    "patternProperties": lambda v: isinstance(v, dict),
    "dependencies": lambda v: isinstance(v, dict),
}


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _infer_type(schema: JSON) -> str | None:
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    values = schema.get("enum")
    if isinstance(values, list) and values:
        kinds = {type(v) for v in values}
        if kinds == {str}:
            return "string"
        if kinds <= {int} and bool not in kinds:
            return "integer"
    return None


class _Budget:
    def __init__(self, nodes: int) -> None:
        self.left = nodes
        self.cut = 0


def as_tree(value: Any, *, max_nodes: int = 100_000, max_depth: int = 2 * MAX_DEPTH) -> Any:
    """A copy of resolved JSON whose shared parts are copied and whose cycles are cut.

    ``$ref`` resolution turns a self-referencing schema (``Node.children: [Node]``, common in real
    APIs) into a cyclic structure, and a schema referenced from many places into a DAG that
    expands exponentially when walked as a tree. Here a schema met again inside itself is unrolled
    once and then stands as ``{"type": "object", "title": ...}``; past ``max_nodes`` nodes or
    ``max_depth`` levels every schema is cut the same way, so the result is always bounded.
    """
    return _tree(value, (), 0, max_depth, _Budget(max_nodes))


def _stub(node: JSON) -> JSON:
    stub: JSON = {"type": node.get("type") if isinstance(node.get("type"), str) else "object"}
    if isinstance(node.get("title"), str):
        stub["title"] = node["title"]
        stub["description"] = f"a nested {node['title']} (recursive; not expanded further)"
    return stub


def _tree(value: Any, path: tuple[int, ...], depth: int, max_depth: int, budget: _Budget) -> Any:
    if isinstance(value, dict):
        if id(value) in path or depth >= max_depth or budget.left <= 0:
            budget.cut += 1
            return _stub(value)
        budget.left -= 1
        inner = (*path, id(value))
        return {k: _tree(v, inner, depth + 1, max_depth, budget) for k, v in value.items()}
    if isinstance(value, list):
        if depth >= max_depth or budget.left <= 0:
            budget.cut += 1
            return []
        budget.left -= 1
        return [_tree(v, path, depth + 1, max_depth, budget) for v in value]
    return value


def inline_local_refs(schema: JSON) -> JSON:
    """Inline ``#/$defs/...`` and ``#/definitions/...`` references (as pydantic emits them)."""
    defs: JSON = {}
    for key in ("definitions", "$defs"):
        if isinstance(schema.get(key), dict):
            defs.update(schema[key])

    def walk(node: Any, stack: tuple[str, ...]) -> Any:
        if isinstance(node, list):
            return [walk(n, stack) for n in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
            name = ref.rsplit("/", 1)[-1]
            if name in stack or name not in defs:
                return {"type": "object"}
            extra = {k: v for k, v in node.items() if k != "$ref"}
            target = walk(defs[name], (*stack, name))
            return {**target, **extra} if isinstance(target, dict) else {"type": "object", **extra}
        return {k: walk(v, stack) for k, v in node.items() if k not in ("$defs", "definitions")}

    return walk(schema, ())


# the Python types a JSON value of each JSON Schema type arrives as
PYTHON_TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,), "string": (str,),
                                             "integer": (int,), "number": (int, float), "boolean": (bool,)}  # fmt: skip


def primary_type(schema: JSON | None) -> str | None:
    """The first non-null JSON type of ``schema`` (``None`` when untyped)."""
    if not schema:
        return None
    typ = schema.get("type")
    if isinstance(typ, list):
        typ = next((t for t in typ if t != "null"), None)
    if typ is None:
        for key in ("anyOf", "oneOf"):
            for sub in schema.get(key) or []:
                found = primary_type(sub)
                if found and found != "null":
                    return found
    return typ


_SUCCESS = re.compile(r"\btrue\b[^.]*\bsuccess(?:ful|fully)?\b", re.IGNORECASE)
_CHECKS = ("verif", "valid", "check", "healthy")  # a check's verdict, not the call's outcome


def enum_values(schema: JSON | None) -> list[Any]:
    """A schema's enumerated values, a nullable one's too (``anyOf: [{enum: [...]}, {type: null}]``),
    as :func:`primary_type` reads a nullable type."""
    found = list((schema or {}).get("enum") or [])
    for key in ("anyOf", "oneOf"):
        for sub in (schema or {}).get(key) or []:
            found += [v for v in (sub.get("enum") or []) if v not in found] if isinstance(sub, dict) else []
    return found


def outcome_flags(schema: JSON | None) -> tuple[str, ...]:
    """Top-level boolean members that report whether the call itself succeeded: ``success``, ``ok``, or
    described "True if the message was sent successfully" (``sent_status``). They are no state:
    a call that succeeds answers them ``true``. A check's verdict (``verification_status``) is not one."""
    out = []
    for name, sub in ((schema or {}).get("properties") or {}).items():
        if not isinstance(sub, dict) or primary_type(sub) != "boolean" or any(w in name.lower() for w in _CHECKS):
            continue
        if name.lower() in ("success", "succeeded", "ok") or _SUCCESS.search(str(sub.get("description") or "")):
            out.append(name)
    return tuple(out)


# Envelope members that describe the response, not the records in it
META_KEYS = frozenset({"_links", "links", "meta", "metadata", "page", "pagination", "paging", "pageinfo",
                       "page_info", "cursor", "next", "previous", "prev", "self", "errors", "warnings"})  # fmt: skip
# Members that hold the data when they are an object beside other members
DATA_KEYS = frozenset({"data", "result", "results", "item", "items", "response", "payload", "_embedded",
                       "value", "values", "record", "records", "content", "body", "entity", "entries"})  # fmt: skip
MAX_ENVELOPES = 6


def data_path(schema: JSON | None) -> tuple[tuple[tuple[str, JSON], ...], JSON | None, bool]:
    """Where the records sit in a response schema: the envelope levels passed through (each the
    key taken and the object schema it was taken from), the record schema, and whether records
    come as a list. ``{data: {accounts: [Account], server_knowledge}}`` gives
    ``((data, ...), (accounts, ...))``, ``Account``, list; a HAL ``{_embedded: {orders: [...]},
    _links, page}`` gives ``((_embedded, ...), (orders, ...))``, the order schema, list."""
    path: list[tuple[str, JSON]] = []
    node = schema
    for _ in range(MAX_ENVELOPES):
        node = first_alternative(node)
        if not node:
            return tuple(path), None, False
        typ = primary_type(node)
        if typ == "array":
            items = node.get("items")
            return tuple(path), items if isinstance(items, dict) else None, True
        if typ != "object":
            return tuple(path), None, False
        key = _data_member(node, inside_data=bool(path) and path[-1][0].lower() in DATA_KEYS)
        if key is None:  # a free-form object an envelope holds (``{success, data: {type: object}}``) is the record
            return tuple(path), node if node.get("properties") or path else None, False
        path.append((key, node))
        node = node["properties"][key]
    return tuple(path), node, False


def first_alternative(schema: JSON | None) -> JSON | None:
    """Of a schema that is only alternatives (``oneOf: [Compliance, ComplianceCsv]``, ``anyOf: [Record,
    {type: null}]``), the first that is not null, with what is said beside them (nested alternatives
    likewise): what an answer holds when it holds anything; any other schema as it is."""
    for _ in range(MAX_ENVELOPES):
        if not schema or "type" in schema or "properties" in schema or "items" in schema:
            break
        first = next((o for key in ("anyOf", "oneOf") for o in schema.get(key) or []
                      if isinstance(o, dict) and o.get("type") != "null"), None)  # fmt: skip
        if first is None:
            break
        schema = {**{k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}, **first}
    return schema


def declares_one_record(schema: JSON | None) -> bool:
    """Whether a response declares one record rather than a list of them: a record schema, maybe
    enveloped, or a bare free-form ``{type: object}`` (Box's shared item)."""
    path, record, as_list = data_path(schema)
    return not as_list and (record is not None or (not path and primary_type(schema) == "object"))


def declares_no_members(schema: JSON | None) -> bool:
    """Whether a response is a closed object that declares no members (``{type: object,
    additionalProperties: false}``): the only answer it admits is ``{}``."""
    if not isinstance(schema, dict) or schema.get("additionalProperties") is not False:
        return False
    return primary_type(schema) == "object" and not schema.get("properties") and not schema.get("patternProperties")


def lists_values(schema: JSON | None) -> bool:
    """Whether a response is only lists of plain values (``{filtered_stocks: [symbols]}``): a
    search that finds nothing answers them empty rather than ``not_found``."""
    props = (schema or {}).get("properties") or {}
    plain = [isinstance(v, dict) and primary_type(v) == "array" and primary_type(v.get("items")) not in ("object", None)
             for v in props.values()]  # fmt: skip
    return bool(props) and all(plain)


def value_list_member(schema: JSON | None) -> str | None:
    """The one member of a response that is only a list of plain values (``filtered_stocks``,
    ``order_history``): what it lists are keys, not a record's fields."""
    props = (schema or {}).get("properties") or {}
    return next(iter(props)) if len(props) == 1 and lists_values(schema) else None


def keyed_map_record(schema: JSON | None) -> JSON | None:
    """What an answer that maps each record's key to something holds per key: the record
    (``{type: object, additionalProperties: Provider}``, no members of its own: Meshery's providers
    by name) or one plain value of it (BritBox's bookmarks, ``additionalProperties: {format:
    date-time}``: when each was made); None for any other answer."""
    if not isinstance(schema, dict) or primary_type(schema) != "object" or schema.get("properties"):
        return None
    held = schema.get("additionalProperties")
    kinds = ("object", "string", "integer", "number", "boolean")
    return held if isinstance(held, dict) and primary_type(held) in kinds and held.get("properties") != {} else None


def min_records(schema: JSON | None) -> int:
    """The ``minItems`` of the list a response holds its records in (0 when none is declared):
    a list the API never returns empty (AWS's subscribers of a notification)."""
    path, _, as_list = data_path(schema)
    if not as_list:
        return 0
    holder = path[-1][1]["properties"][path[-1][0]] if path else schema
    value = holder.get("minItems", 0) if isinstance(holder, dict) else 0
    return value if isinstance(value, int) else 0


def _data_member(node: JSON, inside_data: bool = False) -> str | None:
    """The one member of an envelope object that holds the records (None: ``node`` is a record).
    ``inside_data``: ``node`` is what a ``data`` member holds, itself an envelope in YNAB's
    ``{data: {plans: [...], default_plan}}`` and ``{data: {plan: {...}, server_knowledge}}``."""
    props = node.get("properties") or {}
    if any(k.lower() == "id" or k.lower().endswith(("_id", "id")) for k in props if not _meta(k)):
        return None
    flags = set(outcome_flags(node))  # ``{ok: true, task: {...}}``: the flag says the call worked, it is no record
    body = {k: p for k, p in props.items() if not _meta(k) and k not in flags and isinstance(p, dict)}
    scalars = [k for k, p in body.items() if primary_type(p) in ("string", "integer", "number", "boolean")]
    lists = [k for k, p in body.items() if primary_type(p) == "array" and primary_type(p.get("items")) == "object"]
    objects = [k for k, p in body.items() if primary_type(p) == "object" and p.get("properties")]
    if len(lists) > 1:  # ``{entries: [...], order: [{by, direction}]}``: the data-named one
        lists = [k for k in lists if k.lower() in DATA_KEYS] or lists
    if len(lists) > 1:  # ``{createdOrders: [...], failedOrders: [...]}``: the records made, not the refused
        lists = [k for k in lists if not set(_words(k)) & _REFUSED_WORDS] or lists
    if inside_data and len(lists) == 1:  # ``default_plan`` beside ``plans``: one of them, shown apart
        record = inflection.singular(lists[0].lower())
        objects = [k for k in objects if not k.lower().endswith(record)]
    if len(lists) == 1 and not objects and (len(scalars) <= 4 or lists[0].lower() in DATA_KEYS):
        return lists[0]  # ``{$schema, method, replied_at, limit, offset, total, results: [...]}``: a page, however said
    free = [k for k, p in body.items() if k.lower() in DATA_KEYS and primary_type(p) == "object"
            and not p.get("properties")]  # fmt: skip
    if free and len(body) == 1:  # ``{success: true, data: {type: object}}``: the record, its members unsaid
        return free[0]
    if inside_data and len(objects) == 1 and not lists and len(scalars) <= 2:
        return objects[0]
    if len(objects) == 1 and not lists and (not scalars or objects[0].lower() in DATA_KEYS):
        return objects[0]
    same = [k for k in lists if _members(body[k].get("items")) == _members(body[objects[0]])] if objects else []
    if len(objects) == 1 and lists and not scalars and same == lists:
        return objects[0]  # ``{task: {...}, recovered: [task, ...]}``: the record, and more of its kind beside it
    if len(objects) > 1 and not scalars:  # ``{task: {...}, parent: {id, title}, subtasks: [{id, title}]}``: the
        widest = max(objects, key=lambda k: len(_members(body[k])))  # record, and records it links drawn smaller
        kin = [_members(body[k]) for k in objects if k != widest] + [_members(body[k].get("items")) for k in lists]
        if all(m and m < _members(body[widest]) for m in kin):
            return widest
    return None


# words a page's own facts are named with (``pageMeta``, ``paging_info``, ``pageLinks``): no records
_META_WORDS = frozenset({"page", "paging", "pagination", "meta", "metadata", "info", "links", "cursor", "cursors"})


def _meta(key: str) -> bool:
    """Whether an envelope's member holds the page's own facts rather than data (``META_KEYS``, or a
    name of several such words: ``pageMeta``)."""
    if key.lower() in META_KEYS:
        return True
    words = _words(key)
    return len(words) > 1 and set(words) <= _META_WORDS


_REFUSED_WORDS = frozenset({"failed", "failures", "failure", "errors", "rejected", "skipped", "invalid", "refused"})


def _words(name: str) -> list[str]:
    return re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).replace("_", " ").replace("-", " ").lower().split()


def _members(schema: Any) -> frozenset[str]:
    return frozenset((schema or {}).get("properties") or ()) if isinstance(schema, dict) else frozenset()


def entity_schema(schema: JSON | None) -> JSON | None:
    """The object schema of the record a tool returns: unwraps arrays and envelopes (see :func:`data_path`)."""
    _, record, _ = data_path(schema)
    return record if record and primary_type(record) == "object" and record.get("properties") else None


_KINDS = {bool: "boolean", int: "integer", float: "number", str: "string"}


def schema_from_example(value: Any, depth: int = 0) -> JSON:
    """The schema a person reads off an example answer where the description gives none: objects
    with their members, lists with the union of their records' members, each value typed and kept
    as its ``example`` (``null`` types nothing). Bounded at 8 levels."""
    if depth > 8:
        return {}
    if isinstance(value, dict):
        return {"type": "object", "properties": {str(k): schema_from_example(v, depth + 1) for k, v in value.items()}}
    if isinstance(value, list):
        records = [v for v in value if isinstance(v, dict)]
        if records:
            merged: JSON = {}
            for record in records:
                merged.update({k: v for k, v in record.items() if k not in merged or merged[k] is None})
            return {"type": "array", "items": schema_from_example(merged, depth + 1)}
        first = next((v for v in value if v is not None), None)
        return {"type": "array", "items": schema_from_example(first, depth + 1) if first is not None else {}}
    kind = _KINDS.get(type(value))
    return {"type": kind, "example": value} if kind else {}

"""OpenAPI 3.0/3.1 and Swagger 2.0 -> ToolSet: one tool per operation.

``$ref`` (local and across files) is resolved by ``jsonref``; path, query, header and body
parameters are merged into one input schema; the first 2xx response schema becomes the
output schema. Component schemas get their name as ``title`` so that synthesis can tell
which entity an operation returns.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import jsonref

from envfactory.diagnostics import Diagnostics
from envfactory.errors import SpecError, UnsupportedFormatError
from envfactory.ingest.common import clean_tool_name, make_tool, shorten_name
from envfactory.ingest.files import read_document
from envfactory.ir.jsonschema import as_tree, schema_from_example
from envfactory.ir.tool import HttpBinding, ParamLocation, ToolAnnotations, ToolSet, ToolSource, ToolSpec
from envfactory.words import tokens

JSON = dict[str, Any]
METHODS = ("get", "post", "put", "patch", "delete")
_BODY_TYPES = ("application/json", "application/x-www-form-urlencoded", "multipart/form-data")
_PARAM_META = {"name", "in", "description", "required", "collectionFormat", "allowEmptyValue"}


def is_openapi(doc: Any) -> bool:
    return isinstance(doc, dict) and ("openapi" in doc or "swagger" in doc)


def load_openapi(path: Path, diag: Diagnostics, doc: Any = None, *, ref_roots: tuple[Path, ...] = ()) -> ToolSet:
    """One tool per operation; ``$ref`` may read files in the spec's folder and in ``ref_roots``."""
    doc = read_document(path, diag) if doc is None else doc
    version = _version(doc, path)
    _title_components(doc, version)
    resolved = _resolve_refs(doc, path, diag, ref_roots)
    check_skeleton(resolved, path)
    paths = resolved.get("paths")
    auth_names = auth_parameter_names(resolved)
    if not isinstance(paths, dict) or not paths:
        raise SpecError("no operations: 'paths' is missing or empty", file=str(path), field="paths")
    tools: list[ToolSpec] = []
    taken: dict[str, str] = {}
    for route, item in paths.items():
        if not isinstance(item, dict):
            diag.warn(f"path item {route!r} is not an object; skipped", field=f"paths.{route}")
            continue
        item = {"parameters": item.get("parameters"), **{m: item[m] for m in METHODS if m in item}}
        for method in METHODS:
            op = item.get(method)
            if isinstance(op, dict):
                op_tree, params = as_tree(op), {"parameters": as_tree(item.get("parameters"))}
                tool = _operation_tool(route, method, params, op_tree, version, path, diag, auth_names)
                tools.append(_own_name(tool, f"{method.upper()} {route}", taken, diag))
    if not tools:
        raise SpecError("no operations found under 'paths'", file=str(path), field="paths")
    info = resolved.get("info") or {}
    name = _slug(info.get("title") or path.stem)
    return ToolSet(
        name=name,
        description=str(info.get("description") or "").strip(),
        tools=tuple(tools),
        warnings=tuple(diag.warnings),
    )


# where in the document (``*``: any key) -> the JSON type the ingester reads there; anything else is
# refused with one error naming the file and the field, never met later as a raw exception
_OPERATION = {"parameters": list, "responses": dict, "requestBody": dict, "operationId": str, "tags": list}
SKELETON: dict[str, type] = {
    "info": dict, "info.title": str, "paths": dict, "paths.*.parameters": list,
    **{f"paths.*.{m}.{k}": t for m in METHODS for k, t in _OPERATION.items()},
    "components": dict, "components.schemas": dict, "components.securitySchemes": dict,
    "definitions": dict, "securityDefinitions": dict,
}  # fmt: skip
_TYPE_NAMES: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}


def check_skeleton(doc: JSON, path: Path) -> None:
    """Refuse a document whose structure is of the wrong shape where the ingester reads it
    (``info: -1``, ``parameters: 5``): a :class:`SpecError` naming the file and the field."""
    for where, kind in SKELETON.items():
        for field, value in _found(doc, where.split(".")):
            if value is not None and not isinstance(value, kind):
                raise SpecError(
                    f"{field!r} must be {_TYPE_NAMES[kind]}, not {type(value).__name__} {value!r:.40}",
                    file=str(path), field=field,
                )  # fmt: skip


def _found(node: Any, parts: list[str], at: str = "") -> list[tuple[str, Any]]:
    """``(field, value)`` of every place ``parts`` names under ``node``; ``*`` matches every key."""
    if not parts:
        return [(at, node)]
    if not isinstance(node, dict):
        return []
    keys = list(node) if parts[0] == "*" else [parts[0]] if parts[0] in node else []
    return [hit for k in keys for hit in _found(node[k], parts[1:], f"{at}.{k}" if at else str(k))]


def _version(doc: JSON, path: Path) -> int:
    raw = str(doc.get("openapi") or doc.get("swagger") or "")
    if raw.startswith("2."):
        return 2
    if raw.startswith(("3.0", "3.1")):
        return 3
    raise UnsupportedFormatError(
        f"unsupported OpenAPI version {raw!r} (supported: Swagger 2.0, OpenAPI 3.0 and 3.1)",
        file=str(path),
        field="openapi" if "openapi" in doc else "swagger",
    )


def _title_components(doc: JSON, version: int) -> None:
    holder = doc.get("components") if version == 3 else doc
    schemas = holder.get("schemas" if version == 3 else "definitions") if isinstance(holder, dict) else None
    for name, schema in (schemas if isinstance(schemas, dict) else {}).items():
        if isinstance(schema, dict):
            schema.setdefault("title", name)


def _resolve_refs(doc: JSON, path: Path, diag: Diagnostics, roots: tuple[Path, ...] = ()) -> JSON:
    allowed = (path.resolve().parent, *(r.resolve() for r in roots))

    def loader(uri: str) -> Any:
        file = ref_file(uri, allowed, spec=path)
        loaded = read_document(file, Diagnostics(file=str(file)))
        if isinstance(loaded, dict) and ("type" in loaded or "properties" in loaded):
            loaded.setdefault("title", file.stem)
        _title_components(loaded, 3) if isinstance(loaded, dict) else None
        return loaded

    doc = {k: v for k, v in doc.items() if not str(k).startswith("x-")}  # vendor extensions: docs, not tools
    try:
        return jsonref.replace_refs(
            doc,
            base_uri=path.resolve().as_uri(),
            loader=loader,
            proxies=False,
            lazy_load=False,
            merge_props=True,
        )
    except jsonref.JsonRefError as err:
        ref = err.reference.get("$ref") if isinstance(err.reference, dict) else err.reference
        where = ".".join(str(p) for p in err.path) or None
        cause = err.cause
        if isinstance(cause, SpecError):
            reason = cause.reason
        elif isinstance(cause, (FileNotFoundError, OSError)):
            reason = f"file {getattr(cause, 'filename', None) or cause} does not exist"
        else:
            reason = str(cause or err.message)
        raise SpecError(f"cannot resolve $ref {ref!r}: {reason}", file=str(path), field=where or "$ref") from None
    except RecursionError:
        raise SpecError("$ref cycle too deep to resolve", file=str(path)) from None


def ref_file(uri: str, allowed: tuple[Path, ...], *, spec: Path) -> Path:
    """The local file a ``$ref`` names, if it lies inside an allowed folder; else a SpecError.

    Never the network: an http(s) ``$ref`` is refused, not fetched and not rewritten to a path."""
    parsed = urlparse(uri)
    if parsed.scheme not in ("", "file") or parsed.netloc not in ("", "localhost"):
        raise SpecError(
            f"$ref {uri!r} points outside this machine; envfactory does not fetch references "
            "(save the document next to the spec and refer to it by a relative path)",
            file=str(spec),
        )
    file = Path(unquote(parsed.path)).resolve()
    if not any(file.is_relative_to(root) for root in allowed):
        raise SpecError(
            f"$ref {uri!r} reads {file}, outside the spec's folder {allowed[0]} (allow another folder with --ref-root)",
            file=str(spec),
        )
    return file


# Headers and query parameters that carry transport, format or credentials, not meaning
TRANSPORT_HEADERS = frozenset({
    "accept", "accept-encoding", "accept-language", "accept-charset", "content-type", "content-length",
    "content-encoding", "authorization", "proxy-authorization", "user-agent", "cookie", "host", "origin",
    "referer", "connection", "cache-control", "pragma", "x-api-key", "x-apikey", "api-key", "apikey",
    "x-request-id", "x-correlation-id", "x-requested-with", "x-forwarded-for", "x-csrf-token", "x-xsrf-token",
    "x-amz-date", "x-amz-security-token", "idempotency-key", "x-idempotency-key",
    "x-goog-user-project", "x-ms-version", "x-ms-client-request-id",
})  # fmt: skip
TRANSPORT_QUERY = frozenset({
    "alt", "fields", "api_key", "apikey", "access_token", "oauth_token", "prettyprint", "quotauser",
    "userip", "upload_protocol", "uploadtype", "callback", "$.xgafv", "pretty", "jsonp",
})  # fmt: skip
_PROTOCOL = ("action", "version")  # AWS query protocol headers
_AUTH_WORDS = frozenset({"token", "auth", "authorization", "secret", "password", "signature", "credential",
                         "credentials", "tenant", "apikey", "session", "cookie"})  # fmt: skip
_CREDENTIAL = re.compile(r"\b(api[ _-]?key|access[ _-]?token|credential|secret)\b", re.IGNORECASE)


def is_transport(param: JSON, auth_names: frozenset[str] = frozenset()) -> bool:
    """Is this parameter plumbing (a transport header, a credential, a response-format switch)?"""
    name, location = str(param.get("name")), param.get("in")
    low = name.lower()
    if low in auth_names:
        return True
    if location == "header":
        # AWS's signature headers and its query-protocol ``Action``/``Version`` name no resource either;
        # nor does a credential or a tenant (``xero-tenant-id``, ``X-Postmark-Server-Token``, ``App-Key``)
        words = set(re.findall(r"[a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()))
        return (low in TRANSPORT_HEADERS or low.startswith(("x-ratelimit", "sec-", "x-amz-")) or low in _PROTOCOL
                or bool(words & _AUTH_WORDS) or low.endswith(("-key", "_key")))  # fmt: skip
    if location == "cookie":
        return True
    if location != "query":
        return False
    described = str(param.get("description") or "")
    # ``key``, ``token``, ``api_secret``, ``client_secret`` described as a credential ("Your API secret"); a
    # ``secret`` alone is a field lists filter on ("Filter on the secret token")
    said = re.findall(r"[a-z0-9]+", low)
    secret = low in ("key", "token") or ("secret" in said and len(said) > 1)
    return low in TRANSPORT_QUERY or (secret and bool(_CREDENTIAL.search(described)))


_SUFFIX_WORDS = ("extension", "format", "ext", "suffix")


def glued_format(segment: str) -> str | None:
    """The name of a format parameter glued to the end of a route segment after text or another
    parameter (``articles{mediaTypeExtension}``, ``{pageName}{format}``): the response format, as
    ``.{format}`` is, not a resource; ``None`` where the segment ends otherwise."""
    found = re.search(r"(?<=.)\{([^{}/]+)\}$", segment)
    named = tokens(found.group(1)) if found else ()
    return found.group(1) if found and named and named[-1] in _SUFFIX_WORDS else None


def auth_parameter_names(doc: JSON) -> frozenset[str]:
    """Names of apiKey credentials the spec declares (``securitySchemes`` / ``securityDefinitions``)."""
    holder = (doc.get("components") or {}).get("securitySchemes") if isinstance(doc.get("components"), dict) else None
    schemes = holder if isinstance(holder, dict) else doc.get("securityDefinitions")
    names = set()
    for scheme in (schemes if isinstance(schemes, dict) else {}).values():
        if isinstance(scheme, dict) and scheme.get("type") == "apiKey" and isinstance(scheme.get("name"), str):
            names.add(scheme["name"].lower())
    return frozenset(names)


def _own_name(tool: ToolSpec, locator: str, taken: dict[str, str], diag: Diagnostics) -> ToolSpec:
    """``tool`` under a name no earlier operation took: one whose name another has (``GET /users/~``
    cleaned to ``get_users`` beside ``GET /users``, an ``operationId`` given twice) takes 8 hex digits
    of its method and route after it, with a warning."""
    name = tool.name
    if name in taken:
        digest = hashlib.blake2b(locator.encode(), digest_size=4).hexdigest()
        name = shorten_name(f"{tool.name}_{digest}")
        diag.warn(f"tool name {tool.name!r} of {locator} is taken by {taken[tool.name]}; renamed to {name!r}",
                  tool=name)  # fmt: skip
        tool = tool.model_copy(update={"name": name})
    taken[name] = locator
    return tool


def _operation_tool(route: str, method: str, item: JSON, op: JSON, version: int, path: Path, diag: Diagnostics,
                    auth_names: frozenset[str] = frozenset()) -> Any:  # fmt: skip
    locator = f"{method.upper()} {route}"
    raw_name = op.get("operationId") or _derived_name(method, route)
    name = clean_tool_name(raw_name, diag, where=locator)
    props: JSON = {}
    required: list[str] = []
    where: dict[str, ParamLocation] = {}
    transport: dict[str, ParamLocation] = {}
    values: JSON = {}
    params = _merge_params(item.get("parameters"), op.get("parameters"))
    for param in params:
        loc = param.get("in")
        pname = param.get("name")
        if not isinstance(pname, str) or loc not in (
            "path",
            "query",
            "header",
            "cookie",
            "body",
            "formData",
        ):
            diag.warn(f"parameter without a usable name/in skipped: {param!r:.80}", tool=name)
            continue
        if loc == "body":
            _add_body(param.get("schema"), bool(param.get("required")), props, required, where, name, diag)
            continue
        versioned = loc == "path" and f"/v{{{pname}}}/" in f"{route}/"  # ``/v{version}/areas``: the API's version
        suffixed = loc == "path" and pname in map(glued_format, route.split("/"))  # ``/api/articles{…Extension}``
        if is_transport(param, auth_names) or (loc == "path" and f".{{{pname}}}" in route) or versioned or suffixed:
            transport[pname] = loc  # ``/lists.{format}``: the response format, not a resource
            if param.get("required") or versioned:
                values[pname] = binding_value(param, _param_schema(param, version), "1" if versioned else None)
            continue
        schema = _param_schema(param, version)
        if param.get("description") and "description" not in schema:
            schema = {**schema, "description": param["description"]}
        where[pname] = "body" if loc == "formData" else loc
        if loc in ("header", "cookie") and param.get("required"):
            # a marketplace or an API version: sent with every call, so the binding holds a value, the
            # agent may leave it out (its default) and no task asks for it
            values[pname] = binding_value(param, schema)
            schema = {**schema, "default": values[pname]}
        elif param.get("required") or loc == "path":
            required.append(pname)
        props[pname] = schema
    body = op.get("requestBody")
    if version == 3 and isinstance(body, dict):
        _add_body(
            _pick_content(body.get("content")),
            bool(body.get("required")),
            props,
            required,
            where,
            name,
            diag,
        )
    input_schema: JSON = {"type": "object", "properties": props}
    if required:
        input_schema["required"] = list(dict.fromkeys(required))
    tags = tuple(t for t in op.get("tags") or () if isinstance(t, str))
    return make_tool(
        name=name,
        description=_describe(op),
        input_schema=input_schema,
        output_schema=_output_schema(op.get("responses"), version, diag, locator, name),
        annotations=ToolAnnotations(
            read_only=method == "get",
            destructive=method == "delete",
            idempotent=method in ("get", "put", "delete"),
        ),
        source=ToolSource(
            format="openapi",
            file=str(path),
            locator=locator,
            http=HttpBinding(
                method=method.upper(), path=route, params=where, tags=tags, transport=transport, values=values
            ),
        ),
        diag=diag,
    )


_PLACEHOLDERS = {"integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}
_FORMATS = {"uuid": "00000000-0000-4000-8000-000000000000", "date-time": "2026-01-05T09:00:00Z",
            "date": "2026-01-05", "email": "user@example.com", "uri": "https://example.com"}  # fmt: skip


def binding_value(param: JSON, schema: JSON, placeholder: Any = None) -> Any:
    """What a transport parameter is sent as: the spec's example, default or first enum value, else
    ``placeholder`` or one of its type (``example`` for text)."""
    for holder in (param, schema):
        if "example" in holder:
            return holder["example"]
        examples = holder.get("examples")
        if isinstance(examples, list) and examples:
            return examples[0]
        if isinstance(examples, dict):
            first = next((e["value"] for e in examples.values() if isinstance(e, dict) and "value" in e), None)
            if first is not None:
                return first
    if "default" in schema:
        return schema["default"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if placeholder is not None:
        return placeholder
    kind = schema.get("type") if isinstance(schema.get("type"), str) else "string"
    return _PLACEHOLDERS.get(str(kind), _FORMATS.get(str(schema.get("format")), "example"))


def _merge_params(common: Any, own: Any) -> list[JSON]:
    merged: dict[tuple[str, str], JSON] = {}
    for group in (common, own):
        for param in group or ():
            if isinstance(param, dict):
                merged[(str(param.get("name")), str(param.get("in")))] = param
    return list(merged.values())


def _param_schema(param: JSON, version: int) -> JSON:
    if isinstance(param.get("schema"), dict):
        return dict(param["schema"])
    # Swagger 2 puts the schema keywords on the parameter itself.
    return {k: v for k, v in param.items() if k not in _PARAM_META and k != "schema"}


def _pick_content(content: Any) -> JSON | None:
    if not isinstance(content, dict) or not content:
        return None
    for media in (*_BODY_TYPES, *content):
        entry = content.get(media)
        if isinstance(entry, dict) and isinstance(entry.get("schema"), dict):
            return entry["schema"]
    return None


def _add_body(
    schema: Any,
    body_required: bool,
    props: JSON,
    required: list[str],
    where: dict[str, ParamLocation],
    tool: str,
    diag: Diagnostics,
) -> None:
    if not isinstance(schema, dict):
        return
    body_props = schema.get("properties")
    if not isinstance(body_props, dict) and isinstance(schema.get("allOf"), list):
        body_props = {}
        for part in schema["allOf"]:
            body_props.update((part or {}).get("properties") or {})
    if not isinstance(body_props, dict):
        props["body"] = schema
        where["body"] = "body"
        if body_required:
            required.append("body")
        return
    body_required_names = _names(schema.get("required"))
    for part in schema.get("allOf") or ():
        body_required_names |= _names(part.get("required") if isinstance(part, dict) else None)
    for pname, sub in body_props.items():
        if isinstance(sub, dict) and sub.get("readOnly") is True:
            continue  # "SHOULD NOT be sent as part of the request": what the server sets (an id, a create time)
        key = pname
        if key in props and where.get(key) == "path":
            # ``PUT /votes/shows/{show_id}`` with ``{show_id, vote}``: the path names it already
            diag.warn(f"body field {pname!r} repeats the path parameter; the path gives it", tool=tool)
            continue
        if key in props:
            key = f"body_{pname}"
            diag.warn(f"body field {pname!r} clashes with a parameter; renamed to {key!r}", tool=tool)
        props[key] = sub
        where[key] = "body"
        if pname in body_required_names and body_required:
            required.append(key)


def _names(value: Any) -> set[str]:
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _output_schema(responses: Any, version: int, diag: Diagnostics | None = None, where: str = "",
                   tool: str | None = None) -> JSON | None:  # fmt: skip
    if not isinstance(responses, dict):
        return None
    codes = sorted(str(c) for c in responses if str(c).startswith("2"))
    for code in codes:
        response = responses.get(code, responses.get(int(code) if code.isdigit() else code))
        if not isinstance(response, dict):
            continue
        schema = _pick_content(response.get("content")) if version == 3 else response.get("schema")
        if isinstance(schema, dict):
            return schema
    for code in codes:  # no schema: the members an example answer shows (a person reads them off it)
        response = responses.get(code, responses.get(int(code) if code.isdigit() else code))
        example = _example_answer(response, version) if isinstance(response, dict) else None
        if example is not None:
            if diag is not None:
                diag.warn(f"{where}: the {code} answer declares no schema; its members are read off its example",
                          tool=tool)  # fmt: skip
            return schema_from_example(example)
    return None


def _example_answer(response: JSON, version: int) -> Any:
    """A response's JSON example (an object or a list; one written as JSON text is read), or None."""
    holders = list((response.get("content") or {}).values()) if version == 3 else [response]
    found: list[Any] = []
    for holder in (h for h in holders if isinstance(h, dict)):
        if version == 3:
            found.append(holder.get("example"))
            named = holder.get("examples")
            found += [e.get("value") for e in named.values() if isinstance(e, dict)] if isinstance(named, dict) else []
        else:
            named = holder.get("examples")
            found += [v for m, v in named.items() if "json" in str(m)] if isinstance(named, dict) else []
    for value in found:
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                continue
        if isinstance(value, (dict, list)) and value and not _items_wrapped(value):
            return value
    return None


def _items_wrapped(value: Any) -> bool:
    """Whether a list's records are each wrapped in one member (``[{"promotional_code": {...}}]``, a
    Rails root): read off an example, they would be records of one field (item wrappers are not
    modelled), so such an example is left unread."""
    if not isinstance(value, list) or not value:
        return False
    return all(isinstance(i, dict) and len(i) == 1 and isinstance(next(iter(i.values())), dict) for i in value)


def _describe(op: JSON) -> str:
    summary = str(op.get("summary") or "").strip()
    description = str(op.get("description") or "").strip()
    if summary and description and not description.startswith(summary):
        return f"{summary}\n\n{description}"
    return description or summary


def _derived_name(method: str, route: str) -> str:
    parts = []
    for segment in route.strip("/").split("/"):
        glued = glued_format(segment)
        segment = segment.removesuffix(f"{{{glued}}}") if glued else segment
        if not segment:
            continue
        if segment.startswith("{"):
            parts.append("by_" + segment.strip("{}"))
        else:
            parts.append(segment)
    return "_".join([method, *parts]) if parts else method


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "api"

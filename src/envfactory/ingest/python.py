"""Python callables -> ToolSet, with schemas from type hints and docstrings.

A module, a list of functions, or an object whose public methods are the tools. Input
schemas come from the signature (through pydantic), descriptions from Google, NumPy or reST
docstrings. An object stays *bound*: ``synthesize(..., bind=True)`` makes its methods the
environment's behaviour, which is how a user plugs in a real implementation.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any, get_type_hints

import docstring_parser
from pydantic import ConfigDict, TypeAdapter, create_model

from envfactory.diagnostics import Diagnostics
from envfactory.errors import SpecError
from envfactory.ingest.common import make_tool
from envfactory.ir.jsonschema import inline_local_refs
from envfactory.ir.tool import ToolSet, ToolSource, ToolSpec

JSON = dict[str, Any]


def load_python_target(target: str) -> tuple[ToolSet, Any]:
    """``file.py``, ``file.py:Class``, ``pkg.module`` or ``pkg.module:Class`` -> (ToolSet, owner).

    For a class, an instance is made with no arguments and returned as the owner.
    """
    ref, _, attr = target.partition(":") if not _is_windows_drive(target) else (target, "", "")
    module = import_module_ref(ref)
    if attr:
        obj = getattr(module, attr, None)
        if obj is None:
            raise SpecError(f"module has no attribute {attr!r}", file=ref)
        if inspect.isclass(obj):
            try:
                obj = obj()
            except TypeError as err:
                raise SpecError(f"cannot create {attr}() with no arguments: {err}", file=ref) from None
            return from_object(obj, name=_snake(attr), file=ref), obj
        if callable(obj):
            return from_callables([obj], name=attr, file=ref), None
        raise SpecError(f"{attr!r} is neither a class nor a function", file=ref)
    functions = [
        f
        for n, f in vars(module).items()
        if inspect.isfunction(f) and f.__module__ == module.__name__ and not n.startswith("_")
    ]
    if functions:
        return from_callables(functions, name=Path(ref).stem, file=ref), None
    classes = [
        c
        for n, c in vars(module).items()
        if inspect.isclass(c) and c.__module__ == module.__name__ and not n.startswith("_") and _public_methods(c)
    ]
    if len(classes) == 1:
        return load_python_target(f"{ref}:{classes[0].__name__}")
    raise SpecError(
        "no public functions, and not exactly one class with public methods; name one as FILE:CLASS",
        file=ref,
    )


_IMPORTING = threading.RLock()  # a module a thread is still running is never handed to another


def import_module_ref(ref: str) -> ModuleType:
    """Import ``path/to/file.py`` or a dotted module name, with a clear error. Safe from several
    threads at once (episodes played side by side each ask for the implementation on first use)."""
    if ref.endswith(".py"):
        path = Path(ref).resolve()
        if not path.is_file():
            raise SpecError("file not found", file=ref)
        digest = hashlib.blake2b(str(path).encode(), digest_size=4).hexdigest()  # stable across processes
        mod_name = f"envfactory_user_{path.stem}_{digest}"
        with _IMPORTING:
            if mod_name in sys.modules:
                return sys.modules[mod_name]
            spec = importlib.util.spec_from_file_location(mod_name, path)
            assert spec and spec.loader
            module = importlib.util.module_from_spec(spec)
            sys.modules[mod_name] = module
            try:
                spec.loader.exec_module(module)
            except Exception as err:
                del sys.modules[mod_name]
                raise SpecError(f"importing failed: {type(err).__name__}: {err}", file=ref) from None
            return module
    try:
        return importlib.import_module(ref)
    except ImportError as err:
        raise SpecError(f"cannot import module: {err}", file=ref) from None


def from_callables(
    functions: Iterable[Callable[..., Any]], *, name: str = "python", file: str | None = None
) -> ToolSet:
    diag = Diagnostics(file=file)
    tools = tuple(_tool(f, f.__name__, diag, file) for f in functions)
    return ToolSet(name=name, tools=tools, warnings=tuple(diag.warnings))


def from_object(obj: Any, *, name: str | None = None, file: str | None = None) -> ToolSet:
    """Every public method of ``obj`` becomes a tool (bound to ``obj``)."""
    cls = type(obj)
    diag = Diagnostics(file=file)
    methods = _public_methods(cls)
    if not methods:
        raise SpecError(f"{cls.__name__} has no public methods to use as tools", file=file)
    tools = tuple(_tool(getattr(obj, m), m, diag, file) for m in methods)
    doc = inspect.getdoc(cls) or ""
    return ToolSet(
        name=name or _snake(cls.__name__),
        description=doc,
        tools=tools,
        warnings=tuple(diag.warnings),
    )


def _public_methods(cls: type) -> list[str]:
    return [
        n
        for n, member in inspect.getmembers(cls)
        if not n.startswith("_") and (inspect.isfunction(member) or inspect.ismethod(member))
    ]


def _tool(func: Callable[..., Any], name: str, diag: Diagnostics, file: str | None) -> ToolSpec:
    doc = docstring_parser.parse(inspect.getdoc(func) or "")
    param_docs = {p.arg_name: p.description for p in doc.params}
    try:
        hints = get_type_hints(func)
    except Exception:  # unresolvable forward references: fall back to no hints
        hints = {}
    fields: dict[str, Any] = {}
    for pname, param in inspect.signature(func).parameters.items():
        if pname in ("self", "cls") or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(pname, Any)
        if pname not in hints:
            diag.warn("no type hint; accepting any value", tool=name, field=pname)
        default = ... if param.default is param.empty else param.default
        fields[pname] = (annotation, default)
    model = create_model(f"{name}_args", __config__=ConfigDict(arbitrary_types_allowed=True), **fields)
    try:
        schema = inline_local_refs(model.model_json_schema())
    except Exception as err:
        raise SpecError(f"cannot build an input schema from the type hints: {err}", tool=name, file=file) from None
    schema.pop("title", None)
    for pname, prop in schema.get("properties", {}).items():
        prop.pop("title", None)
        if param_docs.get(pname):
            prop["description"] = param_docs[pname]
    description = "\n\n".join(x for x in (doc.short_description, doc.long_description) if x)
    qualname = getattr(func, "__qualname__", name)
    module = getattr(func, "__module__", "")
    return make_tool(
        name=name,
        description=description,
        input_schema=schema,
        output_schema=_output_schema(hints.get("return")),
        source=ToolSource(format="python", file=file, locator=qualname, python=f"{module}:{qualname}"),
        diag=diag,
    )


def _output_schema(annotation: Any) -> JSON | None:
    if annotation is None or annotation is type(None) or annotation is Any:
        return None
    try:
        schema = inline_local_refs(TypeAdapter(annotation).json_schema())
    except Exception:
        return None
    return schema


def _snake(name: str) -> str:
    out = "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")
    return out or "python"


def _is_windows_drive(target: str) -> bool:
    return len(target) > 2 and target[1] == ":" and target[2] in "\\/"

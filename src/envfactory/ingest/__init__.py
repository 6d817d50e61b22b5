"""Ingest tool descriptions of any supported format into a :class:`~envfactory.ir.ToolSet`.

:func:`load_toolset` picks the ingester: ``mcp+stdio:COMMAND`` starts a live MCP server,
``*.py`` (optionally ``file.py:Class``) or ``py:dotted.module[:Class]`` reads Python,
a directory is searched for its OpenAPI root, and YAML/JSON documents are recognised by shape
through :data:`DOCUMENT_FORMATS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envfactory.diagnostics import Diagnostics
from envfactory.errors import SpecError, UnsupportedFormatError
from envfactory.ingest.docs import SUFFIXES as DOC_SUFFIXES  # plain documentation, read by a model
from envfactory.ingest.files import read_document
from envfactory.ingest.functions import function_entries, load_functions
from envfactory.ingest.mcp import load_mcp_file, load_mcp_server, mcp_tools
from envfactory.ingest.openapi import is_openapi, load_openapi
from envfactory.ingest.python import from_callables, from_object, load_python_target
from envfactory.ir.tool import ToolSet
from envfactory.registry import Registry

MCP_PREFIX = "mcp+stdio:"
PY_PREFIX = "py:"
_ROOT_NAMES = ("openapi", "swagger", "api", "spec")


@dataclass(frozen=True)
class DocumentFormat:
    detect: Callable[[Any], bool]
    load: Callable[[Path, Diagnostics, Any], ToolSet]


DOCUMENT_FORMATS: Registry[DocumentFormat] = Registry("document format")
DOCUMENT_FORMATS.add("openapi", DocumentFormat(is_openapi, lambda p, d, doc: load_openapi(p, d, doc)))
DOCUMENT_FORMATS.add("mcp", DocumentFormat(lambda doc: mcp_tools(doc) is not None, load_mcp_file))
DOCUMENT_FORMATS.add("functions", DocumentFormat(lambda doc: function_entries(doc) is not None, load_functions))


@dataclass(frozen=True)
class Loaded:
    """A ToolSet plus, for Python objects, the live owner of its bound methods."""

    toolset: ToolSet
    owner: Any = None
    target: str | None = None  # how to import the owner again ("file.py:Class"), or the server ("mcp+stdio:CMD")
    server_env: tuple[tuple[str, str], ...] = ()  # the variables a server was started with


def load(
    source: str | Path,
    *,
    trust_code: bool = False,
    ref_roots: tuple[Path, ...] = (),
    reader: Any = None,
    server_env: dict[str, str] | None = None,
) -> Loaded:
    """Read any supported tool description; raise SpecError naming the file on failure.

    Reading a Python source imports (executes) it, so it needs ``trust_code=True``; a
    ``mcp+stdio:COMMAND`` source runs the command the caller wrote. ``$ref`` in OpenAPI reads
    files only inside the spec's folder and ``ref_roots``. Plain documentation (Markdown, HTML,
    text) is read by a language model, ``reader`` (an ``LLMClient``), and traced to its text.
    """
    text = str(source)
    if Path(text).suffix.lower() in DOC_SUFFIXES and Path(text).is_file():
        if reader is None:
            raise SpecError("plain documentation is read by a language model: pass --model local or openai:NAME",
                            file=text)  # fmt: skip
        from envfactory.ingest.docs import load_docs

        return Loaded(load_docs(Path(text), reader))
    if text.startswith(MCP_PREFIX):  # ``server_env``: variables the server starts with (``{tmp}``: a fresh folder)
        env = dict(server_env or {})
        from envfactory.real.mcp import McpTarget

        label = McpTarget.parse(text).label  # the program by its absolute path: it is started from anywhere
        return Loaded(load_mcp_server(text[len(MCP_PREFIX) :], env=env), target=label,
                      server_env=tuple(sorted(env.items())))  # fmt: skip
    if is_python_source(text) and not trust_code:
        raise SpecError(
            "reading tools from Python imports the file, which executes it; "
            "pass --trust-code (API: trust_code=True) only if you trust it",
            file=text,
        )
    if text.startswith(PY_PREFIX):
        target = text[len(PY_PREFIX) :]
        toolset, owner = load_python_target(target)
        return Loaded(toolset, owner, target if owner is not None else None)
    file_part, _, attr = text.partition(".py:")
    if text.endswith(".py") or attr:
        file_part = file_part if attr else text[:-3]
        toolset, owner = load_python_target(text)
        resolved = f"{Path(file_part + '.py').resolve()}"  # bound behaviours must import it from anywhere
        bound_target: str | None = f"{resolved}:{attr or type(owner).__name__}" if owner is not None else None
        return Loaded(toolset, owner, bound_target)
    path = Path(text)
    if path.is_dir():
        path = _find_root(path)
    diag = Diagnostics(file=str(path))
    doc = read_document(path, diag)
    if is_openapi(doc):
        return Loaded(load_openapi(path, diag, doc, ref_roots=ref_roots))
    for _, fmt in DOCUMENT_FORMATS.items():
        if fmt.detect(doc):
            return Loaded(fmt.load(path, diag, doc))
    known = ", ".join(DOCUMENT_FORMATS)
    raise UnsupportedFormatError(
        f"not a recognised tool description (tried: {known}, Python files, {MCP_PREFIX}COMMAND)",
        file=str(path),
    )


def is_python_source(text: str) -> bool:
    """Does ``load`` import this source as Python (``py:module``, ``file.py``, ``file.py:Class``)?"""
    return text.startswith(PY_PREFIX) or text.endswith(".py") or ".py:" in text


def load_toolset(source: str | Path, *, trust_code: bool = False) -> ToolSet:
    return load(source, trust_code=trust_code).toolset


def _find_root(directory: Path) -> Path:
    candidates = [
        p
        for p in sorted(directory.iterdir())
        if p.suffix.lower() in (".yaml", ".yml", ".json") and p.stem.lower() in _ROOT_NAMES
    ]
    if len(candidates) == 1:
        return candidates[0]
    names = ", ".join(f"{n}.yaml" for n in _ROOT_NAMES)
    raise SpecError(f"directory holds no single root document (looked for {names})", file=str(directory))


__all__ = [
    "DOCUMENT_FORMATS",
    "Loaded",
    "from_callables",
    "from_object",
    "is_python_source",
    "load",
    "load_toolset",
]

"""Reading YAML/JSON documents with errors that name the file and line.

YAML parsers keep the last of two duplicate keys silently; we keep it too (that is what
most tools do) but say so, because in the wild it usually hides a copy-paste mistake.

A document is untrusted input, so reading it is bounded: at most ``ENVFACTORY_MAX_SPEC_MB``
megabytes (default 25), nested at most :data:`MAX_DEPTH` levels, and a YAML document's aliases
may expand it to at most :data:`MAX_NODES` nodes (an "alias bomb" of a few hundred bytes
otherwise expands to billions). Each limit fails with one error that names it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

from envfactory.diagnostics import Diagnostics
from envfactory.errors import SpecError


class _DuplicateAwareLoader(yaml.SafeLoader):
    diag: Diagnostics | None = None


def _construct_mapping(loader: _DuplicateAwareLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out and loader.diag is not None:
            loader.diag.warn(f"duplicate key {key!r} at line {key_node.start_mark.line + 1}; the later value wins")
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_DuplicateAwareLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
# Keep timestamps as strings: JSON Schema and our state are JSON, not Python datetimes.
_DuplicateAwareLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


MAX_DEPTH = 128
MAX_NODES = 2_000_000
DEFAULT_MAX_MB = 25


def max_bytes() -> int:
    raw = os.environ.get("ENVFACTORY_MAX_SPEC_MB", "")
    try:
        return int(float(raw) * 1_000_000) if raw else DEFAULT_MAX_MB * 1_000_000
    except ValueError:
        return DEFAULT_MAX_MB * 1_000_000


def read_document(path: Path, diag: Diagnostics | None = None) -> Any:
    """Parse a YAML or JSON file; a syntax error becomes a SpecError with the line."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise SpecError("file not found", file=str(path)) from None
    except OSError as err:
        raise SpecError(f"cannot read: {err.strerror}", file=str(path)) from None
    if size > max_bytes():
        raise SpecError(
            f"the file is {size / 1e6:.1f} MB; the limit is {max_bytes() / 1e6:.0f} MB "
            "(split the spec, or raise ENVFACTORY_MAX_SPEC_MB)",
            file=str(path),
        )
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError("file not found", file=str(path)) from None
    except UnicodeDecodeError:
        raise SpecError("not a UTF-8 text file", file=str(path)) from None
    except IsADirectoryError:
        raise SpecError("is a directory, expected a file", file=str(path)) from None
    if path.suffix.lower() in (".json", ".jsonl"):
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as err:
            doc = _not_quite_json(text, err, path, diag)
        except RecursionError:
            raise SpecError(f"nested more than {MAX_DEPTH} levels deep", file=str(path)) from None
        except ValueError as err:  # integers of thousands of digits
            raise SpecError(f"invalid JSON: {err}"[:200], file=str(path)) from None
        check_depth(doc, str(path))
        return doc
    return _yaml(text, path, diag)


def _yaml(text: str, path: Path, diag: Diagnostics | None) -> Any:
    loader = _DuplicateAwareLoader(text)
    loader.diag = diag
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_graph(node, str(path))
        return loader.construct_document(node)
    except RecursionError:
        raise SpecError(f"nested more than {MAX_DEPTH} levels deep", file=str(path)) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise SpecError(f"invalid YAML{where}: {problem}", file=str(path)) from None
    finally:
        loader.dispose()


def _not_quite_json(text: str, err: json.JSONDecodeError, path: Path, diag: Diagnostics | None) -> Any:
    """JSON lines (one document per line), or YAML saved as ``.json``: read them, with a warning;
    anything else is the JSON error, with the line."""
    lines = [line for line in text.splitlines() if line.strip()]
    if err.msg == "Extra data" and len(lines) > 1:
        try:
            docs = [json.loads(line) for line in lines]
        except json.JSONDecodeError:
            pass
        else:
            if diag is not None:
                diag.warn(f"{len(docs)} JSON documents, one per line (JSON lines); read as a list")
            return docs
    try:
        doc = _yaml(text, path, diag)
    except SpecError:
        doc = None
    if isinstance(doc, (dict, list)):
        if diag is not None:
            diag.warn("not JSON but YAML; read as YAML")
        return doc
    raise SpecError(f"invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}", file=str(path)) from None


def check_depth(doc: Any, file: str) -> None:
    """Refuse documents nested deeper than :data:`MAX_DEPTH` (iteratively: no recursion limit)."""
    stack: list[tuple[Any, int]] = [(doc, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise SpecError(f"nested more than {MAX_DEPTH} levels deep", file=file)
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def _check_graph(root: yaml.Node, file: str) -> None:
    """Depth and expanded size of a composed YAML graph, before anything is constructed.

    Aliases make the graph a DAG; its expanded size is counted with memoization per node."""
    size: dict[int, int] = {}
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 0, False)]
    while stack:
        node, depth, children_done = stack.pop()
        if depth > MAX_DEPTH:
            raise SpecError(f"nested more than {MAX_DEPTH} levels deep", file=file)
        children = _children(node)
        if children_done:
            total = 1 + sum(size[id(c)] for c in children)
            if total > MAX_NODES:
                raise SpecError(
                    f"YAML aliases expand the document to more than {MAX_NODES:,} nodes (an alias bomb?)", file=file
                )
            size[id(node)] = total
            continue
        if id(node) in size:
            continue
        stack.append((node, depth, True))
        stack.extend((c, depth + 1, False) for c in children if id(c) not in size)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []

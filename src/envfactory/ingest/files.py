"""Reading YAML/JSON documents with errors that name the file and line.

YAML parsers keep the last of two duplicate keys silently; we keep it too (that is what
most tools do) but say so, because in the wild it usually hides a copy-paste mistake.
"""

from __future__ import annotations

import json
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


def read_document(path: Path, diag: Diagnostics | None = None) -> Any:
    """Parse a YAML or JSON file; a syntax error becomes a SpecError with the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError("file not found", file=str(path)) from None
    except UnicodeDecodeError:
        raise SpecError("not a UTF-8 text file", file=str(path)) from None
    except IsADirectoryError:
        raise SpecError("is a directory, expected a file", file=str(path)) from None
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            raise SpecError(
                f"invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}", file=str(path)
            ) from None
    loader = _DuplicateAwareLoader(text)
    loader.diag = diag
    try:
        return loader.get_single_data()
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or str(err)
        raise SpecError(f"invalid YAML{where}: {problem}", file=str(path)) from None
    finally:
        loader.dispose()

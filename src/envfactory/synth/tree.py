"""Path-addressed tool sets (file servers): a tree of directories and files, not tables.

``plan_tree`` recognizes a tool set where at least three tools take a ``path`` (or a
``source``/``destination`` pair) and speak of files and directories, and maps each tool to a tree
operation by its name: ``write_file`` writes, ``create_directory`` makes folders (recursively),
``read_file`` / ``read_text_file`` read, ``read_multiple_files`` reads several, ``list_directory``
lists, ``directory_tree`` nests, ``move_file`` moves, ``delete_*`` removes, ``get_file_info``
describes, ``search_files`` searches, ``edit_file`` replaces text, ``list_allowed_directories``
names the roots. The tree is one entity keyed by absolute path; ``seed_tree`` gives a seeded
environment a root folder with a few folders and files.
"""

from __future__ import annotations

import random
from typing import Any

from envfactory.ir.effect import Behaviour, TreeEffect, TreeOp
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import Entity
from envfactory.ir.tool import ToolSpec
from envfactory.synth.naming import tokens

JSON = dict[str, Any]
ENTITY = "node"
_FILEISH = {"file", "files", "directory", "directories", "dir", "folder", "folders", "path", "tree"}
_DIRISH = {"directory", "directories", "dir", "folder", "folders"}


def tree_entity() -> Entity:
    return Entity(
        name=ENTITY,
        key="path",
        key_prefix=ENTITY,
        fields={
            "path": {"type": "string"},
            "type": {"type": "string", "enum": ["directory", "file"]},
            "content": {"type": "string"},
        },
        required=("path", "type"),
    )


def _op(tool: ToolSpec) -> tuple[TreeOp, str | None, str | None, str | None] | None:
    """(op, path argument, second argument, paths argument) for a tool, by its name and arguments."""
    toks = set(tokens(tool.name))
    props = tool.properties
    strings = [a for a, s in props.items() if primary_type(s) == "string"]
    arrays = [a for a, s in props.items() if primary_type(s) == "array"]
    path = "path" if "path" in props else None
    if ("media" in toks or "image" in toks) and path is not None and {"read", "get", "open"} & toks:
        return "media", path, None, None  # the file as a base64 content block
    if "media" in toks or "image" in toks:
        return None  # binary content blocks: not text in a tree
    if "allowed" in toks or "roots" in toks:
        return "roots", None, None, None
    if {"move", "rename"} & toks and "source" in props and "destination" in props:
        return "move", "source", "destination", None
    if path is None and not ({"read"} & toks and arrays):
        return None
    if "read" in toks and ({"multiple", "files"} & toks) and arrays:
        return "read_many", None, None, arrays[0]
    if "tree" in toks:
        return "tree", path, None, None
    if "search" in toks or "find" in toks:
        pattern = next((a for a in strings if a != "path"), None)
        return "search", path, pattern, None
    if "edit" in toks:
        return "edit", path, next((a for a in arrays), None), None
    if {"info", "stat", "metadata"} & toks:
        return "info", path, None, None
    if "list" in toks and _DIRISH & toks:
        return "list", path, None, None
    if {"create", "make", "mkdir"} & toks and _DIRISH & toks:
        return "mkdir", path, None, None
    if {"write", "save", "put", "create"} & toks and "file" in toks:
        return "write", path, _content_arg(tool, strings), None
    if {"read", "get", "open", "cat"} & toks and "file" in toks:
        return "read", path, None, None
    if {"delete", "remove", "rm"} & toks:
        return "remove", path, None, None
    return None


_CONTENTISH = {"content", "contents", "text", "data", "body"}


def _content_arg(tool: ToolSpec, strings: list[str]) -> str | None:
    """What a write puts in the file: a text named as content, else the first text other than the
    path that the route does not carry (ClearBlade's ``{systemKey}`` names the system, not the content)."""
    others = [a for a in strings if a != "path"]
    routed = {a for a, where in tool.source.http.params.items() if where == "path"} if tool.source.http else set()
    return next((a for a in others if _CONTENTISH & set(tokens(a))), None) or next(
        (a for a in others if a not in routed), None
    )


def plan_tree(tools: tuple[ToolSpec, ...] | list[ToolSpec]) -> tuple[Entity | None, dict[str, Behaviour]]:
    pathish = [
        t for t in tools if ("path" in t.properties or "source" in t.properties) and _FILEISH & set(tokens(t.name))
    ]
    if len(pathish) < 3:
        return None, {}
    out: dict[str, Behaviour] = {}
    for tool in tools:
        found = _op(tool)
        if found is None:
            continue
        op, path_arg, to_arg, extra = found
        effect = TreeEffect(entity=ENTITY, op=op, path_arg=path_arg, to_arg=to_arg, extra_arg=extra)
        out[tool.name] = Behaviour(tool=tool.name, effect=effect, prior="confident",
                                   notes=(f"tree: {op} on path-addressed state",))  # fmt: skip
    return (tree_entity(), out) if out else (None, {})


def seed_tree(seed: int, root: str = "/workspace") -> list[JSON]:
    """A small seeded tree: the root, two folders, a few text files."""
    rng = random.Random(seed)
    rows = [{"path": root, "type": "directory", "content": ""}]
    for folder in ("docs", "notes"):
        rows.append({"path": f"{root}/{folder}", "type": "directory", "content": ""})
        for n in range(rng.randint(1, 3)):
            words = " ".join(rng.choice(("plan", "draft", "todo", "meeting", "budget", "idea")) for _ in range(6))
            rows.append({"path": f"{root}/{folder}/{folder[:-1]}-{n + 1}.txt", "type": "file", "content": words})
    return rows


def tree_rows(doc: Any, depth: int = 0) -> list[JSON] | None:
    """Rows of a tree written as nested JSON — ``{name: {"type": "directory", "contents": {...}}}``
    or ``{"type": "file", "content": "..."}`` (BFCL's file system scenarios) — found anywhere in
    ``doc``; None when it holds no such tree."""
    if not isinstance(doc, dict) or depth > 4:
        return None
    if doc and all(isinstance(v, dict) and v.get("type") in ("directory", "file") for v in doc.values()):
        rows: list[JSON] = []

        def walk(node: JSON, path: str) -> None:
            kind = "directory" if node.get("type") == "directory" else "file"
            rows.append(
                {"path": path, "type": kind, "content": str(node.get("content") or "") if kind == "file" else ""}
            )
            for name, child in (node.get("contents") or {}).items() if kind == "directory" else ():
                if isinstance(child, dict):
                    walk(child, f"{path.rstrip('/')}/{name}")

        for name, node in doc.items():
            walk(node, f"/{name}")
        return rows
    return next((found for v in doc.values() if (found := tree_rows(v, depth + 1)) is not None), None)


__all__ = ["ENTITY", "plan_tree", "seed_tree", "tree_entity", "tree_rows"]

"""Executors of path-addressed state: a tree of directories and files under root directories.

Rows of the tree entity are ``{path, type: "file" | "directory", content}``, keyed by absolute
path. A root is a directory whose parent is not in the tree. Answers are text (wrapped as
``{content: text}`` when the output schema is an object with one string member; a record as
declared, its required members placeholders, when it is an object of several), in the shapes
file servers commonly use: ``[DIR] name`` / ``[FILE] name`` listings, a JSON tree of
``{name, type, children}``, ``path:\\ncontent`` blocks for several files.
"""

from __future__ import annotations

import base64
import fnmatch
import json
import mimetypes
import posixpath
from typing import Any

from envfactory.ir.effect import TreeEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.tool import ToolSpec
from envfactory.runtime.behaviours import COMPILERS, CallContext, Executor
from envfactory.runtime.conform import compile_conformer
from envfactory.runtime.result import ToolError
from envfactory.runtime.store import Store

JSON = dict[str, Any]
DIR, FILE = "directory", "file"


class Tree:
    """The tree as one entity's rows in an episode's store."""

    def __init__(self, store: Store, entity: str) -> None:
        self.store, self.entity = store, entity

    def get(self, path: str) -> JSON | None:
        return self.store.get(self.entity, path)

    def rows(self) -> list[JSON]:
        return list(self.store.rows(self.entity))

    def roots(self) -> list[str]:
        paths = {r["path"] for r in self.rows()}
        return sorted(r["path"] for r in self.rows() if r.get("type") == DIR and parent(r["path"]) not in paths)

    def allowed(self, path: Any) -> str:
        if not isinstance(path, str) or not path:
            raise ToolError("invalid_arguments", f"{path!r} is not a path")
        roots = self.roots()
        path = normal(path)
        inside = any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)
        if not inside and roots and not path.startswith("/"):  # relative: from the first root, the current folder
            path = normal(f"{roots[0].rstrip('/')}/{path}")
            inside = True
        if not inside:
            raise ToolError("precondition_failed", f"access denied: {path} is outside the allowed directories")
        return path

    def existing(self, path: str, kind: str | None = None) -> JSON:
        row = self.get(path)
        if row is None:
            raise ToolError("not_found", f"no such file or directory: {path}")
        if kind == DIR and row.get("type") != DIR:
            raise ToolError("precondition_failed", f"not a directory: {path}")
        if kind == FILE and row.get("type") == DIR:
            raise ToolError("precondition_failed", f"illegal operation on a directory: {path}")
        return row

    def children(self, path: str) -> list[JSON]:
        return sorted((r for r in self.rows() if parent(r["path"]) == path and r["path"] != path),
                      key=lambda r: r["path"])  # fmt: skip

    def subtree(self, path: str) -> list[JSON]:
        prefix = path.rstrip("/") + "/"
        return [r for r in self.rows() if r["path"] == path or r["path"].startswith(prefix)]

    def put(self, path: str, kind: str, content: str = "") -> JSON:
        row = {"path": path, "type": kind, "content": content if kind == FILE else ""}
        self.store.put(self.entity, path, row)
        return row


def normal(path: str) -> str:
    return posixpath.normpath(path) if path != "/" else path


def parent(path: str) -> str:
    return posixpath.dirname(path.rstrip("/")) or "/"


def _name(path: str) -> str:
    return posixpath.basename(path.rstrip("/"))


def _wrap(tool: ToolSpec) -> Any:
    schema = tool.output_schema or {}
    props = schema.get("properties") or {}
    strings = [k for k, v in props.items() if isinstance(v, dict) and v.get("type") == "string"]
    if schema.get("type") == "object" and len(props) == 1 and strings:
        member = strings[0]
        return lambda text: {member: text}
    if schema.get("type") == "object" and not props:  # any object: the text as its content
        return lambda text: {"content": text}
    fit = compile_conformer(schema) if schema.get("type") == "object" else None
    if fit is not None:  # a record of several members (ClearBlade's ``{base_name, bucket_name, ...}``): as declared
        return lambda text: fit({})
    return lambda text: text


def _nested(tree: Tree, path: str) -> list[JSON]:
    out = []
    for child in tree.children(path):
        node: JSON = {"name": _name(child["path"]), "type": child["type"]}
        if child["type"] == DIR:
            node["children"] = _nested(tree, child["path"])
        out.append(node)
    return out


def _lines(text: str, args: JSON) -> str:
    lines = text.split("\n")
    head, tail = args.get("head"), args.get("tail")
    if isinstance(head, (int, float)) and head > 0:
        lines = lines[: int(head)]
    if isinstance(tail, (int, float)) and tail > 0:
        lines = lines[-int(tail) :]
    return "\n".join(lines)


def _write(tree: Tree, e: TreeEffect, args: JSON) -> str:
    path = tree.allowed(args.get(e.path_arg or "path"))
    tree.existing(parent(path), DIR)
    current = tree.get(path)
    if current is not None and current.get("type") == DIR:
        raise ToolError("precondition_failed", f"illegal operation on a directory: {path}")
    tree.put(path, FILE, str(args.get(e.to_arg or "content") or ""))
    return f"Successfully wrote to {args.get(e.path_arg or 'path')}"


def _mkdir(tree: Tree, e: TreeEffect, args: JSON) -> str:
    path = tree.allowed(args.get(e.path_arg or "path"))
    current = tree.get(path)
    if current is not None and current.get("type") != DIR:
        raise ToolError("conflict", f"file already exists: {path}")
    missing, walk = [], path
    while tree.get(walk) is None and walk != parent(walk):  # recursive, like mkdir -p; stops at a root
        missing.append(walk)
        walk = parent(walk)
    above = tree.get(walk)
    if above is None or above.get("type") != DIR:
        raise ToolError("precondition_failed", f"not a directory: {walk}")
    for folder in reversed(missing):
        tree.put(folder, DIR)
    return f"Successfully created directory {args.get(e.path_arg or 'path')}"


def _read(tree: Tree, e: TreeEffect, args: JSON) -> str:
    path = tree.allowed(args.get(e.path_arg or "path"))
    return _lines(str(tree.existing(path, FILE).get("content") or ""), args)


def _read_many(tree: Tree, e: TreeEffect, args: JSON) -> str:
    blocks = []
    for raw in args.get(e.extra_arg or "paths") or []:
        try:
            path = tree.allowed(raw)
            blocks.append(f"{raw}:\n{tree.existing(path, FILE).get('content') or ''}\n")  # labelled as asked
        except ToolError as err:
            blocks.append(f"{raw}: Error - {err.message}")
    return "\n---\n".join(blocks)


def _list(tree: Tree, e: TreeEffect, args: JSON) -> str:
    path = tree.allowed(args.get(e.path_arg or "path"))
    tree.existing(path, DIR)
    return "\n".join(f"[{'DIR' if r['type'] == DIR else 'FILE'}] {_name(r['path'])}" for r in tree.children(path))


def _tree(tree: Tree, e: TreeEffect, args: JSON) -> str:
    path = tree.allowed(args.get(e.path_arg or "path"))
    tree.existing(path, DIR)
    return json.dumps(_nested(tree, path), indent=2)


def _move(tree: Tree, e: TreeEffect, args: JSON) -> str:
    source = tree.allowed(args.get(e.path_arg or "source"))
    target = tree.allowed(args.get(e.to_arg or "destination"))
    tree.existing(source)
    if tree.get(target) is not None:
        raise ToolError("conflict", f"destination already exists: {target}")
    if target.startswith(source.rstrip("/") + "/"):
        raise ToolError("precondition_failed", f"cannot move {source} inside itself")
    tree.existing(parent(target), DIR)
    for row in tree.subtree(source):
        new = target + row["path"][len(source) :]
        tree.store.delete(tree.entity, row["path"])
        tree.put(new, row["type"], row.get("content") or "")
    return f"Successfully moved {args.get(e.path_arg or 'source')} to {args.get(e.to_arg or 'destination')}"


def _remove(tree: Tree, e: TreeEffect, args: JSON) -> str:
    path = tree.allowed(args.get(e.path_arg or "path"))
    tree.existing(path)
    if path in tree.roots():
        raise ToolError("precondition_failed", f"cannot remove an allowed directory: {path}")
    for row in tree.subtree(path):
        tree.store.delete(tree.entity, row["path"])
    return f"Successfully removed {path}"


def _info(tree: Tree, e: TreeEffect, args: JSON) -> str:
    path = tree.allowed(args.get(e.path_arg or "path"))
    row = tree.existing(path)
    size = len(str(row.get("content") or "").encode()) if row["type"] == FILE else 0
    return f"size: {size}\nisDirectory: {str(row['type'] == DIR).lower()}\nisFile: {str(row['type'] == FILE).lower()}"


def _search(tree: Tree, e: TreeEffect, args: JSON) -> str:
    path = tree.allowed(args.get(e.path_arg or "path"))
    tree.existing(path, DIR)
    pattern = str(args.get(e.to_arg or "pattern") or "")

    def matches(name: str) -> bool:
        return fnmatch.fnmatch(name, pattern) or pattern.lower() in name.lower()

    found = [r["path"] for r in tree.subtree(path) if r["path"] != path and matches(_name(r["path"]))]
    return "\n".join(sorted(found)) if found else "No matches found"


def _edit(tree: Tree, e: TreeEffect, args: JSON) -> str:
    path = tree.allowed(args.get(e.path_arg or "path"))
    text = str(tree.existing(path, FILE).get("content") or "")
    for edit in args.get(e.to_arg or "edits") or []:
        old, new = str(edit.get("oldText", "")), str(edit.get("newText", ""))
        if old not in text:
            raise ToolError("precondition_failed", f"could not find exact match for edit:\n{old}")
        text = text.replace(old, new, 1)
    if not args.get("dryRun"):
        tree.put(path, FILE, text)
    return f"Edited {path}"


def _media(tree: Tree, e: TreeEffect, args: JSON) -> JSON:
    """A file as one base64 content block (``read_media_file``): an image or audio file as such,
    anything else as an embedded resource."""
    path = tree.allowed(args.get(e.path_arg or "path"))
    data = base64.b64encode(str(tree.existing(path, FILE).get("content") or "").encode()).decode()
    mime = mimetypes.guess_type(path)[0] or "application/octet-stream"
    kind = mime.split("/", 1)[0]
    if kind in ("image", "audio"):
        return {"content": [{"type": kind, "data": data, "mimeType": mime}]}
    return {"content": [{"type": "resource", "resource": {"uri": f"file://{path}", "mimeType": mime, "blob": data}}]}


def _roots(tree: Tree, e: TreeEffect, args: JSON) -> str:
    return "Allowed directories:\n" + "\n".join(tree.roots())


OPS = {"write": _write, "mkdir": _mkdir, "read": _read, "read_many": _read_many, "list": _list, "tree": _tree,
       "move": _move, "remove": _remove, "info": _info, "search": _search, "edit": _edit, "roots": _roots,
       "media": _media}  # fmt: skip


@COMPILERS.register("tree")
def _compile(effect: TreeEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    op, wrap = OPS[effect.op], _wrap(tool)

    def run(ctx: CallContext, args: JSON) -> Any:
        out = op(Tree(ctx.store, effect.entity), effect, args)
        return wrap(out) if isinstance(out, str) else out

    return run


__all__ = ["DIR", "FILE", "OPS", "Tree"]

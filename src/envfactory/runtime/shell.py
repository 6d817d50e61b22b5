"""Executors of shell-style file tools: names relative to a current directory.

Tool sets such as BFCL's Gorilla file system speak like a shell — ``cd(folder)``, ``ls()``,
``touch(file_name)``, ``mv(source, destination)`` — rather than by absolute path. The files live in
the path-addressed tree of :mod:`envfactory.runtime.tree` (rows ``{path, type, content}``); the
current directory is the one row of a second entity (``{_id: "self", cwd}``), so it is state like
any other: snapshots, hashes and goals see it. Names resolve against the current directory
(``..`` and ``.`` included, never above the first root). Each op answers a plain value wrapped in
the tool's declared one-member output (``{"file_content": ...}``); missing things are
``not_found``, taken names ``conflict``, a directory where a file is needed (or the reverse)
``precondition_failed``.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from envfactory.ir.effect import ShellEffect
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import SINGLETON_KEY, SINGLETON_ROW
from envfactory.ir.tool import ToolSpec
from envfactory.registry import Registry
from envfactory.runtime.behaviours import COMPILERS, CallContext, Executor
from envfactory.runtime.result import ToolError
from envfactory.runtime.tree import DIR, FILE, Tree, parent

JSON = dict[str, Any]


class Shell:
    """A tree and its current directory, in an episode's store."""

    def __init__(self, ctx: CallContext, effect: ShellEffect) -> None:
        self.tree, self.effect = Tree(ctx.store, effect.entity), effect
        self.store, self.cwd_entity = ctx.store, effect.cwd_entity

    @property
    def cwd(self) -> str:
        row = self.store.get(self.cwd_entity, SINGLETON_ROW)
        if row is not None and isinstance(row.get("cwd"), str):
            return str(row["cwd"])
        roots = self.tree.roots()
        return roots[0] if roots else "/"

    def go(self, path: str) -> None:
        self.store.put(self.cwd_entity, SINGLETON_ROW, {SINGLETON_KEY: SINGLETON_ROW, "cwd": path})

    def resolve(self, name: Any) -> str:
        """``name`` against the current directory; refused when empty or above the first root."""
        if not isinstance(name, str) or not name.strip():
            raise ToolError("invalid_arguments", f"{name!r} is not a file or directory name")
        path = posixpath.normpath(posixpath.join(self.cwd, name.strip()))
        roots = self.tree.roots()
        if roots and not any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots):
            raise ToolError("precondition_failed", f"{name}: outside the file system's root")
        return path

    def file(self, name: Any) -> tuple[str, str]:
        path = self.resolve(name)
        row = self.tree.existing(path, FILE)
        return path, str(row.get("content") or "")

    def arg(self, args: JSON, which: str | None, default: Any = None) -> Any:
        return args.get(which, default) if which else default


Op = Callable[[Shell, JSON], Any]
OPS: Registry[Op] = Registry("shell op")


@OPS.register("pwd")
def _pwd(sh: Shell, args: JSON) -> Any:
    return sh.cwd


@OPS.register("ls")
def _ls(sh: Shell, args: JSON) -> Any:
    hidden = bool(sh.arg(args, sh.effect.extra_arg, False))
    names = [posixpath.basename(r["path"]) for r in sh.tree.children(sh.cwd)]
    return [n for n in names if hidden or not n.startswith(".")]


@OPS.register("cd")
def _cd(sh: Shell, args: JSON) -> Any:
    path = sh.resolve(sh.arg(args, sh.effect.name_arg))
    sh.tree.existing(path, DIR)
    sh.go(path)
    return path


def _new(kind: str) -> Op:
    def make(sh: Shell, args: JSON) -> Any:
        name = sh.arg(args, sh.effect.name_arg)
        path = sh.resolve(name)
        if sh.tree.get(path) is not None:
            raise ToolError("conflict", f"cannot create '{name}': File exists")
        sh.tree.existing(parent(path), DIR)
        sh.tree.put(path, kind)
        return None

    return make


OPS.add("mkdir", _new(DIR))
OPS.add("touch", _new(FILE))


@OPS.register("echo")
def _echo(sh: Shell, args: JSON) -> Any:
    content = str(sh.arg(args, sh.effect.to_arg, "") or "")
    name = sh.arg(args, sh.effect.name_arg)
    if not name:
        return content  # to the terminal
    path, _ = sh.file(name)
    sh.tree.put(path, FILE, content)
    return None


@OPS.register("cat")
def _cat(sh: Shell, args: JSON) -> Any:
    return sh.file(sh.arg(args, sh.effect.name_arg))[1]


@OPS.register("rm")
def _rm(sh: Shell, args: JSON) -> Any:
    name = sh.arg(args, sh.effect.name_arg)
    path = sh.resolve(name)
    sh.tree.existing(path)
    if path == sh.cwd or sh.cwd.startswith(path.rstrip("/") + "/") or path in sh.tree.roots():
        raise ToolError("precondition_failed", f"cannot remove '{name}': it holds the current directory")
    for row in sh.tree.subtree(path):
        sh.store.delete(sh.tree.entity, row["path"])
    return f"'{name}' removed"


@OPS.register("rmdir")
def _rmdir(sh: Shell, args: JSON) -> Any:
    name = sh.arg(args, sh.effect.name_arg)
    path = sh.resolve(name)
    sh.tree.existing(path, DIR)
    if sh.tree.children(path):
        raise ToolError("precondition_failed", f"cannot remove '{name}': Directory not empty")
    return _rm(sh, args)


def _place(sh: Shell, args: JSON, keep: bool) -> Any:
    """``mv``/``cp``: into ``destination`` when it is a folder, else to that name."""
    source, destination = sh.arg(args, sh.effect.name_arg), sh.arg(args, sh.effect.to_arg)
    src = sh.resolve(source)
    sh.tree.existing(src)
    dst = sh.resolve(destination)
    target = sh.tree.get(dst)
    if target is not None and target.get("type") == DIR:
        dst = posixpath.join(dst, posixpath.basename(src))
    if sh.tree.get(dst) is not None:
        raise ToolError("conflict", f"cannot place '{source}' at '{destination}': File exists")
    if dst.startswith(src.rstrip("/") + "/"):
        raise ToolError("precondition_failed", f"cannot move '{source}' inside itself")
    sh.tree.existing(parent(dst), DIR)
    for row in sh.tree.subtree(src):
        if not keep:
            sh.store.delete(sh.tree.entity, row["path"])
        sh.tree.put(dst + row["path"][len(src) :], row["type"], row.get("content") or "")
    return f"'{source}' {'copied' if keep else 'moved'} to '{destination}'"


OPS.add("mv", lambda sh, args: _place(sh, args, keep=False))
OPS.add("cp", lambda sh, args: _place(sh, args, keep=True))


@OPS.register("find")
def _find(sh: Shell, args: JSON) -> Any:
    start = sh.arg(args, sh.effect.name_arg) or "."
    root = sh.resolve(start)
    sh.tree.existing(root, DIR)
    needle = str(sh.arg(args, sh.effect.to_arg) or "")
    shown = start.rstrip("/") or "."
    return [shown + r["path"][len(root) :] for r in sorted(sh.tree.subtree(root), key=lambda r: r["path"])
            if r["path"] != root and needle in posixpath.basename(r["path"])]  # fmt: skip


@OPS.register("grep")
def _grep(sh: Shell, args: JSON) -> Any:
    pattern = str(sh.arg(args, sh.effect.to_arg, "") or "")
    return [line for line in sh.file(sh.arg(args, sh.effect.name_arg))[1].splitlines() if pattern in line]


@OPS.register("wc")
def _wc(sh: Shell, args: JSON) -> Any:
    mode = str(sh.arg(args, sh.effect.extra_arg, "l") or "l")
    counters: dict[str, tuple[str, Callable[[str], list[Any]]]] = {
        "l": ("lines", str.splitlines), "w": ("words", str.split), "c": ("characters", list)}  # fmt: skip
    if mode not in counters:
        raise ToolError("invalid_arguments", f"wc: invalid mode '{mode}'")
    text = sh.file(sh.arg(args, sh.effect.name_arg))[1]
    kind, split = counters[mode]
    return {"count": len(split(text)), "type": kind}


def _ends(last: bool) -> Op:
    def lines(sh: Shell, args: JSON) -> Any:
        n = sh.arg(args, sh.effect.extra_arg, 10)
        n = n if isinstance(n, int) and not isinstance(n, bool) and n > 0 else 10
        text = sh.file(sh.arg(args, sh.effect.name_arg))[1].splitlines()
        return "\n".join(text[-n:] if last else text[:n])

    return lines


OPS.add("tail", _ends(last=True))
OPS.add("head", _ends(last=False))
OPS.add("sort", lambda sh, args: "\n".join(sorted(sh.file(sh.arg(args, sh.effect.name_arg))[1].splitlines())))


@OPS.register("diff")
def _diff(sh: Shell, args: JSON) -> Any:
    a = sh.file(sh.arg(args, sh.effect.name_arg))[1].splitlines()
    b = sh.file(sh.arg(args, sh.effect.to_arg))[1].splitlines()
    return "\n".join(f"- {x}\n+ {y}" for x, y in zip(a, b, strict=False) if x != y)


@OPS.register("du")
def _du(sh: Shell, args: JSON) -> Any:
    size = sum(len(str(r.get("content") or "").encode()) for r in sh.tree.subtree(sh.cwd) if r["type"] == FILE)
    if not sh.arg(args, sh.effect.extra_arg, False):
        return f"{size} bytes"
    value, units = float(size), ["B", "KB", "MB", "GB"]
    while value >= 1024 and len(units) > 1:
        value, units = value / 1024, units[1:]
    return f"{value:.2f} {units[0]}"


def _answer(tool: ToolSpec) -> Callable[[Any], Any]:
    """Wrap a plain answer in the tool's declared one-member output (``{"matches": [...]}``)."""
    schema = tool.output_schema or {}
    props = schema.get("properties") or {}
    nothing: JSON | None = {} if schema.get("type") == "object" else None  # mkdir: its declared empty object
    if len(props) == 1:
        member = next(iter(props))
        return lambda value: nothing if value is None else value if isinstance(value, dict) else {member: value}
    return lambda value: nothing if value is None else value


@COMPILERS.register("shell")
def _compile(effect: ShellEffect, tool: ToolSpec, spec: EnvSpec) -> Executor:
    op, answer = OPS[effect.op], _answer(tool)

    def run(ctx: CallContext, args: JSON) -> Any:
        return answer(op(Shell(ctx, effect), args))

    return run


__all__ = ["OPS", "Shell"]

"""Shell-style file tool sets: ``cd``, ``ls``, ``pwd``, ``mkdir``, ``touch``, ``cat``, ``mv``...

``plan_shell`` recognizes a tool set that names a ``cd`` tool and at least four other shell
commands (BFCL's Gorilla file system, agent sandboxes), and maps each command to an op of
``runtime/shell.py`` by its name. Arguments are read by what they hold: the file or folder named
(the first required string that is not text or a pattern), the second name (``destination``,
``file_name2``) or the text (``content``, ``pattern``), and a flag or count (``a``, ``mode``,
``lines``, ``human_readable``). The files are the path-addressed tree (:mod:`synth.tree`), the
current directory a one-row entity; ``seed_tree`` gives a seeded environment its files.
"""

from __future__ import annotations

from typing import Any, get_args

from envfactory.ir.effect import Behaviour, ShellEffect, ShellOp
from envfactory.ir.jsonschema import primary_type
from envfactory.ir.state import Entity
from envfactory.ir.tool import ToolSpec
from envfactory.synth.naming import tokens

JSON = dict[str, Any]
CWD = "shell"
OPS: frozenset[str] = frozenset(get_args(ShellOp))
_TEXT = ("content", "text", "pattern", "name", "query", "string")


def cwd_entity() -> Entity:
    return Entity.singleton(CWD, {"cwd": {"type": "string"}})


def _op(tool: ToolSpec) -> str | None:
    first = next(iter(tokens(tool.name)), "")
    return tool.name if tool.name in OPS else first if first in OPS and len(tokens(tool.name)) == 1 else None


def _args(tool: ToolSpec, op: str) -> tuple[str | None, str | None, str | None]:
    """(the name argument, the second name or text, the flag or count) of a shell tool."""
    props = tool.properties
    strings = [a for a, s in props.items() if primary_type(s) in ("string", None)]
    others = [a for a in props if a not in strings]
    text = [a for a in strings if tokens(a)[-1:] and tokens(a)[-1] in _TEXT and tokens(a)[-1:] != ("name",)]
    if op == "find":  # find(path, name): where, and the name to look for
        where = next((a for a in strings if a not in text and "path" in tokens(a)), None)
        return where, next((a for a in strings if a != where), None), None
    names = [a for a in strings if a not in text]
    if op in ("echo", "grep"):
        return (names[0] if names else None), (text[0] if text else None), None
    flag = others[0] if others else next((a for a in strings if a in ("mode",)), None)
    names = [a for a in names if a != flag]
    return (names[0] if names else None), (names[1] if len(names) > 1 else None), flag


def plan_shell(tools: tuple[ToolSpec, ...] | list[ToolSpec]) -> tuple[list[Entity], dict[str, Behaviour]]:
    """Entities (the tree and the current directory) and behaviours of a shell-style tool set."""
    from envfactory.synth.tree import ENTITY, tree_entity

    ops = {t.name: op for t in tools if (op := _op(t)) is not None}
    if "cd" not in ops.values() or len(set(ops.values())) < 5:
        return [], {}
    out: dict[str, Behaviour] = {}
    for tool in tools:
        op = ops.get(tool.name)
        if op is None:
            continue
        name_arg, to_arg, extra_arg = _args(tool, op)
        effect = ShellEffect(entity=ENTITY, cwd_entity=CWD, op=op, name_arg=name_arg, to_arg=to_arg,  # type: ignore[arg-type]
                             extra_arg=extra_arg)  # fmt: skip
        out[tool.name] = Behaviour(tool=tool.name, effect=effect, prior="confident",
                                   notes=(f"shell: {op} relative to the current directory",))  # fmt: skip
    return [tree_entity(), cwd_entity()], out


__all__ = ["CWD", "cwd_entity", "plan_shell"]

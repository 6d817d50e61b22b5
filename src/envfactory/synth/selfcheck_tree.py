"""Self-checks of path-addressed tree operations: each does what it says on a seeded tree and gives
the refusal a file server gives (missing path, existing destination, a directory where a file is)."""

from __future__ import annotations

from typing import Any

from envfactory.ir.effect import TreeEffect
from envfactory.runtime.tree import DIR, FILE
from envfactory.synth.probe import PROBES, Probe

JSON = dict[str, Any]


@PROBES.register("tree")
def _probe_tree(p: Probe) -> None:
    e = p.effect(TreeEffect)
    rows = p.rows(e.entity)
    roots = sorted(r["path"] for r in rows if r["type"] == DIR and r["path"].rsplit("/", 1)[0] not in
                   {x["path"] for x in rows})  # fmt: skip
    files = [r for r in rows if r["type"] == FILE]
    if not roots:
        p.note("tree operation works", None, "no root folder in the state")
        return
    root, tool = roots[0], p.behaviour.tool
    missing = f"{root}/no-such-thing"
    store = p.episode.store

    named = {a for a in (e.path_arg, e.to_arg, e.extra_arg) if a}
    # the tool's other required arguments (ClearBlade's ``systemKey``, ``deploymentName``): as sampled
    scope = {a: v for a, v in p.args().items() if a in p.spec.tools[tool].required and a not in named}

    def call(args: JSON) -> Any:
        return p.call(tool, {**scope, **args})

    if e.op == "write":
        made = call({e.path_arg or "path": f"{root}/probe.txt", e.to_arg or "content": "hello"})
        row = store.get(e.entity, f"{root}/probe.txt") or {}
        p.note("write creates the file", made.ok and row.get("content") == "hello", made.content[:200])
        orphan = call({e.path_arg or "path": f"{missing}/x.txt", e.to_arg or "content": "x"})
        p.note("writing under a missing folder is not_found", orphan.error == "not_found", orphan.content[:200])
    elif e.op == "mkdir":
        made = call({e.path_arg or "path": f"{root}/a/b"})
        p.note("mkdir creates the folders", made.ok and store.get(e.entity, f"{root}/a/b") is not None, made.content)
        p.note("mkdir twice is fine", call({e.path_arg or "path": f"{root}/a/b"}).ok)
        if files:
            clash = call({e.path_arg or "path": files[0]["path"]})
            p.note("mkdir over a file is a conflict", clash.error == "conflict", clash.content[:200])
    elif e.op == "move":
        if not files:
            p.note("move moves", None, "no file to move")
            return
        source, destination = files[0]["path"], f"{root}/moved.txt"
        moved = call({e.path_arg or "source": source, e.to_arg or "destination": destination})
        ok = moved.ok and store.get(e.entity, source) is None and store.get(e.entity, destination) is not None
        p.note("move moves", ok, moved.content[:200])
        again = call({e.path_arg or "source": source, e.to_arg or "destination": destination})
        p.note("moving what is gone is not_found", again.error == "not_found", again.content[:200])
    elif e.op in ("read", "edit", "remove", "info", "media") and files:
        target = files[0]
        args: JSON = {e.path_arg or "path": target["path"]}
        if e.op == "edit":
            old = str(target.get("content") or "")[:5] or "x"
            args[e.to_arg or "edits"] = [{"oldText": old, "newText": "EDITED"}]
        result = call(args)
        p.note(f"{e.op} of an existing file succeeds", result.ok, result.content[:200])
        if e.op == "read":
            p.note("read returns the content", target["content"] in result.content, result.content[:200])
        if e.op == "media":
            folder = call({**args, e.path_arg or "path": root})
            p.note("media of a folder is refused", folder.error == "precondition_failed", folder.content[:200])
        absent = call({**args, e.path_arg or "path": missing})
        p.note(f"{e.op} of a missing path is not_found", absent.error == "not_found", absent.content[:200])
    else:  # list, tree, search, read_many, roots: answer on the root, refuse a missing folder
        args = {e.path_arg: root} if e.path_arg else {}
        if e.op == "search":
            args[e.to_arg or "pattern"] = "txt"
        if e.op == "read_many":
            args = {e.extra_arg or "paths": [f["path"] for f in files[:2]] or [missing]}
        result = call(args)
        p.note(f"{e.op} answers", result.ok, result.content[:200])
        if e.path_arg:
            absent = call({**args, e.path_arg: missing})
            p.note(f"{e.op} of a missing folder is not_found", absent.error == "not_found", absent.content[:200])
    outside = call({e.path_arg: "/elsewhere/x"}) if e.path_arg and e.op not in ("move",) else None
    if outside is not None and e.op not in ("read_many", "roots"):
        p.note("paths outside the roots are refused", outside.error in ("precondition_failed", "invalid_arguments"),
               outside.content[:200])  # fmt: skip


__all__: list[str] = []

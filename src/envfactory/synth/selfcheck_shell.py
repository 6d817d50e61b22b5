"""Self-checks of shell-style file tools: each op, from a folder that holds files, does what it
says and gives a shell's refusal (a missing name, a taken name, a folder that is not empty)."""

from __future__ import annotations

import posixpath
from typing import Any

from envfactory.ir.effect import ShellEffect
from envfactory.ir.state import SINGLETON_KEY, SINGLETON_ROW
from envfactory.runtime.tree import DIR, FILE
from envfactory.synth.probe import PROBES, Probe

JSON = dict[str, Any]


@PROBES.register("shell")
def _probe_shell(p: Probe) -> None:
    e = p.effect(ShellEffect)
    rows = p.rows(e.entity)
    files = sorted((r for r in rows if r["type"] == FILE), key=lambda r: r["path"])
    if not files:
        p.note("shell command works", None, "no file in the state")
        return
    store, tool = p.episode.store, p.behaviour.tool
    here = posixpath.dirname(files[0]["path"])
    store.put(e.cwd_entity, SINGLETON_ROW, {SINGLETON_KEY: SINGLETON_ROW, "cwd": here})  # stand where the files are
    names = sorted(posixpath.basename(r["path"]) for r in rows if posixpath.dirname(r["path"]) == here)
    name = posixpath.basename(files[0]["path"])

    def call(**named: Any) -> Any:
        args = {getattr(e, k): v for k, v in named.items() if getattr(e, k)}
        return p.call(tool, args)

    def exists(child: str) -> bool:
        return store.get(e.entity, posixpath.join(here, child)) is not None

    if e.op == "pwd":
        got = call()
        p.note("pwd names the current folder", got.ok and here in got.content, got.content[:200])
    elif e.op == "ls":
        got = call()
        p.note("ls lists the current folder", got.ok and all(n in got.content for n in names), got.content[:200])
    elif e.op == "cd":
        up = call(name_arg="..")
        now = (store.get(e.cwd_entity, SINGLETON_ROW) or {}).get("cwd")
        p.note("cd .. goes up", up.ok and now == posixpath.dirname(here), up.content)
        missing = call(name_arg="no-such-folder")
        p.note("cd into a missing folder is not_found", missing.error == "not_found", missing.content[:200])
    elif e.op in ("mkdir", "touch"):
        made = call(name_arg="probe")
        kind = DIR if e.op == "mkdir" else FILE
        row = store.get(e.entity, posixpath.join(here, "probe")) or {}
        p.note(f"{e.op} creates it", made.ok and row.get("type") == kind, made.content[:200])
        again = call(name_arg="probe")
        p.note(f"{e.op} of a taken name is a conflict", again.error == "conflict", again.content[:200])
    elif e.op == "echo":
        wrote = call(name_arg=name, to_arg="probe text")
        row = store.get(e.entity, files[0]["path"]) or {}
        p.note("echo writes the file", wrote.ok and row.get("content") == "probe text", wrote.content[:200])
    elif e.op in ("rm", "mv", "cp"):
        done = call(name_arg=name, to_arg="probe-copy")
        placed = exists("probe-copy") == (e.op != "rm")
        p.note(f"{e.op} does it", done.ok and placed and exists(name) == (e.op == "cp"), done.content[:200])
        gone = call(name_arg="no-such-file", to_arg="other")
        p.note(f"{e.op} of a missing name is not_found", gone.error == "not_found", gone.content[:200])
    elif e.op == "rmdir":
        full = call(name_arg=".")
        p.note("rmdir of a folder with files is refused", not full.ok, full.content[:200])
    elif e.op == "find":
        got = call(name_arg=".", to_arg=name[:3])
        p.note("find finds by name", got.ok and name in got.content, got.content[:200])
    else:  # cat, grep, wc, tail, head, sort, diff, du: read a file that exists, refuse one that does not
        got = call(name_arg=name, to_arg=name if e.op == "diff" else "a")
        p.note(f"{e.op} reads the file", got.ok, got.content[:200])
        if e.op != "du":
            missing = call(name_arg="no-such-file", to_arg="no-such-file" if e.op == "diff" else "a")
            p.note(f"{e.op} of a missing file is not_found", missing.error == "not_found", missing.content[:200])

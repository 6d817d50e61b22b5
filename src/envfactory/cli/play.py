"""`envfactory play`: a person calls tools by hand and watches the state change."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

from envfactory.cli.common import console, escape, friendly_errors, short_json, table
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode

HELP = """commands:
  tools                       list the tools and their arguments
  TOOL {"arg": value, ...}    call a tool with JSON arguments
  TOOL arg=value ...          the same, values read as JSON when they parse (else text)
  state [ENTITY]              show the current rows
  diff                        rows changed in this episode
  undo                        take back the last call that changed the state
  hash                        the state hash
  reset                       start over
  quit                        leave"""


@friendly_errors
def run(env_dir: Path, seed: int, trust_code: bool = False) -> None:
    env = Environment.load(env_dir, trust_code=trust_code)
    episode = env.episode(max_steps=10_000)
    episode.reset(seed=seed)
    history: list[dict[str, Any]] = []
    console.print(f"[bold]{env.name}[/]: {len(env.tools)} tools. Type `help` for commands.")
    while True:
        try:
            line = input("> ").strip()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        if not line:
            continue
        word, _, rest = line.partition(" ")
        if word in ("quit", "exit", "q"):
            return
        if word == "help":
            console.print(escape(HELP))
        elif word == "tools":
            _tools(env)
        elif word == "state":
            _state(episode, rest.strip() or None)
        elif word == "diff":
            _diff(episode)
        elif word == "hash":
            console.print(episode.state_hash())
        elif word == "reset":
            episode.reset(seed=seed)
            history.clear()
            console.print("reset to the initial state")
        elif word == "undo":
            if history:
                episode.restore(history.pop())
                console.print("undone")
            else:
                console.print("nothing to undo")
        elif word in env.tools:
            args = parse_args(rest)
            if isinstance(args, str):
                console.print(f"[red]{escape(args)}[/]")
                continue
            before, before_hash = episode.snapshot(), episode.state_hash()
            result = episode.call_tool(word, args)
            if episode.state_hash() != before_hash:
                history.append(before)
            colour = "green" if result.ok else "red"
            console.print(f"[{colour}]{escape(json.dumps(result.data, indent=2, ensure_ascii=False))}[/]")
        else:
            console.print(f"[red]unknown command or tool {escape(word)!r}[/]; type `help`")


def parse_args(text: str) -> dict[str, Any] | str:
    """``{"a": 1}`` or ``a=1 b=text``; returns a message string when it cannot be read."""
    text = text.strip()
    if not text:
        return {}
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as err:
            return f"not valid JSON: {err.msg}"
        return value if isinstance(value, dict) else "arguments must be a JSON object"
    out: dict[str, Any] = {}
    try:
        parts = shlex.split(text)
    except ValueError as err:
        return f"cannot read arguments: {err}"
    for part in parts:
        key, sep, raw = part.partition("=")
        if not sep:
            return f"expected arg=value, got {part!r}"
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def _tools(env: Environment) -> None:
    rows = []
    for tool in env.spec.tools.tools:
        props = tool.properties
        args = ", ".join(f"{a}{'*' if a in tool.required else ''}" for a in props) or "-"
        rows.append([tool.name, args, (tool.description.splitlines() or [""])[0][:70]])
    console.print(table("Tools (* = required)", ["tool", "arguments", "description"], rows))


def _state(episode: Episode, entity: str | None) -> None:
    state = episode.state()
    names = [entity] if entity else list(state)
    for name in names:
        if name not in state:
            console.print(f"[red]unknown entity {escape(name)!r}[/]; entities: {', '.join(state)}")
            return
        rows = state[name]
        cols = list(rows[0]) if rows else ["(empty)"]
        console.print(
            table(
                f"{name} ({len(rows)} rows)",
                cols,
                [[short_json(r.get(c), 30) for c in cols] for r in rows],
            )
        )


def _diff(episode: Episode) -> None:
    changes = episode.store.changes()
    if not changes:
        console.print("no changes")
        return
    for entity, rows in changes.items():
        for key, row in rows.items():
            console.print(f"{entity} {key!r}: " + ("[red]deleted[/]" if row is None else escape(short_json(row, 200))))

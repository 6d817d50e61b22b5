"""Tasks for collection-shaped and path-addressed tools, where the walk-based factory has no key
arguments to follow: batch creates, list-field edits, batch deletes, and file-tree operations.

Each scenario reads the seeded state, picks real rows (an existing folder, a named entity), makes
a gold plan of one or two calls and says it the way a person would ("Add 'urgent' to the labels
of the task 'Ship it'."). The factory gold-runs it on a fresh episode and keeps the final state as
the goal; the usual self-test (gold passes; no-op, read-only, stopping early and every mutation of
the plan fail) then decides whether the task is kept.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from envfactory.ir.effect import (
    ComputeEffect,
    CreateManyEffect,
    DeleteManyEffect,
    EditListEffect,
    ListEffect,
    ReadEffect,
    ShellEffect,
    SingletonEffect,
    TreeEffect,
    changes_state,
)
from envfactory.ir.env import EnvSpec
from envfactory.ir.state import SINGLETON_ROW
from envfactory.ir.task import Call, Goal, Origin, Task
from envfactory.registry import Registry
from envfactory.runtime.batch import item_schema, items_given
from envfactory.runtime.environment import Environment
from envfactory.runtime.facts import states_fact
from envfactory.runtime.store import Store
from envfactory.seeding import derive_seed
from envfactory.synth.naming import plural
from envfactory.synth.session import ENTITY as SESSION
from envfactory.tasks.errors import Rejected
from envfactory.tasks.render import show, words
from envfactory.values import ValueMaker

JSON = dict[str, Any]
Scenario = tuple[list[Call], str]
Builder = Callable[["Context", str, Any], Scenario | None]
SCENARIOS: Registry[Builder] = Registry("direct task scenario")
_WORDS = ("budget", "launch", "review", "roadmap", "invoice", "summary", "backlog", "retro", "offsite", "hiring")


class Context:
    def __init__(self, spec: EnvSpec, store: Store, rng: random.Random, maker: ValueMaker) -> None:
        self.spec, self.store, self.rng, self.maker = spec, store, rng, maker

    def rows(self, entity: str) -> list[JSON]:
        return list(self.store.rows(entity))

    def word(self) -> str:
        return f"{self.rng.choice(_WORDS)}-{self.rng.randint(2, 99)}"


def direct_tools(spec: EnvSpec) -> list[str]:
    """Tools direct tasks exercise (signing in or out is how, never what, a task asks)."""
    return [b.tool for b in spec.behaviours if b.effect.kind in SCENARIOS and changes_state(b.effect)
            and getattr(b.effect, "entity", None) != SESSION]  # fmt: skip


Question = tuple[list[Call], str, str]  # the gold calls, the instruction, the fact asked for
LOOKUPS: Registry[Callable[[Context, str, Any], Question | None]] = Registry("look-up question")


def lookup_tools(spec: EnvSpec) -> list[str]:
    """Reads by key, and lists narrowed by required filters (NYT's ``/{section}``): what a
    read-only API can still be asked about when walks cannot use it."""
    return [b.tool for b in spec.behaviours if b.effect.kind in LOOKUPS and _askable(spec, b.tool, b.effect)]


def _askable(spec: EnvSpec, tool: str, effect: Any) -> bool:
    if isinstance(effect, (ReadEffect, ComputeEffect)):
        return True
    narrowing = {f.arg for f in effect.filters if f.field and f.op == "eq"}
    required = spec.tools[tool].required
    return bool(required) and all(a in narrowing for a in required)


@LOOKUPS.register("read")
def _lookup(ctx: Context, tool: str, e: ReadEffect) -> Question | None:
    """``What is the title of the comic 614?``: one read, one fact in the answer."""
    entity = ctx.spec.state_schema[e.entity]
    rows = ctx.rows(e.entity)
    if not rows or not e.key_arg:
        return None
    row = ctx.rng.choice(rows)
    fields = [f for f, v in row.items() if f != entity.key and isinstance(v, (str, int, float)) and not
              isinstance(v, bool) and str(v).strip() and len(str(v)) <= 60]  # fmt: skip
    if not fields:
        return None
    field = ctx.rng.choice(sorted(fields))
    key = row[entity.key]
    said = f"What is the {words(field)} of the {words(entity.name)} {show(key)}? Tell me."
    return [Call(tool=tool, args={e.key_arg: key})], said, str(row[field])


def _plain(value: Any) -> bool:
    """A short scalar a person would say in a question."""
    return isinstance(value, (str, int, float)) and not isinstance(value, bool) and 0 < len(str(value)) <= 60


@LOOKUPS.register("list")
def _narrowed_lookup(ctx: Context, tool: str, e: ListEffect) -> Question | None:
    """``Among the articles whose section is 'arts', what is the byline of the one titled 'X'?``"""
    fields = {f.arg: f.field for f in e.filters if f.field and f.op == "eq"}
    rows = ctx.rows(e.entity)
    if not rows:
        return None
    row = ctx.rng.choice(rows)
    args = {a: row.get(fields[a]) for a in ctx.spec.tools[tool].required}
    if any(v is None or isinstance(v, (dict, list)) for v in args.values()):
        return None
    peers = [r for r in rows if all(r.get(fields[a]) == v for a, v in args.items())]
    key = ctx.spec.state_schema[e.entity].key
    scalar = sorted(f for f, v in row.items() if f != key and f not in fields.values() and _plain(v))
    unique = [f for f in scalar if isinstance(row[f], str) and sum(r.get(f) == row[f] for r in peers) == 1]
    if not unique or len(scalar) < 2:
        return None
    by = ctx.rng.choice(unique)
    asked = ctx.rng.choice([f for f in scalar if f != by])
    scope = " and ".join(f"whose {words(fields[a])} is {show(v)}" for a, v in args.items())
    said = (f"Among the {words(plural(e.entity))} {scope}, what is the {words(asked)} of the one whose {words(by)} is "
            f"{show(row[by])}? Tell me.")  # fmt: skip
    return [Call(tool=tool, args=args)], said, str(row[asked])


@SCENARIOS.register("create_many")
def _create_many(ctx: Context, tool: str, e: CreateManyEffect) -> Scenario | None:
    entity = ctx.spec.state_schema[e.entity]
    item = ctx.maker.value(item_schema(e, ctx.spec.tools[tool], ctx.spec), e.items_arg, entity.name)
    if not isinstance(item, dict):
        return None
    key_field = next((a for a, f in e.fields.items() if f == entity.key), None)
    if key_field is not None:
        item[key_field] = f"{ctx.word().replace('-', ' ').title()}"
    details = ", ".join(
        f"{words(k)} {show(v)}" for k, v in item.items() if k != key_field and v not in ([], {}, "", None)
    )
    name = f" {show(item[key_field])}" if key_field else ""
    return [Call(tool=tool, args={e.items_arg: items_given(e, [item])})], f"Add a {words(entity.name)}{name}" + (
        f" with {details}." if details else ".")  # fmt: skip


@SCENARIOS.register("edit_list")
def _edit_list(ctx: Context, tool: str, e: EditListEffect) -> Scenario | None:
    entity = ctx.spec.state_schema[e.entity]
    rows = [r for r in ctx.rows(e.entity) if e.op == "add" or r.get(e.field)]
    if not rows:
        return None
    row = ctx.rng.choice(rows)
    key = row[entity.key]
    value = ctx.word() if e.op == "add" else ctx.rng.choice(row[e.field])
    call = Call(tool=tool, args=e.arguments(key, [value]))
    verb = f"Add {show(value)} to" if e.op == "add" else f"Remove {show(value)} from"
    return [call], f"{verb} the {words(e.field)} of the {words(entity.name)} {show(key)}."


@SCENARIOS.register("delete_many")
def _delete_many(ctx: Context, tool: str, e: DeleteManyEffect) -> Scenario | None:
    entity = ctx.spec.state_schema[e.entity]
    rows = ctx.rows(e.entity)
    if not rows:
        return None
    row = ctx.rng.choice(rows)
    if e.by == "key":
        return [Call(tool=tool, args={e.items_arg: [row[entity.key]]})], (
            f"Delete the {words(entity.name)} {show(row[entity.key])}.")  # fmt: skip
    item = {a: row.get(f) for a, f in e.fields.items()}
    described = ", ".join(f"{words(a)} {show(v)}" for a, v in item.items())
    return [Call(tool=tool, args={e.items_arg: [item]})], f"Remove the {words(entity.name)} with {described}."


@SCENARIOS.register("singleton")
def _singleton(ctx: Context, tool: str, e: SingletonEffect) -> Scenario | None:
    row = ctx.store.get(e.entity, SINGLETON_ROW) or {}
    schemas = ctx.spec.tools[tool].properties
    listed = {a: f for a, f in (*e.adds.items(), *e.takes.items()) if isinstance(row.get(f), list)}
    if listed:
        return _list_edit(ctx, tool, e, row, listed)
    choices = [a for a in e.args if schemas.get(a, {}).get("enum") or schemas.get(a, {}).get("type") == "boolean"]
    if not choices:
        return None
    arg = ctx.rng.choice(choices)
    schema = schemas[arg]
    options = [v for v in (schema.get("enum") or [True, False]) if v != row.get(e.args[arg])]
    if not options:
        return None
    value = ctx.rng.choice(options)
    where = f"the {words(arg)} in my {words(e.entity)}"
    said = f"turn {'on' if value else 'off'} {where}" if isinstance(value, bool) else f"set {where} to {show(value)}"
    return [Call(tool=tool, args={arg: value})], f"Please {said}."


def _list_edit(ctx: Context, tool: str, e: SingletonEffect, row: JSON, listed: dict[str, str]) -> Scenario | None:
    """``Please remove 'NVDA' from my watchlist.`` (a value it holds), or ``Please add 'AAPL' to my
    watchlist.`` (a key of the entity the list refers to, not yet there)."""
    arg, field = next(iter(listed.items()))
    held = row[field]
    as_list = ctx.spec.tools[tool].properties.get(arg, {}).get("type") == "array"
    if arg in e.takes:
        if not held:
            return None
        value = ctx.rng.choice(held)
        said = f"Please remove {show(value)} from my {words(field)}."
    else:
        target = ctx.spec.state_schema[e.entity].refs.get(field, "")  # what the list holds keys of
        key = ctx.spec.state_schema[target].key if target in ctx.spec.state_schema else ""
        options = [r[key] for r in ctx.rows(target) if r[key] not in held] if key else []
        if not options:
            return None
        value = ctx.rng.choice(options)
        said = f"Please add {show(value)} to my {words(field)}."
    return [Call(tool=tool, args={arg: [value] if as_list else value})], said


@SCENARIOS.register("tree")
def _tree(ctx: Context, tool: str, e: TreeEffect) -> Scenario | None:
    rows = ctx.rows(e.entity)
    folders = [r["path"] for r in rows if r.get("type") == "directory"]
    files = [r for r in rows if r.get("type") == "file"]
    if not folders:
        return None
    folder = ctx.rng.choice(folders)
    if e.op == "write":
        name, text = f"{ctx.word()}.txt", " ".join(ctx.rng.choice(_WORDS) for _ in range(5))
        args = {e.path_arg or "path": f"{folder}/{name}", e.to_arg or "content": text}
        return [Call(tool=tool, args=args)], f"Create a file {name} in {folder} that says '{text}'."
    if e.op == "mkdir":
        name = ctx.word()
        return [Call(tool=tool, args={e.path_arg or "path": f"{folder}/{name}"})], (
            f"Make a new folder {name} inside {folder}.")  # fmt: skip
    if not files:
        return None
    file = ctx.rng.choice(files)
    path, base = file["path"], file["path"].rsplit("/", 1)[-1]
    if e.op == "move":
        targets = [f for f in folders if f != path.rsplit("/", 1)[0]]
        if not targets:
            return None
        target = ctx.rng.choice(targets)
        args = {e.path_arg or "source": path, e.to_arg or "destination": f"{target}/{base}"}
        return [Call(tool=tool, args=args)], f"Move the file {path} into the folder {target}."
    if e.op == "remove":
        return [Call(tool=tool, args={e.path_arg or "path": path})], f"Delete the file {path}."
    if e.op == "edit":
        words_in = str(file.get("content") or "").split()
        if not words_in:
            return None
        old, new = ctx.rng.choice(words_in), ctx.rng.choice(_WORDS)
        if old == new:
            return None
        edit: JSON = {e.path_arg or "path": path, e.to_arg or "edits": [{"oldText": old, "newText": new}]}
        return [Call(tool=tool, args=edit)], f"In {path}, replace the first '{old}' with '{new}'."
    return None


@SCENARIOS.register("shell")
def _shell(ctx: Context, tool: str, e: ShellEffect) -> Scenario | None:
    """``In the folder 'docs', rename 'doc-1.txt' to 'budget-12.txt'.``: ``cd`` there one level at a
    time (from the current folder), then the command."""
    cd = next((b.tool for b in ctx.spec.behaviours if isinstance(b.effect, ShellEffect) and b.effect.op == "cd"), None)
    state = ctx.store.get(e.cwd_entity, SINGLETON_ROW) or {}
    here = str(state.get("cwd") or "")
    rows = ctx.rows(e.entity)
    folders = [r["path"] for r in rows if r.get("type") == "directory" and r["path"].startswith(here + "/")]
    if cd is None or not folders:
        return None
    folder = ctx.rng.choice(folders)
    steps = [Call(tool=cd, args={_arg(ctx, cd): part}) for part in folder[len(here) + 1 :].split("/")]
    where = folder.rsplit("/", 1)[-1]
    if e.op == "cd":
        return steps, f"Go into the folder '{where}'."
    files = [
        r["path"].rsplit("/", 1)[-1] for r in rows if r.get("type") == "file" and r["path"].rsplit("/", 1)[0] == folder
    ]
    new = f"{ctx.word()}.txt"
    if e.op in ("mkdir", "touch") and e.name_arg:
        made = new if e.op == "touch" else new[:-4]
        what = "an empty file" if e.op == "touch" else "a folder"
        return [*steps, Call(tool=tool, args={e.name_arg: made})], f"In the folder '{where}', create {what} '{made}'."
    if not files or not e.name_arg:
        return None
    name = ctx.rng.choice(files)
    if e.op == "echo" and e.to_arg:
        text = " ".join(ctx.rng.choice(_WORDS) for _ in range(4))
        return [*steps, Call(tool=tool, args={e.to_arg: text, e.name_arg: name})], (
            f"Replace what '{name}' in the folder '{where}' says with '{text}'.")  # fmt: skip
    if e.op == "rm":
        return [*steps, Call(tool=tool, args={e.name_arg: name})], f"Delete '{name}' from the folder '{where}'."
    if e.op in ("mv", "cp") and e.to_arg:
        verb = "rename" if e.op == "mv" else "make a copy of"
        joint = "to" if e.op == "mv" else "named"
        return [*steps, Call(tool=tool, args={e.name_arg: name, e.to_arg: new})], (
            f"In the folder '{where}', {verb} '{name}' {joint} '{new}'.")  # fmt: skip
    return None


def _arg(ctx: Context, tool: str) -> str:
    effect = ctx.spec.behaviour(tool).effect
    return getattr(effect, "name_arg", None) or next(iter(ctx.spec.tools[tool].properties), "folder")


class DirectTasks:
    """``task(seed, attempt)`` like the walk-based factory, for the tools :func:`direct_tools` names."""

    def __init__(self, env: Environment, *, lookups: bool = False) -> None:
        """``lookups``: ask look-up questions with the read tools (for APIs with nothing else to ask)."""
        self.env, self.spec = env, env.spec
        self.lookups = lookups
        self.tools = lookup_tools(env.spec) if lookups else direct_tools(env.spec)
        self.maker = ValueMaker(0, env.spec.config.clock_start, brief=True)

    def task(self, seed: int, attempt: int) -> Task:
        rng = random.Random(derive_seed(seed, "direct", attempt))
        self.maker.reseed(derive_seed(seed, "direct-values", attempt))
        episode = self.env.episode(max_steps=100)
        ctx = Context(self.spec, episode.store, rng, self.maker)
        tool = rng.choice(self.tools)
        effect = self.spec.behaviour(tool).effect
        answer: tuple[str, ...] = ()
        if self.lookups:
            found = LOOKUPS[effect.kind](ctx, tool, effect)
            scenario = None if found is None else (found[0], found[1])
            answer = () if found is None else (found[2],)
        else:
            scenario = SCENARIOS[effect.kind](ctx, tool, effect)
        if scenario is None:
            raise Rejected(f"no rows to ask about with {tool}")
        calls, instruction = scenario
        for call in calls:
            result = episode.call_tool(call.tool, call.args)
            if not result.ok:
                raise Rejected(f"the gold call fails: {result.content[:80]}")
            if answer and not states_fact(result.content, answer[0]):
                raise Rejected("the read does not show the fact asked for")
        final = episode.state_hash()
        if final == self.env.base.hash and not answer:
            raise Rejected("the gold plan leaves the state unchanged")
        rows = {e: {str(k): r for k, r in changed.items()} for e, changed in episode.store.changes().items()}
        return Task(env=self.spec.name, id=f"{self.spec.name}-{seed}-{attempt}", seed=attempt, instruction=instruction,
                    gold=tuple(calls), goal=Goal(state_hash=final, rows=rows, answer=answer),
                    max_steps=2 * len(calls) + 6,
                    difficulty=float(len(calls)), level=len(calls),
                    origin=Origin(generator="direct/1", seed=seed, attempt=attempt))  # fmt: skip


__all__ = ["LOOKUPS", "SCENARIOS", "DirectTasks", "direct_tools", "lookup_tools"]

"""Hostile inputs, seeded: what a careless or adversarial agent sends, and tampered snapshots.

Shared by the regression tests and ``bench/hostile.py``; every generator is a pure function of
an explicit ``random.Random``.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

JSON = dict[str, Any]


def _deep(n: int) -> Any:
    value: Any = 1
    for _ in range(n):
        value = {"a": value} if n % 2 else [value]
    return value


# Values that JSON cannot carry canonically, or that stress a parser or validator.
HOSTILE_VALUES: tuple[Callable[[random.Random], Any], ...] = (
    lambda r: 10 ** r.randint(19, 30),
    lambda r: -(10 ** r.randint(19, 30)),
    lambda r: 10**5000,
    lambda r: float("nan"),
    lambda r: float("inf"),
    lambda r: -float("inf"),
    lambda r: 3.0,
    lambda r: r.random() * 1e308,
    lambda r: "\ud800",
    lambda r: "ok\udfffok",
    lambda r: "x" * r.choice([0, 1, 10_001, 200_000]),
    lambda r: {1: "int key"},
    lambda r: {None: 1},
    lambda r: {(1, 2): 1},
    lambda r: {"a": {2.5: 1}},
    lambda r: (1, 2),
    lambda r: {1, 2},
    lambda r: b"bytes",
    lambda r: object(),
    lambda r: _deep(r.choice([70, 500, 3000])),
    lambda r: [None] * 50,
    lambda r: True,
    lambda r: -1,
    lambda r: "",
    lambda r: "'; DROP TABLE users; --",
    lambda r: "../../etc/passwd",
    lambda r: "\x00\x01\x02",
    lambda r: "🙂" * 10,
)

HOSTILE_TEXTS: tuple[Callable[[random.Random], str], ...] = (
    lambda r: "{" * 5000,
    lambda r: "[" * 100_000 + "]" * 100_000,
    lambda r: '{"a": ' + "1" * 5000 + "}",
    lambda r: '{"a": NaN}',
    lambda r: '{"a": Infinity}',
    lambda r: '{"a": "\\ud800"}',
    lambda r: '{"a": 1e400}',
    lambda r: "null",
    lambda r: "[]",
    lambda r: '"a string"',
    lambda r: "not json",
    lambda r: "",
    lambda r: " " * 1000,
    lambda r: '{"a": 1, "a": 2}',
    lambda r: "\ufeff{}",
    lambda r: '{"__proto__": {}}',
)


def hostile_value(rng: random.Random) -> Any:
    return rng.choice(HOSTILE_VALUES)(rng)


def hostile_arguments(rng: random.Random, valid: JSON) -> Any:
    """Arguments for a call: a valid set with one value spoiled, a hostile object or a hostile text."""
    roll = rng.random()
    if roll < 0.45 and valid:
        args = dict(valid)
        key = rng.choice(list(args))
        args[key] = hostile_value(rng)
        return args
    if roll < 0.6:
        return {rng.choice(["a", "id", "", "\ud800", "x" * 300]): hostile_value(rng)}
    if roll < 0.75:
        return hostile_value(rng)
    if roll < 0.9:
        return rng.choice(HOSTILE_TEXTS)(rng)
    return valid


def hostile_name(rng: random.Random, names: list[str]) -> Any:
    roll = rng.random()
    if roll < 0.8:
        return rng.choice(names)
    return rng.choice([None, 5, 10**5000, "", "x" * 10_000, "\ud800", ["a"], {"a": 1}, rng.choice(names) + " "])


def hostile_action(rng: random.Random, names: list[str], valid: JSON) -> Any:
    """A Gymnasium action: JSON text (mostly), or not even text."""
    name = hostile_name(rng, names)
    args = hostile_arguments(rng, valid)
    shapes: list[Callable[[], Any]] = [
        lambda: {"name": name, "arguments": args},
        lambda: {"role": "assistant", "tool_calls": [{"id": 1, "function": {"name": name, "arguments": args}}]},
        lambda: {"tool_calls": hostile_value(rng)},
        lambda: {"tool_calls": [hostile_value(rng)]},
        lambda: {"content": hostile_value(rng)},
        lambda: {"content": "done", "tool_calls": None},
        lambda: hostile_value(rng),
    ]
    action = rng.choice(shapes)()
    roll = rng.random()
    if roll < 0.1:
        return rng.choice(HOSTILE_TEXTS)(rng)
    if roll < 0.15:
        return action  # not even a string
    try:
        return json.dumps(action, default=type)
    except (TypeError, ValueError, RecursionError):  # a huge integer or a deep structure
        return '{"name": ' + "9" * 5000 + "}"


# -- tampered snapshots -------------------------------------------------------------------------
def _set(path: tuple[Any, ...], value: Any) -> Callable[[JSON], None]:
    def apply(snap: JSON) -> None:
        node = snap
        for part in path[:-1]:
            node = node[part]
        node[path[-1]] = value

    return apply


def _drop(key: str) -> Callable[[JSON], None]:
    return lambda snap: snap.pop(key, None)


def snapshot_tampers(entity: str, key: Any) -> list[tuple[str, Callable[[JSON], None]]]:
    """Named edits of a snapshot of an episode that changed row ``key`` of ``entity``."""
    tampers: list[tuple[str, Callable[[JSON], None]]] = [
        ("steps text", _set(("steps",), "abc")),
        ("steps negative", _set(("steps",), -1000)),
        ("steps float", _set(("steps",), 1.5)),
        ("steps null", _set(("steps",), None)),
        ("seed text", _set(("seed",), "x")),
        ("terminated text", _set(("terminated",), "yes")),
        ("replies not a list", _set(("replies",), "hello")),
        ("replies numbers", _set(("replies",), [1, 2])),
        ("task garbage", _set(("task",), {"nope": 1})),
        ("task text", _set(("task",), "task")),
        ("log not a list", _set(("log",), {"a": 1})),
        ("log short entries", _set(("log",), [["a"]])),
        ("log bad error code", _set(("log",), [["get", {}, "{}", "exploded"]])),
        ("store missing", _drop("store")),
        ("store text", _set(("store",), "store")),
        ("base missing", lambda s: s["store"].pop("base")),
        ("base other", _set(("store", "base"), "0" * 32)),
        ("env other", _set(("env",), "other")),
        ("env missing", _drop("env")),
        ("overlay unknown entity", _set(("store", "overlay"), {"no_such_entity": [["k", {}]]})),
        ("overlay not a dict", _set(("store", "overlay"), [1, 2])),
        ("overlay row text", _set(("store", "overlay"), {entity: [[key, "row"]]})),
        ("overlay pair short", _set(("store", "overlay"), {entity: [[key]]})),
        ("overlay key object", _set(("store", "overlay"), {entity: [[{"k": 1}, {}]]})),
        ("overlay key float", _set(("store", "overlay"), {entity: [[1.5, {}]]})),
        ("overlay NaN", _set(("store", "overlay"), {entity: [[key, {"x": float("nan")}]]})),
        ("counters text", _set(("store", "counters"), {entity: "many"})),
        ("counters negative", _set(("store", "counters"), {entity: -5})),
        ("counters unknown entity", _set(("store", "counters"), {"ghost": 3})),
        ("counters not a dict", _set(("store", "counters"), [1])),
        # a member left out restores something else silently (the initial rows, an empty transcript)
        ("overlay missing", lambda s: s["store"].pop("overlay")),
        ("counters missing", lambda s: s["store"].pop("counters")),
        ("replies missing", _drop("replies")),
        ("log missing", _drop("log")),
        ("task missing", _drop("task")),
        ("steps missing", _drop("steps")),
        ("snapshot is a list", lambda s: s.clear()),
        ("all values null", lambda s: s.update({k: None for k in list(s)})),
    ]
    return tampers


def tampered(snap: JSON, tamper: Callable[[JSON], None]) -> Any:
    out = copy.deepcopy(snap)
    tamper(out)
    return out


# -- malformed specs ----------------------------------------------------------------------------
MUTANT_KEYS = (
    "type", "required", "description", "properties", "items", "enum", "minimum", "maximum", "pattern",
    "format", "default", "$ref", "allOf", "anyOf", "oneOf", "name", "in", "parameters", "responses",
    "paths", "operationId", "schema", "content", "additionalProperties", "inputSchema", "tools",
    "function", "input_schema", "nullable", "maxLength", "title", "summary", "tags", "const",
    "info", "components", "securitySchemes", "definitions", "requestBody",
)  # fmt: skip
MUTANT_VALUES: tuple[Any, ...] = (
    [], {}, [{}], 5, -1, 2.5, "x", None, True, "^(a+)+$", [None], {"a": 1}, "#/nope", [[]], "",
    ["string", "integer"], [1, "a"], {"type": []}, "../../../etc/passwd", "http://example.com/x.yaml",
)  # fmt: skip


def _nodes(doc: Any) -> list[Any]:
    """Every dict and list inside ``doc`` (iteratively)."""
    out, stack = [], [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            out.append(node)
            stack.extend(node.values() if isinstance(node, dict) else node)
    return out


def mutate_spec(doc: Any, rng: random.Random) -> Any:
    """A copy of a parsed spec with one structural edit: a keyword set to a value of the wrong
    shape, a node emptied, or a list element replaced."""
    out = copy.deepcopy(doc)
    node = rng.choice(_nodes(out))
    roll = rng.random()
    if isinstance(node, dict):
        if roll < 0.7 or not node:
            node[rng.choice(MUTANT_KEYS)] = copy.deepcopy(rng.choice(MUTANT_VALUES))
        elif roll < 0.85:
            node.pop(rng.choice(list(node)))
        else:
            node[rng.choice(list(node))] = copy.deepcopy(rng.choice(MUTANT_VALUES))
    elif node:
        node[rng.randrange(len(node))] = copy.deepcopy(rng.choice(MUTANT_VALUES))
    else:
        node.append(copy.deepcopy(rng.choice(MUTANT_VALUES)))
    return out


def write_hostile_specs(folder: Path) -> dict[str, Path]:
    def openapi(schema: Any) -> dict[str, Any]:
        response = {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}
        return {
            "openapi": "3.0.0",
            "info": {"title": "hostile", "version": "1"},
            "paths": {"/things": {"get": {"operationId": "listThings", "responses": response}}},
        }

    """Hostile spec files in ``folder``, by case name: an alias bomb, 3,000-deep nesting, a
    self-referencing schema, ``$ref`` out of the folder (four ways) and a file over the size limit."""
    cases: dict[str, Path] = {}
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 12)]
    (folder / "bomb.yaml").write_text("\n".join(lines) + "\nopenapi: 3.0.0\n")
    cases["YAML alias bomb"] = folder / "bomb.yaml"
    text = json.dumps(openapi("DEEP"))
    (folder / "deep.json").write_text(text.replace('"DEEP"', _deep_text(3000)))
    cases["3,000-deep nesting"] = folder / "deep.json"
    node = {"$ref": "#/components/schemas/Node"}
    recursive = openapi({"type": "array", "items": node})
    props = {"id": {"type": "string"}, "children": {"type": "array", "items": node}, "parent": node}
    recursive["components"] = {"schemas": {"Node": {"type": "object", "properties": props}}}
    (folder / "recursive.json").write_text(json.dumps(recursive))
    cases["self-referencing schema"] = folder / "recursive.json"
    for label, ref in (
        ("$ref to an absolute path", "/etc/hostname"),
        ("$ref climbing out with ../", "../../../../../../etc/hostname"),
        ("$ref with file://", "file:///etc/hostname"),
        ("$ref to an http URL", "http://127.0.0.1:9/etc/hostname"),
    ):
        path = folder / f"ref{len(cases)}.json"
        path.write_text(json.dumps(openapi({"$ref": ref})))
        cases[label] = path
    big = folder / "big.yaml"
    with big.open("w") as out:
        out.write("openapi: 3.0.0\ninfo: {title: big, version: '1'}\npaths: {}\nx-filler:\n")
        chunk = "".join(f"  - {'x' * 90}\n" for _ in range(10_000))
        for _ in range(30):
            out.write(chunk)
    cases["a 28 MB spec"] = big
    return cases


def _deep_text(depth: int) -> str:
    return '{"type":"object","properties":{"a":' * depth + '{"type":"string"}' + "}}" * depth


__all__ = [
    "HOSTILE_TEXTS",
    "HOSTILE_VALUES",
    "hostile_action",
    "hostile_arguments",
    "hostile_name",
    "hostile_value",
    "mutate_spec",
    "snapshot_tampers",
    "tampered",
    "write_hostile_specs",
]

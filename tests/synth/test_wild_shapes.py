"""Shapes found in public descriptions (the measured corpus): each reduced to a few lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check
from envfactory.tasks.agents import gold, noop, success_rate
from envfactory.tasks.generate import generate_tasks

JSON = dict[str, Any]


def _spec(tmp_path: Path, paths: JSON, schemas: JSON | None = None, **extra: Any) -> Path:
    doc = {"openapi": "3.0.0", "info": {"title": "wild", "version": "1"}, "paths": paths,
           "components": {"schemas": schemas or {}}, **extra}  # fmt: skip
    path = tmp_path / "wild.json"
    path.write_text(json.dumps(doc))
    return path


def _ok(schema: JSON, desc: str = "ok") -> JSON:
    return {"200": {"description": desc, "content": {"application/json": {"schema": schema}}}}


def _param(name: str, schema: JSON, where: str = "path") -> JSON:
    return {"name": name, "in": where, "required": where == "path", "schema": schema}


COMIC = {"type": "object", "properties": {"num": {"type": "integer"}, "title": {"type": "string"},
                                          "year": {"type": "string"}}}  # fmt: skip


def test_a_read_only_api_without_lists_gets_look_up_tasks(tmp_path: Path) -> None:
    path = _spec(tmp_path, {
        "/{comicId}/info.0.json": {"get": {"operationId": "get_comic",
                                           "parameters": [_param("comicId", {"type": "number"})],
                                           "responses": _ok(COMIC)}},
    })  # fmt: skip
    spec = synthesize(path)
    comic = spec.state_schema["comic"]
    assert comic.key_type == "integer"  # a number id parameter: integer keys
    env = Environment(spec)
    assert self_check(spec, env=env).passed
    tasks, _ = generate_tasks(env, 5, seed=0)
    assert len(tasks) == 5 and all(t.goal.answer and t.instruction.startswith("What is the") for t in tasks)
    episode = env.episode(max_steps=50)
    assert success_rate(episode, tasks, gold) == 1.0 and success_rate(episode, tasks, noop) == 0.0


def test_list_tools_declaring_one_record_answer_with_the_first_match(tmp_path: Path) -> None:
    order = {"type": "object", "properties": {"id": {"type": "integer"}, "symbol": {"type": "string"}}}
    functions = [  # a published function list (BFCL's trading bot) declares one order for a filtered read
        {"name": "list_orders", "description": "List all orders.", "parameters": {"type": "dict", "properties": {}},
         "response": {"type": "array", "items": order}},
        {"name": "get_order_details", "description": "Get the details of an order by its stock symbol.",
         "parameters": {"type": "dict", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"]},
         "response": order},
    ]  # fmt: skip
    path = tmp_path / "orders.jsonl"
    path.write_text("\n".join(json.dumps(f) for f in functions))
    spec = synthesize(path)
    assert spec.behaviour("get_order_details").effect.kind == "list"
    episode = Environment(spec).episode()
    episode.reset(seed=0)
    row = list(episode.store.rows("order"))[3]
    got = episode.call_tool("get_order_details", {"symbol": row["symbol"]})
    assert got.ok and isinstance(got.data, dict) and got.data["symbol"] == row["symbol"]
    missing = episode.call_tool("get_order_details", {"symbol": "no such symbol"})
    assert missing.error == "not_found"


def test_records_beside_other_lists_and_contradicting_enums(tmp_path: Path) -> None:
    item = {"type": "object", "properties": {
        "id": {"type": "string"}, "name": {"type": "string"},
        "levels": {"type": "array", "enum": ["open", "company"], "items": {"type": "string"}},
        "profile": {"type": "object", "enum": ["personal", "business"]}}}  # fmt: skip
    envelope = {"type": "object", "properties": {
        "total_count": {"type": "integer"}, "entries": {"type": "array", "items": item},
        "order": {"type": "array", "items": {"type": "object", "properties": {"by": {"type": "string"}}}}}}  # fmt: skip
    path = _spec(tmp_path, {
        "/folders": {"get": {"operationId": "list_folders", "responses": _ok(envelope)}},
        "/folders/{folder_id}": {"get": {"operationId": "get_folder",
                                         "parameters": [_param("folder_id", {"type": "string"})],
                                         "responses": _ok(item)}},
    }, **{"x-topics": [{"content": {"$ref": "./docs/missing.md"}}]})  # fmt: skip
    spec = synthesize(path)  # the x- extension's dangling $ref is documentation, not a tool
    folder = spec.state_schema["folder"]
    assert folder.fields["levels"]["items"]["enum"] == ["open", "company"] and "enum" not in folder.fields["levels"]
    assert folder.fields["profile"]["type"] == "string"
    env = Environment(spec)
    assert self_check(spec, env=env).passed
    episode = env.episode()
    episode.reset(seed=0)
    listed = episode.call_tool("list_folders", {}).data
    assert set(listed) == {"entries", "total_count"} and listed["total_count"] == len(listed["entries"])

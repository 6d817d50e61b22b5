"""Patch updates: an `updates` / `changes` object applied field by field."""

from __future__ import annotations

import json
from pathlib import Path

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

TOOLS = [
    {"name": "create_task", "description": "Create a task.", "parameters": {"type": "object", "properties": {
        "title": {"type": "string"}, "status": {"type": "string", "enum": ["todo", "done"]},
        "priority": {"type": "integer", "minimum": 1, "maximum": 5}}, "required": ["title"]}},
    {"name": "get_task", "description": "Get a task.", "parameters": {"type": "object", "properties": {
        "task_id": {"type": "string"}}, "required": ["task_id"]}},
    {"name": "update_task", "description": "Change a task.", "parameters": {"type": "object", "properties": {
        "task_id": {"type": "string"}, "updates": {"type": "object", "properties": {
            "title": {"type": "string"}, "status": {"type": "string", "enum": ["todo", "done"]},
            "priority": {"type": "integer", "minimum": 1, "maximum": 5}}}}, "required": ["task_id", "updates"]}},
]  # fmt: skip


def test_an_updates_object_is_applied_field_by_field(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(TOOLS))
    spec = synthesize(path)
    update = spec.behaviour("update_task")
    assert update.effect.kind == "update" and update.effect.patch_arg == "updates"  # type: ignore[union-attr]
    assert update.prior == "confident" and self_check(spec).passed
    ep = Environment(spec).episode()
    made = ep.call_tool("create_task", {"title": "Ship it", "status": "todo", "priority": 2}).data
    changed = ep.call_tool("update_task", {"task_id": made["id"], "updates": {"status": "done", "priority": 4}})
    assert changed.ok and changed.data == {**made, "status": "done", "priority": 4}
    assert ep.call_tool("get_task", {"task_id": made["id"]}).data["status"] == "done"
    refused = ep.call_tool("update_task", {"task_id": made["id"], "updates": {"priority": 9}})
    assert refused.error == "invalid_arguments"  # the patch object's own schema still validates its members

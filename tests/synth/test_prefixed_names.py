"""A tool set whose names share a prefix (a server's name: ``chat_``, ``whatsapp_``) reads each tool's verb
after it (issue #25: ``chat_remove_group_participants`` was planned as an add)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import FIXTURES

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.intents import name_verb

PEOPLE = {"type": "array", "items": {"type": "string"}}
GROUP = {"title": "Group", "type": "object",
         "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "participants": PEOPLE}}  # fmt: skip


def _function(name: str, description: str, props: dict[str, Any], required: list[str], **extra: Any) -> Any:
    parameters = {"type": "object", "properties": props, "required": required}
    function = {"name": name, "description": description, "parameters": parameters, **extra}
    return {"type": "function", "function": function}


def _groups(tmp_path: Path, prefix: str) -> Environment:
    tools = [
        _function(
            f"{prefix}create_group",
            "Create a group.",
            {"name": {"type": "string"}, "participants": PEOPLE},
            ["name", "participants"],
        ),
        _function(
            f"{prefix}get_group", "Get a group.", {"group_id": {"type": "string"}}, ["group_id"], output_schema=GROUP
        ),
        _function(
            f"{prefix}remove_group_participants",
            "Remove people from a group.",
            {"group_id": {"type": "string"}, "participants": PEOPLE},
            ["group_id", "participants"],
        ),
    ]
    path = tmp_path / "groups.json"
    path.write_text(json.dumps({"name": "groups", "tools": tools}))
    return Environment(synthesize(path, state="empty"))


@pytest.mark.parametrize("prefix", ["", "chat_", "whatsapp_", "acme_"])
def test_a_remove_after_a_prefix_removes(tmp_path: Path, prefix: str) -> None:
    env = _groups(tmp_path, prefix)
    effect = env.spec.behaviour(f"{prefix}remove_group_participants").effect
    assert effect.kind == "edit_list" and effect.op == "remove"
    ep = env.episode()
    made = ep.call_tool(f"{prefix}create_group", {"name": "Friday", "participants": ["ann", "bob"]})
    assert made.ok, made.content
    key = next(iter(ep.store.rows("group")))["id"]
    assert ep.call_tool(f"{prefix}remove_group_participants", {"group_id": key, "participants": ["ann", "zoe"]}).ok
    assert ep.store.get("group", key)["participants"] == ["bob"]


def test_batch_tools_read_the_same_under_a_shared_prefix(tmp_path: Path) -> None:
    tools = json.loads((FIXTURES / "board_tools.json").read_text())
    plain = {b.tool: b.effect for b in synthesize(FIXTURES / "board_tools.json").behaviours}
    for tool in tools["tools"] if isinstance(tools, dict) else tools:
        tool["name"] = f"kanban_{tool['name']}"
    path = tmp_path / "kanban_tools.json"
    path.write_text(json.dumps(tools))
    prefixed = {b.tool: b.effect for b in synthesize(path).behaviours}
    assert {name.removeprefix("kanban_"): effect for name, effect in prefixed.items()} == plain


def test_the_verb_is_the_first_verb_word() -> None:
    assert name_verb("chat_remove_group_participants") == ("remove", ("group", "participants"))
    assert name_verb("whatsapp_send_message") == ("send", ("message",))
    assert name_verb("mention") == ("mention", ())  # an unknown verb stays the first word
    assert name_verb("notify_price_change") == ("notify", ("price", "change"))

"""Tool names that open with the server's name, and writes a fallback must refuse (``mcp-server-git``'s shape)."""

from __future__ import annotations

import json
from pathlib import Path

from envfactory.ir.tool import ToolSpec
from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.intents import namespace

REPO = {"type": "object", "properties": {"repo_path": {"type": "string"}}, "required": ["repo_path"]}


def _tool(name: str, description: str, read_only: bool | None = None, props: dict | None = None) -> dict:
    schema = {**REPO, "properties": {**REPO["properties"], **(props or {})}}
    tool = {"name": name, "description": description, "inputSchema": schema}
    if read_only is not None:
        tool["annotations"] = {"readOnlyHint": read_only}
    return tool


GIT = [
    _tool("git_status", "Shows the working tree status", True),
    _tool("git_commit", "Records changes to the repository", False, {"message": {"type": "string"}}),
    _tool("git_add", "Adds file contents to the staging area", False,
          {"files": {"type": "array", "items": {"type": "string"}}}),
    _tool("git_create_branch", "Creates a new branch from an optional base branch", False,
          {"branch_name": {"type": "string"}}),
    _tool("git_log", "Shows the commit logs", True),
]  # fmt: skip


def _specs(tools: list[dict]) -> list[ToolSpec]:
    return [ToolSpec(name=t["name"], description=t["description"], input_schema=t["inputSchema"]) for t in tools]


def test_a_word_every_name_opens_with_and_few_descriptions_say_is_the_servers_name() -> None:
    assert namespace(_specs(GIT)) == "git"
    orders = [_tool(f"order_{verb}", f"{verb.title()} an order.") for verb in ("create", "get", "cancel")]
    assert namespace(_specs(orders)) is None  # the orders themselves: every description names one
    assert namespace(_specs(GIT[:2])) is None  # two tools share too little to tell


def test_the_servers_name_is_no_thing_and_an_annotated_write_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "git.json"
    path.write_text(json.dumps({"name": "git", "tools": GIT}))
    spec = synthesize(path, state="empty")
    assert "git" not in spec.state_schema.names  # ``git_add`` no longer "creates a git"
    assert spec.behaviour("git_create_branch").effect.kind == "create"
    episode = Environment(spec).episode()
    before = episode.state_hash()
    for tool, args in (("git_add", {"files": ["a.txt"]}), ("git_commit", {"message": "first"})):
        effect = spec.behaviour(tool).effect
        assert effect.kind == "fallback" and effect.writes, (tool, effect)  # readOnlyHint: false says it writes
        result = episode.call_tool(tool, {"repo_path": "/repo", **args})
        assert not result.ok and result.error == "unsupported", result  # not a success it did not perform
    assert episode.state_hash() == before
    assert episode.call_tool("git_status", {"repo_path": "/repo"}).ok  # a read it cannot model still answers

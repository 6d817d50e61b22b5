"""An argument whose name leads with ``new`` gives the value of the field named by the rest:
``new_branch_name`` is a made branch's ``name`` (``old_branch_name`` stays what it is)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import openapi_file

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

BRANCH = {"type": "object", "title": "Branch",
          "properties": {"name": {"type": "string"}, "protected": {"type": "boolean"}}}  # fmt: skip
REPO = {"name": "repo", "in": "path", "required": True, "schema": {"type": "string"}}


def _ok(schema: dict) -> dict:
    return {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}


def test_a_new_value_argument_fills_the_field_it_names(tmp_path: Path) -> None:
    options = {"type": "object", "properties": {"new_branch_name": {"type": "string"},
                                                "old_branch_name": {"type": "string"}}}  # fmt: skip
    body = {"content": {"application/json": {"schema": options}}}
    branch = {"name": "branch", "in": "path", "required": True, "schema": {"type": "string"}}
    paths = {
        "/repos/{repo}/branches": {
            "parameters": [REPO],
            "get": {"operationId": "listBranches", "responses": _ok({"type": "array", "items": BRANCH})},
            "post": {"operationId": "createBranch", "requestBody": body, "responses": _ok(BRANCH)},
        },
        "/repos/{repo}/branches/{branch}": {"get": {"operationId": "getBranch", "parameters": [REPO, branch],
                                                    "responses": _ok(BRANCH)}},
    }  # fmt: skip
    spec = synthesize(openapi_file(tmp_path, paths, "branches"))
    effect = spec.behaviour("createBranch").effect
    assert effect.args.get("new_branch_name") == "name", effect.args
    episode = Environment(spec).episode()
    made = episode.call_tool("createBranch", {"repo": "r", "new_branch_name": "dev", "old_branch_name": "main"})
    assert made.ok and made.data["name"] == "dev", made.content
    assert "dev" in episode.call_tool("listBranches", {"repo": "r"}).content
    assert self_check(spec, env=Environment(spec)).passed

"""Path-addressed state (file servers): a tree of folders and files with the refusals a file
server gives."""

from __future__ import annotations

import pytest
from tests.conftest import FIXTURES

from envfactory.runtime.environment import Environment
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check

FILES = FIXTURES / "files_tools.json"


@pytest.fixture(scope="module")
def files() -> Environment:
    return Environment(synthesize(FILES))


def test_file_tools_become_tree_operations_on_a_seeded_tree() -> None:
    spec = synthesize(FILES)
    ops = {b.tool: b.effect.op for b in spec.behaviours if b.effect.kind == "tree"}  # type: ignore[union-attr]
    assert ops == {"write_file": "write", "read_file": "read", "make_folder": "mkdir", "list_folder": "list",
                   "move_file": "move", "delete_file": "remove", "edit_file": "edit"}  # fmt: skip
    assert spec.state_schema["node"].key == "path"
    assert {r["path"] for r in spec.initial_state["node"]} >= {"/workspace", "/workspace/docs"}
    report = self_check(spec)
    assert report.passed, report.failures


def test_writes_reads_folders_and_moves_behave_like_a_file_system(files: Environment) -> None:
    ep = files.episode()
    assert ep.call_tool("write_file", {"path": "/workspace/a/b.txt", "content": "x"}).error == "not_found"
    assert ep.call_tool("make_folder", {"path": "/workspace/a/deep"}).ok  # parents too
    assert ep.call_tool("write_file", {"path": "/workspace/a/b.txt", "content": "hello"}).ok
    assert ep.call_tool("read_file", {"path": "/workspace/a/b.txt"}).content == '"hello"'
    assert ep.call_tool("read_file", {"path": "/workspace/a"}).error == "precondition_failed"  # a folder
    assert ep.call_tool("list_folder", {"path": "/workspace/a"}).data == "[FILE] b.txt\n[DIR] deep"
    assert ep.call_tool("move_file", {"source": "/workspace/a", "destination": "/workspace/z"}).ok  # the subtree
    assert ep.call_tool("read_file", {"path": "/workspace/z/b.txt"}).ok
    assert ep.call_tool("read_file", {"path": "/workspace/a/b.txt"}).error == "not_found"
    docs = "/workspace/docs"
    assert ep.call_tool("move_file", {"source": "/workspace/z", "destination": docs}).error == "conflict"
    assert ep.call_tool("read_file", {"path": "/etc/passwd"}).error == "precondition_failed"  # outside the roots
    assert ep.call_tool("write_file", {"path": "notes.txt", "content": "rel"}).ok  # relative: the first root
    assert ep.call_tool("read_file", {"path": "/workspace/notes.txt"}).content == '"rel"'
    edit = ep.call_tool("edit_file", {"path": "/workspace/notes.txt", "edits": [{"oldText": "nope", "newText": "x"}]})
    assert edit.error == "precondition_failed"
    assert ep.call_tool("delete_file", {"path": "/workspace/z"}).ok
    assert not [r for r in ep.store.rows("node") if r["path"].startswith("/workspace/z")]
    assert ep.call_tool("delete_file", {"path": "/workspace"}).error == "precondition_failed"  # never the root


def test_media_reads_and_many_reads_answer_as_a_file_server_does(tmp_path) -> None:
    import base64
    import json

    tools = json.loads(FILES.read_text())
    listed = tools["tools"] if isinstance(tools, dict) else tools
    path = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    many = {"type": "object", "properties": {"paths": {"type": "array", "items": {"type": "string"}}},
            "required": ["paths"]}  # fmt: skip
    extra = [{"name": "read_media_file", "description": "Read a file as a base64 content block.", "inputSchema": path},
             {"name": "read_multiple_files", "description": "Read several files.", "inputSchema": many}]  # fmt: skip
    source = tmp_path / "files.json"
    source.write_text(json.dumps({"tools": [*listed, *extra]} if isinstance(tools, dict) else [*listed, *extra]))
    spec = synthesize(source)
    assert self_check(spec).passed
    ep = Environment(spec).episode()
    ep.call_tool("write_file", {"path": "/workspace/logo.png", "content": "PNG"})
    image = ep.call_tool("read_media_file", {"path": "/workspace/logo.png"}).data["content"][0]
    assert image == {"type": "image", "data": base64.b64encode(b"PNG").decode(), "mimeType": "image/png"}
    assert ep.call_tool("read_media_file", {"path": "/workspace"}).error == "precondition_failed"  # a folder
    both = ep.call_tool("read_multiple_files", {"paths": ["logo.png", "/workspace/nope"]}).data
    assert both.startswith("logo.png:\nPNG")  # each file labelled as it was asked for

"""Schemas many tools inline are written once in ``tools.json`` (issue #25: a 869 KB spec gave a 39.7 MB
``tools.json``, its schemas inlined again and again)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envfactory.errors import EnvSpecError
from envfactory.ir.env import EnvSpec
from envfactory.ir.sharing import KEY, share, unshare
from envfactory.synth import synthesize

USER = {"title": "User", "type": "object", "properties": {f"field_{i}": {"type": "string", "description": "x" * 20}
                                                          for i in range(12)}}  # fmt: skip


def test_share_and_unshare_are_inverse_and_keep_key_order() -> None:
    data = {"tools": [{"a": USER, "b": [USER, {"small": 1}]}, {"c": {"nested": USER}}], "n": 1.0}
    shared = share(json.loads(json.dumps(data)))
    assert len(json.dumps(shared)) < len(json.dumps(data)) / 2
    assert list(shared[KEY]) == ["User.1"]
    back = unshare(json.loads(json.dumps(shared)))
    assert back == data and json.dumps(back) == json.dumps(data)  # same bytes: order and 1.0 kept


def test_a_document_holding_the_key_itself_is_written_as_it_is() -> None:
    data = {"tools": [{"x": {KEY: "mine", **USER}}, {"y": {KEY: "mine", **USER}}]}
    assert share(data) is data and unshare(json.loads(json.dumps(data))) == data


def _api(tmp_path: Path, operations: int) -> Path:
    ok = {
        "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/User"}}}}
    }
    paths = {f"/users{i}/{{id}}": {"get": {"operationId": f"getUser{i}", "responses": ok,
                                           "parameters": [{"name": "id", "in": "path", "required": True}]}}
             for i in range(operations)}  # fmt: skip
    doc = {"openapi": "3.0.0", "info": {"title": "users", "version": "1"}, "paths": paths,
           "components": {"schemas": {"User": USER}}}  # fmt: skip
    path = tmp_path / "users.json"
    path.write_text(json.dumps(doc))
    return path


def test_a_schema_used_by_every_tool_is_written_once(tmp_path: Path) -> None:
    spec = synthesize(_api(tmp_path, 20))
    folder = spec.save(tmp_path / "env")
    text = (folder / "tools.json").read_text()
    assert text.count('"field_11"') == 1 and '"$shared": "User.' in text
    assert EnvSpec.load(folder) == spec
    again = EnvSpec.load(folder).save(tmp_path / "again")
    assert (again / "tools.json").read_bytes() == (folder / "tools.json").read_bytes()


@pytest.mark.parametrize("broken", [{"$shared": "nope"}, "loop"])
def test_a_broken_shared_part_is_a_clear_error(tmp_path: Path, broken: object) -> None:
    folder = synthesize(_api(tmp_path, 3)).save(tmp_path / "env")
    tools = json.loads((folder / "tools.json").read_text())
    name = next(iter(tools[KEY]))
    tools[KEY][name] = {KEY: name} if broken == "loop" else broken
    (folder / "tools.json").write_text(json.dumps(tools))
    with pytest.raises(EnvSpecError, match="shared part"):
        EnvSpec.load(folder)


def test_a_folder_of_the_first_format_still_loads(tmp_path: Path) -> None:
    spec = synthesize(_api(tmp_path, 3))
    folder = spec.save(tmp_path / "env")
    meta = json.loads((folder / "env.json").read_text())
    assert meta["format"] == "envfactory-env/2"
    (folder / "env.json").write_text(json.dumps({**meta, "format": "envfactory-env/1"}))
    (folder / "tools.json").write_text(json.dumps(spec.tools.model_dump(mode="json", exclude_defaults=True)))
    assert EnvSpec.load(folder) == spec

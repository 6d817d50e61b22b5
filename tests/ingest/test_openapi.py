import json
from pathlib import Path

import pytest
from tests.conftest import FIXTURES, SPECS, wild

from envfactory.errors import SpecError, UnsupportedFormatError
from envfactory.ingest import load, load_toolset


def test_openapi3_parameters_and_body_merge_into_one_input_schema() -> None:
    ts = load_toolset(SPECS / "petstore.yaml")
    update = ts["updatePet"]
    assert set(update.properties) == {"petId", "name", "price", "status"}
    assert update.required == ["petId"]
    assert update.source.http is not None and update.source.http.method == "PATCH"
    assert update.source.http.params == {"petId": "path", "name": "body", "price": "body", "status": "body"}
    assert ts["getPet"].output_schema["title"] == "Pet"  # component names survive as titles
    assert ts["getPet"].annotations.read_only is True and ts["deletePet"].annotations.destructive is True
    assert ts["deletePet"].output_schema is None  # 204: no body


def test_swagger2_body_and_shared_definitions() -> None:
    ts = load_toolset(SPECS / "library.json")
    assert ts.name == "library"
    assert ts["createLoan"].required == ["book_id", "member_id"]
    assert ts["searchBooks"].properties["per_page"]["default"] == 10
    assert ts["listMemberLoans"].output_schema["items"]["title"] == "Loan"


def test_refs_across_files_are_resolved(tmp_path: Path) -> None:
    ts = load_toolset(FIXTURES / "split")  # a folder: its openapi.yaml is the root
    tool = ts["listWidgets"]
    assert tool.properties["limit"] == {"type": "integer", "maximum": 50}
    assert tool.output_schema["items"]["properties"]["colour"] == {"type": "string"}
    assert tool.output_schema["items"]["title"] == "Widget"


def test_wild_petstore_gives_tools_with_warnings() -> None:
    ts = load_toolset(wild("oai-petstore-expanded-v3.yaml"))
    assert ts.names == ["findPets", "addPet", "find_pet_by_id", "deletePet"]
    text = "\n".join(ts.warnings)
    assert "duplicate key 'operationId' at line 35" in text
    assert "'find pet by id' is not a valid identifier; renamed to 'find_pet_by_id'" in text
    assert ts["addPet"].required == ["name"]
    assert set(ts["find_pet_by_id"].output_schema["properties"]) == {"name", "tag", "id"}  # allOf merged


def test_wild_uspto_form_body_and_dashed_names() -> None:
    ts = load_toolset(wild("oai-uspto-v3.yaml"))
    assert ts.names == ["list-data-sets", "list-searchable-fields", "perform-search"]
    search = ts["perform-search"]
    assert {"criteria", "start", "rows", "dataset", "version"} <= set(search.properties)
    assert search.source.http.params["criteria"] == "body"


def test_dangling_ref_is_one_clear_error_naming_file_and_reference() -> None:
    with pytest.raises(SpecError) as info:
        load(wild("oai-petstore-separate-v2/spec"))
    message = str(info.value)
    assert "swagger.yaml" in message and "cannot resolve $ref 'Pet.yaml'" in message
    assert "Pet.yaml" in message and "not found" in message


def test_unsupported_version_and_broken_yaml(tmp_path: Path) -> None:
    old = tmp_path / "old.yaml"
    old.write_text("swagger: '1.2'\npaths: {}\n")
    with pytest.raises(UnsupportedFormatError, match=r"unsupported OpenAPI version '1.2'"):
        load(old)
    broken = tmp_path / "broken.yaml"
    broken.write_text("openapi: 3.0.0\npaths:\n  /a: [unclosed\n")
    with pytest.raises(SpecError, match=r"file '.*broken.yaml': invalid YAML at line \d+"):
        load(broken)


def test_spec_with_no_operations_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text('{"openapi": "3.1.0", "info": {"title": "x", "version": "1"}, "paths": {}}')
    with pytest.raises(SpecError, match="field 'paths'"):
        load(empty)


def test_unrecognised_document_lists_the_formats_tried(tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text('{"hello": "world"}')
    with pytest.raises(UnsupportedFormatError, match="tried: openapi, mcp, functions"):
        load(other)
    with pytest.raises(SpecError, match="file not found"):
        load(tmp_path / "missing.yaml")


def test_transport_and_auth_parameters_stay_out_of_the_agents_input(tmp_path) -> None:
    import json

    from envfactory.ingest import load

    params = [
        {"name": "Accept", "in": "header", "required": True, "schema": {"type": "string"}},
        {"name": "X-Api-Key", "in": "header", "required": True, "schema": {"type": "string"}},
        {"name": "alt", "in": "query", "schema": {"type": "string", "enum": ["json"]}},
        {
            "name": "key",
            "in": "query",
            "description": "API key. Identifies your project.",
            "schema": {"type": "string"},
        },
        {"name": "session", "in": "query", "schema": {"type": "string"}},
        {"name": "q", "in": "query", "schema": {"type": "string"}},
        {"name": "If-Match", "in": "header", "schema": {"type": "string"}},
    ]
    doc = {
        "openapi": "3.0.0",
        "info": {"title": "t"},
        "components": {"securitySchemes": {"s": {"type": "apiKey", "in": "query", "name": "session"}}},
        "paths": {"/things": {"get": {"operationId": "listThings", "parameters": params, "responses": {}}}},
    }
    path = tmp_path / "api.json"
    path.write_text(json.dumps(doc))
    tool = load(path).toolset.tools[0]
    assert sorted(tool.input_schema["properties"]) == ["If-Match", "q"]
    assert not tool.required
    assert sorted(tool.source.http.transport) == ["Accept", "X-Api-Key", "alt", "key", "session"]


def test_a_body_field_repeating_a_path_parameter_is_given_by_the_path(tmp_path: Path) -> None:
    import json

    body = {"type": "object", "properties": {"show_id": {"type": "integer"}, "vote": {"type": "integer"}}}
    doc = {
        "openapi": "3.0.0",
        "info": {"title": "t"},
        "paths": {"/votes/{show_id}": {"put": {
            "operationId": "voteShow",
            "parameters": [
                {"name": "show_id", "in": "path", "required": True, "schema": {"type": "integer"}},
                {"name": "vote", "in": "query", "schema": {"type": "integer"}},
            ],
            "requestBody": {"content": {"application/json": {"schema": body}}},
            "responses": {}}}},
    }  # fmt: skip
    path = tmp_path / "api.json"
    path.write_text(json.dumps(doc))
    loaded = load(path)
    # the path's id is not asked twice; a body field clashing with a query parameter keeps a name of its own
    assert sorted(loaded.toolset.tools[0].input_schema["properties"]) == ["body_vote", "show_id", "vote"]
    assert any("repeats the path parameter" in w for w in loaded.toolset.warnings)


def test_long_route_names_stay_unique_within_64_characters(tmp_path: Path) -> None:
    """Issue #25: names derived from long routes, cut at 64 characters, collided and the spec was refused."""
    base = "/organizations/{organization_id}/projects/{project_id}/environments/{environment_id}"
    ok = {"200": {"description": "ok"}}
    paths = {f"{base}/labels": {"get": {"responses": ok}}, f"{base}/labels/{{label_id}}": {"get": {"responses": ok}},
             f"{base}/secrets": {"get": {"responses": ok}, "post": {"responses": ok}}}  # fmt: skip
    spec = tmp_path / "long.json"
    spec.write_text(json.dumps({"openapi": "3.0.0", "info": {"title": "long", "version": "1"}, "paths": paths}))
    ts = load_toolset(spec)
    assert len(set(ts.names)) == 4 and all(len(n) <= 64 for n in ts.names)
    assert ts.names == load_toolset(spec).names  # deterministic
    assert [n.split("_")[0] for n in ts.names] == ["get", "get", "get", "post"]  # the method stays in front
    assert ts.names[0].startswith("get_") and "_labels_" in ts.names[0] and "label_id" in ts.names[1]
    assert "is longer than 64 characters; renamed to" in "\n".join(ts.warnings)


def test_read_only_members_of_a_body_are_not_arguments(tmp_path: Path) -> None:
    """OpenAPI: a ``readOnly`` property "SHOULD NOT be sent as part of the request" — an id or a
    creation time the server sets is no argument of a create, and no task asks for one."""
    note = {"type": "object", "required": ["title", "id"], "properties": {
        "id": {"type": "string", "readOnly": True}, "createTime": {"type": "string", "readOnly": True},
        "title": {"type": "string"}}}  # fmt: skip
    body = {"content": {"application/json": {"schema": note}}}
    spec = {"openapi": "3.0.0", "info": {"title": "notes", "version": "1"}, "paths": {"/notes": {"post": {
        "operationId": "createNote", "requestBody": {"required": True, **body},
        "responses": {"200": {"description": "ok", **body}}}}}}  # fmt: skip
    path = tmp_path / "notes.json"
    path.write_text(json.dumps(spec))
    create = load_toolset(path)["createNote"]
    assert set(create.properties) == {"title"} and create.required == ["title"]
    assert set(create.output_schema["properties"]) == {"id", "createTime", "title"}  # the answer still holds them


def test_an_operation_whose_name_another_took_is_renamed_with_a_warning(tmp_path: Path) -> None:
    """DaniWeb: ``GET /users/~`` (the signed-in user) cleans to ``get_users``, the name of ``GET /users``;
    two operations given one ``operationId`` likewise."""
    ok = {"200": {"description": "ok"}}
    doc = {"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {
        "/users": {"get": {"responses": ok}},
        "/users/~": {"get": {"responses": ok}},
        "/a": {"get": {"operationId": "fetch", "responses": ok}},
        "/b": {"get": {"operationId": "fetch", "responses": ok}},
    }}  # fmt: skip
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc))
    ts = load_toolset(path)
    names = [t.name for t in ts.tools]
    assert len(set(names)) == 4 and names[0] == "get_users" and names[2] == "fetch"
    assert names[1].startswith("get_users_") and names[3].startswith("fetch_")
    assert ts[names[1]].source.http is not None and ts[names[1]].source.http.path == "/users/~"
    assert any("'get_users' of GET /users/~ is taken by GET /users" in w for w in ts.warnings)
    assert load_toolset(path) == ts  # the same names every time


def test_an_answer_with_only_an_example_is_read_off_the_example(tmp_path: Path) -> None:
    """A 200 answer that declares no schema but shows an example (OpenAPI 3 ``examples`` written as
    JSON text, Swagger 2 ``examples``) is the record its example shows: members typed, values kept as
    examples, with a warning. Before, the answer had no schema and its records no fields."""
    wine = {"wine": "Petrus, Pomerol", "wine_id": 114959, "score": 98.5, "is_primeurs": False,
            "regions": ["Bordeaux"], "classification": None}  # fmt: skip
    page = json.dumps({"count": 1, "next": None, "results": [wine]}, indent=2)
    v3 = {"openapi": "3.0.0", "info": {"title": "wines", "version": "1"}, "paths": {"/scores/": {"get": {
        "operationId": "scores", "responses": {"200": {"description": "ok", "content": {
            "application/json": {"examples": {"response": {"value": page}}}}}}}}}}  # fmt: skip
    v2 = {"swagger": "2.0", "info": {"title": "wines", "version": "1"}, "paths": {"/scores/": {"get": {
        "operationId": "scores", "responses": {"200": {"description": "ok", "examples": {
            "application/json": {"count": 1, "next": None, "results": [wine]}}}}}}}}  # fmt: skip
    for doc in (v3, v2):
        path = tmp_path / "wines.json"
        path.write_text(json.dumps(doc))
        ts = load_toolset(path)
        out = ts["scores"].output_schema
        record = out["properties"]["results"]["items"]["properties"]
        assert out["properties"]["count"]["type"] == "integer"
        assert record["wine_id"]["type"] == "integer" and record["score"]["type"] == "number"
        assert record["is_primeurs"]["type"] == "boolean" and record["regions"]["items"]["type"] == "string"
        assert record["classification"] == {} and "Petrus, Pomerol" in json.dumps(record["wine"])
        assert any("its members are read off its example" in w for w in ts.warnings)
    # records each wrapped in one member (a Rails root) are not read off an example: they would be
    # records of one field
    wrapped = {"openapi": "3.0.0", "info": {"title": "codes", "version": "1"}, "paths": {"/codes": {"get": {
        "operationId": "codes", "responses": {"200": {"description": "ok", "content": {"application/json": {
            "examples": {"response": {"value": [{"code": {"id": 4, "label": "x"}}]}}}}}}}}}}  # fmt: skip
    path.write_text(json.dumps(wrapped))
    assert load_toolset(path)["codes"].output_schema is None

"""Hostile and malformed specs: one clear error (or a warning), bounded, and nothing read outside the folder."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
from tests.conftest import FIXTURES, SPECS

from envfactory.bundled import BUNDLED, bundled_specs_dir
from envfactory.errors import EnvFactoryError, EnvSpecError, SpecError
from envfactory.ingest import load
from envfactory.ingest.files import read_document
from envfactory.ir.env import EnvSpec, folder_lock
from envfactory.runtime.environment import Environment
from envfactory.runtime.validation import compile_validator
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import self_check
from envfactory.testing.hostile import mutate_spec, write_hostile_specs


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile") / "specs"
    folder.mkdir()
    return write_hostile_specs(folder)


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("YAML alias bomb", "alias bomb"),
        ("3,000-deep nesting", "nested more than 128 levels"),
        ("$ref to an absolute path", "outside the spec's folder"),
        ("$ref climbing out with ../", "outside the spec's folder"),
        ("$ref with file://", "outside the spec's folder"),
        ("$ref to an http URL", "does not fetch references"),
        ("a 28 MB spec", "the limit is 25 MB"),
    ],
)
def test_hostile_specs_fail_with_one_clear_error(hostile: dict[str, Path], case: str, message: str) -> None:
    with pytest.raises(SpecError, match=message):
        load(hostile[case])


def test_refs_outside_the_folder_are_never_opened(hostile: dict[str, Path]) -> None:
    opened: list[str] = []
    watching = [True]  # audit hooks cannot be removed; this one goes quiet after the test
    sys.addaudithook(lambda event, args: opened.append(str(args[0])) if watching[0] and event == "open" else None)
    for case in ("$ref to an absolute path", "$ref climbing out with ../", "$ref with file://"):
        with pytest.raises(SpecError):
            load(hostile[case])
    watching[0] = False
    assert opened and not [p for p in opened if p.endswith("hostname")]


def test_ref_roots_widen_where_refs_may_read(tmp_path: Path) -> None:
    shared, spec_dir = tmp_path / "shared", tmp_path / "api"
    shared.mkdir(), spec_dir.mkdir()
    (shared / "pet.yaml").write_text("type: object\nproperties: {id: {type: string}, name: {type: string}}\n")
    response = {
        "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "../shared/pet.yaml"}}}}
    }
    doc = {"openapi": "3.0.0", "info": {"title": "p"}, "paths": {"/pets": {"get": {"responses": response}}}}
    (spec_dir / "openapi.json").write_text(json.dumps(doc))
    with pytest.raises(SpecError, match="--ref-root"):
        load(spec_dir / "openapi.json")
    loaded = load(spec_dir / "openapi.json", ref_roots=(shared,))
    assert "name" in loaded.toolset.tools[0].output_schema["properties"]


def test_self_referencing_schemas_are_unrolled_and_work(hostile: dict[str, Path]) -> None:
    spec = synthesize(hostile["self-referencing schema"])
    schema = spec.tools.tools[0].output_schema
    child = schema["items"]["properties"]["children"]["items"]
    assert child["type"] == "object" and "recursive" in child["description"]
    assert self_check(spec).passed


GET_PET = {"operationId": "getPet", "responses": {"200": {"description": "ok"}}}
PET_ID = {"name": "pet_id", "in": "path", "required": True}
PETS = {"openapi": "3.0.0", "info": {"title": "pets", "version": "1"},
        "paths": {"/pets/{pet_id}": {"parameters": [PET_ID], "get": GET_PET}}}  # fmt: skip


@pytest.mark.parametrize(
    ("where", "value", "field"),
    [
        ((), ("info", -1), "info"),  # issue #25: AttributeError in ingest/openapi.py
        (("info",), ("title", 5), "info.title"),
        (("paths", "/pets/{pet_id}"), ("parameters", 5), "paths./pets/{pet_id}.parameters"),  # issue #25: TypeError
        (("paths", "/pets/{pet_id}", "get"), ("parameters", {"a": 1}), "paths./pets/{pet_id}.get.parameters"),
        (("paths", "/pets/{pet_id}", "get"), ("responses", [1]), "paths./pets/{pet_id}.get.responses"),
        ((), ("components", "x"), "components"),
        ((), ("$ref", "#/nope"), "$ref"),
    ],
)
def test_a_structure_of_the_wrong_shape_is_one_spec_error_naming_the_file_and_field(
    tmp_path: Path, where: tuple[str, ...], value: tuple[str, object], field: str
) -> None:
    doc = json.loads(json.dumps(PETS))
    node = doc
    for key in where:
        node = node[key]
    node[value[0]] = value[1]
    path = tmp_path / "pets.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SpecError) as caught:
        load(path)
    assert caught.value.file == str(path) and caught.value.field == field


def test_structural_mutants_give_clear_errors_not_tracebacks(tmp_path: Path) -> None:
    rng = random.Random(7)
    files = [f for f in BUNDLED.values() if not f.endswith(".py")]
    docs = {f: read_document(bundled_specs_dir() / f) for f in files}
    for i in range(60):
        name = rng.choice(files)
        path = tmp_path / f"{i}-{name}"
        path.write_text(json.dumps(mutate_spec(docs[name], rng)))
        try:
            spec = synthesize(path)
            self_check(spec)
        except SpecError as err:
            assert err.file, err  # a spec error names the file
        except EnvFactoryError:
            continue


@pytest.mark.parametrize(
    ("schema", "warning"),
    [
        ({"type": []}, None),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": [{}]}, None),
        ({"type": "integer", "minimum": "x"}, "'minimum' is 'x'"),
        ({"type": "string", "description": 5}, "'description' is 5"),
        ({"$ref": "http://example.com/x.json"}, "unresolved $ref"),
    ],
)
def test_keywords_of_the_wrong_shape_are_dropped_with_a_warning(schema: dict, warning: str | None) -> None:
    from envfactory.diagnostics import Diagnostics
    from envfactory.ir.jsonschema import normalize_schema

    diag = Diagnostics(file="f")
    cleaned = normalize_schema({"type": "object", "properties": {"a": schema}}, diag, tool="t")
    compile_validator(cleaned)({"a": 1})  # compiles, and never fetches a $ref
    if warning:
        assert any(warning in w for w in diag.warnings)


def test_pattern_validation_is_linear_and_still_enforced() -> None:
    check = compile_validator({"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a+)+$"}}})
    assert check({"a": "a" * 10_000 + "!"}) is not None  # RE2: no catastrophic backtracking
    assert check({"a": "aaaa"}) is None
    lookahead = compile_validator({"type": "object", "properties": {"a": {"type": "string", "pattern": "^(?=x)x$"}}})
    assert lookahead({"a": "y"}) is None  # RE2 cannot compile look-arounds: not enforced rather than slow


def test_python_specs_need_explicit_trust() -> None:
    with pytest.raises(SpecError, match="--trust-code"):
        load(FIXTURES / "py_tools.py")
    with pytest.raises(SpecError, match="--trust-code"):
        synthesize(SPECS / "travel.py")
    assert load(FIXTURES / "py_tools.py", trust_code=True).toolset.tools


def test_env_folders_are_written_atomically_and_derived_files_never_go_stale(tmp_path: Path) -> None:
    shop = synthesize(SPECS / "shop.yaml", name="x")
    pets = synthesize(SPECS / "petstore.yaml", name="x")
    shop.save(tmp_path / "x", extra={"fidelity.json": {"passed": True}})
    assert (tmp_path / "x" / "fidelity.json").is_file()
    pets.save(tmp_path / "x")  # another spec, no fidelity report: the old one must not survive
    assert not (tmp_path / "x" / "fidelity.json").exists()
    assert EnvSpec.load(tmp_path / "x") == pets
    assert not [p for p in (tmp_path / "x").iterdir() if p.suffix == ".tmp"]


def test_a_second_writer_is_refused_while_one_holds_the_folder(tmp_path: Path) -> None:
    spec = synthesize(SPECS / "shop.yaml")
    spec.save(tmp_path / "shop")
    with folder_lock(tmp_path / "shop", exclusive=True), pytest.raises(EnvSpecError, match="another envfactory"):
        spec.save(tmp_path / "shop")


@pytest.mark.parametrize("name", [".", "..", "a/b", ""])
def test_env_names_that_are_not_folder_names_are_refused(name: str) -> None:
    spec = synthesize(SPECS / "shop.yaml")
    with pytest.raises(ValueError):
        EnvSpec.model_validate({**spec.model_dump(), "name": name})


def test_inspect_says_an_env_runs_code_before_anything_runs(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from envfactory.cli.main import app

    spec = synthesize(SPECS / "travel.py", bind=True)
    spec.save(tmp_path / "travel")
    out = CliRunner().invoke(app, ["inspect", str(tmp_path / "travel")]).output
    assert "runs code" in out and "travel.py" in out
    refused = CliRunner().invoke(app, ["check", str(tmp_path / "travel")])
    assert refused.exit_code != 0 and "--trust-code" in refused.output
    with pytest.raises(EnvSpecError, match="trust"):
        Environment.load(tmp_path / "travel").episode()


def test_a_remote_ref_left_in_a_saved_schema_is_never_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    import urllib.request

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the validator tried to fetch a $ref")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    check = compile_validator({"type": "object", "properties": {"a": {"$ref": "http://127.0.0.1:9/x.json"}}})
    assert check({"a": 1}) is None

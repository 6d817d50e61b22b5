"""Every environment loads back from its folder (issue #25: ``effect.edit_list.items_arg: Field required``)."""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from envfactory.bundled import BUNDLED
from envfactory.ir.effect import Behaviour, EditListEffect
from envfactory.ir.env import EnvSpec
from envfactory.synth import synthesize
from envfactory.testing.roundtrip import check_round_trip, round_trip

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
# every fixture spec that synthesizes offline (plain documentation needs a language model)
FIXTURE_SPECS = [*sorted(p for p in FIXTURES.glob("*.*") if p.suffix in (".json", ".yaml", ".py"))]
FIXTURE_SPECS.append(FIXTURES / "split" / "openapi.yaml")


def _admits_none(annotation: object) -> bool:
    if annotation is type(None):
        return True
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_admits_none(a) for a in typing.get_args(annotation))
    if origin is typing.Annotated:
        return _admits_none(typing.get_args(annotation)[0])
    return False


def _models_in(annotation: object) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def _saved_models() -> list[type[BaseModel]]:
    """Every model an environment folder holds (reachable from EnvSpec's fields)."""
    found: dict[str, type[BaseModel]] = {}
    todo: list[type[BaseModel]] = [EnvSpec]
    while todo:
        model = todo.pop()
        if model.__qualname__ in found:
            continue
        found[model.__qualname__] = model
        todo += [m for field in model.model_fields.values() for m in _models_in(field.annotation)]
    return [found[k] for k in sorted(found)]


def test_every_ir_field_that_may_be_none_defaults_to_none() -> None:
    """The folder leaves ``None`` out (``behaviours.json``), so loading must give ``None`` back."""
    models = _saved_models()
    wrong = [f"{model.__name__}.{name}" for model in models for name, field in model.model_fields.items()
             if _admits_none(field.annotation) and (field.is_required() or field.default is not None)]  # fmt: skip
    assert {"EditListEffect", "Behaviour", "HttpBinding", "Entity"} <= {m.__name__ for m in models}
    assert wrong == []


def test_a_list_edit_of_the_call_itself_loads_back() -> None:
    effect = EditListEffect(entity="group", field="participants", owner_arg="group_id", values_arg="participants")
    behaviour = Behaviour(tool="mention", effect=effect, prior="confident")
    assert Behaviour.model_validate(behaviour.model_dump(mode="json", exclude_none=True)) == behaviour


GROUP = {"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                                          "participants": {"type": "array", "items": {"type": "string"}}}}  # fmt: skip
PEOPLE = {"group_id": {"type": "string"}, "participants": {"type": "array", "items": {"type": "string"}}}


def _function(name: str, description: str, props: dict[str, object], required: list[str], **extra: object) -> object:
    parameters = {"type": "object", "properties": props, "required": required}
    function = {"name": name, "description": description, "parameters": parameters, **extra}
    return {"type": "function", "function": function}


def groups_spec(tmp_path: Path) -> Path:
    """Group chats: a list edit whose call is its one item (``items_arg`` is ``None``)."""
    tools = [
        _function("create_group", "Create a group.", {"name": {"type": "string"}}, ["name"]),
        _function("get_group", "Get a group.", {"group_id": {"type": "string"}}, ["group_id"], output_schema=GROUP),
        _function("remove_group_participants", "Remove people from a group.", PEOPLE, ["group_id", "participants"]),
    ]
    path = tmp_path / "groups.json"
    path.write_text(json.dumps({"name": "groups", "tools": tools}))
    return path


def test_a_synthesized_list_edit_loads_back_from_its_folder(tmp_path: Path) -> None:
    spec = synthesize(groups_spec(tmp_path))
    assert any(b.effect.kind == "edit_list" and b.effect.items_arg is None for b in spec.behaviours)
    assert EnvSpec.load(spec.save(tmp_path / "env")) == spec


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_bundled_environments_load_back(bundled_specs: dict[str, EnvSpec], name: str) -> None:
    assert round_trip(bundled_specs[name]) == bundled_specs[name]


@pytest.mark.parametrize("path", FIXTURE_SPECS, ids=lambda p: p.name)
def test_fixture_environments_load_back(path: Path) -> None:
    check_round_trip(synthesize(path, trust_code=True))

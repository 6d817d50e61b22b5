import pytest

from envfactory.errors import RegistryError, SpecError
from envfactory.registry import Registry


def test_registry_adds_and_finds_items_in_order() -> None:
    reg = Registry[int]("number")
    reg.add("one", 1)
    reg.register("two")(2)
    assert reg["one"] == 1 and reg["two"] == 2
    assert list(reg) == ["one", "two"] and len(reg) == 2 and "one" in reg


def test_registry_refuses_duplicates_and_names_unknown_items() -> None:
    reg = Registry[int]("number")
    reg.add("one", 1)
    with pytest.raises(RegistryError, match="already registered"):
        reg.add("one", 1)
    with pytest.raises(RegistryError, match=r"unknown number 'three' \(known: one\)"):
        reg["three"]


def test_spec_error_names_file_tool_and_field() -> None:
    err = SpecError("bad type", file="api.yaml", tool="get_pet", field="id")
    assert str(err) == "file 'api.yaml', tool 'get_pet', field 'id': bad type"
    assert (err.file, err.tool, err.field) == ("api.yaml", "get_pet", "id")

import subprocess
import sys
from pathlib import Path

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


def test_a_deferred_entry_is_imported_on_first_lookup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "kinds_home.py").write_text(
        "from envfactory.registry import Registry\nKINDS = Registry('kind')\nKINDS.defer('answer', 'kinds_plugin')\n"
    )
    (tmp_path / "kinds_plugin.py").write_text("from kinds_home import KINDS\nKINDS.add('answer', 42)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import kinds_home  # type: ignore[import-not-found]

    assert "kinds_plugin" not in sys.modules
    assert "answer" in kinds_home.KINDS and list(kinds_home.KINDS) == ["answer"]
    assert kinds_home.KINDS["answer"] == 42 and "kinds_plugin" in sys.modules
    assert kinds_home.KINDS.items() == [("answer", 42)]
    monkeypatch.delitem(sys.modules, "kinds_home")
    monkeypatch.delitem(sys.modules, "kinds_plugin")


def test_a_deferred_module_that_registers_nothing_is_named() -> None:
    kinds = Registry[int]("kind")
    kinds.defer("missing", "json")
    with pytest.raises(RegistryError, match="importing json did not register it"):
        kinds["missing"]
    kinds.defer("x", "json")
    with pytest.raises(RegistryError, match="already registered"):
        kinds.defer("x", "json")


def test_the_runtime_names_the_live_server_executor_without_importing_it() -> None:
    code = (
        "import sys\nfrom envfactory.runtime.environment import Environment\n"
        "from envfactory.runtime.behaviours import COMPILERS\n"
        "assert not any(m.startswith('envfactory.real') for m in sys.modules), sorted(sys.modules)\n"
        "assert callable(COMPILERS['served']) and 'envfactory.real.served' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

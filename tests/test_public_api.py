from pathlib import Path

import pytest

import envfactory


def test_public_names_are_importable_and_listed() -> None:
    for name in envfactory.__all__:
        assert getattr(envfactory, name) is not None
    assert {"synthesize", "Environment", "Episode", "ToolEnv", "self_check", "load"} <= set(envfactory.__all__)


def test_the_docstring_example_runs() -> None:
    import doctest
    import os
    from pathlib import Path

    here = os.getcwd()
    os.chdir(Path(__file__).resolve().parents[1])
    try:
        failures, _ = doctest.testmod(envfactory, raise_on_error=False)
    finally:
        os.chdir(here)
    assert failures == 0


def test_load_gives_an_environment_and_load_spec_reads_descriptions(tmp_path: Path) -> None:
    specs = Path(__file__).resolve().parents[1] / "specs"
    folder = envfactory.synthesize(specs / "shop.yaml").save(tmp_path / "shop")
    env = envfactory.load(folder)
    assert isinstance(env, envfactory.Environment) and env.episode().call_tool("list_orders", {}).ok
    assert envfactory.load("library").name == "library"  # a bundled one by name
    assert "get_order" in envfactory.load_spec(specs / "shop.yaml").toolset.names
    with pytest.raises(envfactory.EnvSpecError, match=r"envfactory\.load_spec or envfactory\.synthesize"):
        envfactory.load(specs / "shop.yaml")

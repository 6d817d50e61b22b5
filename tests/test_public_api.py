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

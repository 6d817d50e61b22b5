import json
from pathlib import Path

import pytest

from envfactory.errors import EnvSpecError
from envfactory.ir.env import EnvSpec


def test_saved_environment_loads_back_identically(bundled_specs: dict[str, EnvSpec], tmp_path: Path) -> None:
    for name, spec in bundled_specs.items():
        path = spec.save(tmp_path / name)
        assert sorted(p.name for p in path.iterdir() if not p.name.startswith(".")) == [
            "behaviours.json",
            "env.json",
            "schema.json",
            "state.json",
            "tools.json",
        ]
        assert EnvSpec.load(path) == spec
        again = EnvSpec.load(path).save(tmp_path / f"{name}-again")
        for file in path.iterdir():
            assert file.read_bytes() == (again / file.name).read_bytes()


def test_loading_a_folder_that_is_not_an_environment_says_so(tmp_path: Path) -> None:
    with pytest.raises(EnvSpecError, match="not an environment directory"):
        EnvSpec.load(tmp_path)


def test_loading_broken_files_names_the_file(bundled_specs: dict[str, EnvSpec], tmp_path: Path) -> None:
    path = bundled_specs["shop"].save(tmp_path / "shop")
    (path / "schema.json").write_text("{ nope")
    with pytest.raises(EnvSpecError, match=r"schema.json: invalid JSON at line 1"):
        EnvSpec.load(path)


def test_behaviours_must_cover_every_tool(bundled_specs: dict[str, EnvSpec], tmp_path: Path) -> None:
    path = bundled_specs["shop"].save(tmp_path / "shop")
    behaviours = json.loads((path / "behaviours.json").read_text())
    (path / "behaviours.json").write_text(json.dumps(behaviours[1:]))
    with pytest.raises(EnvSpecError, match=r"tools without behaviour: \['list_customers'\]"):
        EnvSpec.load(path)


def test_unknown_entity_in_an_edited_behaviour_is_reported(bundled_specs: dict[str, EnvSpec], tmp_path: Path) -> None:
    path = bundled_specs["shop"].save(tmp_path / "shop")
    behaviours = json.loads((path / "behaviours.json").read_text())
    behaviours[0]["effect"]["entity"] = "unicorn"
    (path / "behaviours.json").write_text(json.dumps(behaviours))
    with pytest.raises(EnvSpecError, match="tool 'list_customers': unknown entity 'unicorn'"):
        EnvSpec.load(path)


def test_state_json_holds_one_row_a_line_and_loads_back(tmp_path) -> None:
    from tests.conftest import SPECS

    from envfactory.ir.env import EnvSpec
    from envfactory.synth import synthesize

    spec = synthesize(SPECS / "shop.yaml")
    folder = spec.save(tmp_path / "shop")
    lines = (folder / "state.json").read_text().splitlines()
    rows = sum(len(r) for r in spec.initial_state.values())
    assert sum(line.startswith("    {") for line in lines) == rows  # every row on a line of its own
    assert EnvSpec.load(folder) == spec


def test_layered_json_indents_a_few_levels_and_keeps_deeper_values_on_one_line() -> None:
    from envfactory.ir.env import layered_json

    data = {"tools": [{"name": "a", "schema": {"properties": {"x": {"type": "string", "enum": ["p", "q"]}}}}], "e": []}
    text = layered_json(data, depth=3)
    assert json.loads(text) == data
    assert text.splitlines() == [
        "{",
        '  "tools": [',
        "    {",
        '      "name": "a",',
        '      "schema": {"properties": {"x": {"type": "string", "enum": ["p", "q"]}}}',
        "    }",
        "  ],",
        '  "e": []',
        "}",
    ]


def test_a_behaviours_prior_is_no_grade_and_old_folders_load(bundled_specs: dict[str, EnvSpec], tmp_path: Path) -> None:
    """Synthesis's confidence is written as ``prior`` in words no grade uses; an older folder's
    ``fidelity: high`` loads as that prior (only a measurement grades a tool)."""
    folder = bundled_specs["shop"].save(tmp_path / "shop")
    text = (folder / "behaviours.json").read_text()
    assert '"fidelity"' not in text and '"prior": "confident"' in text
    assert '"high"' not in text and '"medium"' not in text
    old = json.loads(text)
    for b in old:
        b["fidelity"] = {"confident": "high", "plausible": "medium", "guess": "low"}.get(b.pop("prior"), "real")
    (folder / "behaviours.json").write_text(json.dumps(old))
    assert EnvSpec.load(folder).behaviours == bundled_specs["shop"].behaviours

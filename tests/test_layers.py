"""The packages' layers: what a lower layer imports at module level never reaches a higher one,
so importing the runtime never pulls in the real-implementation tools, synthesis or tasks."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import envfactory

ROOT = Path(envfactory.__file__).parent

# package -> the envfactory packages and top-level modules it may import at module level
BELOW = {
    "ir": {"diagnostics", "errors", "ir", "patterns"},  # patterns: regular expressions only, importing nothing here
    "runtime": {"core", "errors", "ir", "patterns", "registry", "sandbox", "seeding", "users", "runtime"},
}


def module_imports(package: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Per module of ``package``, the first names after ``envfactory.`` it imports at module level
    (imports inside functions and under ``if TYPE_CHECKING:`` are left out)."""
    out: dict[str, set[str]] = {}
    for path in sorted((root / package).rglob("*.py")):
        names: set[str] = set()
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("envfactory."):
                names.add(node.module.split(".")[1])
            elif isinstance(node, ast.Import):
                names |= {a.name.split(".")[1] for a in node.names if a.name.startswith("envfactory.")}
        out[str(path.relative_to(root))] = names
    return out


@pytest.mark.parametrize("package", sorted(BELOW))
def test_a_lower_layer_never_imports_a_higher_one(package: str) -> None:
    found = {m: sorted(names - BELOW[package]) for m, names in module_imports(package).items()}
    assert {m: n for m, n in found.items() if n} == {}


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    (tmp_path / "runtime").mkdir()
    (tmp_path / "runtime" / "m.py").write_text(
        "import os\nfrom typing import TYPE_CHECKING\nfrom envfactory.real.mcp import PREFIX\n"
        "if TYPE_CHECKING:\n    from envfactory.tasks import Task\n"
        "def f():\n    from envfactory.synth import synthesize\n"
    )
    assert module_imports("runtime", tmp_path) == {"runtime/m.py": {"real"}}

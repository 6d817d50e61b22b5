"""The manifest of the BFCL API classes that ``bench/fidelity.py --python`` reads, built from the pinned install.

    python bench/bfcl/manifest.py [FOLDER]    # FOLDER defaults to bench/bfcl/build; prints the manifest's path

``bfcl-eval`` (pinned in ``requirements.txt``; installed into ``bench/bfcl/python`` by ``make bench``, or by
``bench/fidelity.py --bfcl`` when it is missing) ships the multi-turn API classes
(``bfcl_eval/eval_checker/multi_turn_eval/func_source_code/*.py``), their function lists
(``bfcl_eval/data/multi_turn_func_doc/*.json``, one JSON function per line) and the multi-turn entries, each
of which gives the classes it involves an ``initial_config``. Into FOLDER (git-ignored: nothing of BFCL's is
committed here) this writes:

- ``bfcl_eval/eval_checker/multi_turn_eval/func_source_code/``: the class files, unchanged, under their
  package's own ``__init__`` files — the classes import their siblings by absolute name
  (``from bfcl_eval.eval_checker.multi_turn_eval.func_source_code.long_context import ...``), and the
  manifest's folder is put on ``sys.path``;
- ``descriptions/STEM.json``: each class's function list, as published;
- ``scenarios/STEM.json``: each stateful class's scenario, the ``initial_config`` the first entry of
  ``BFCL_v4_multi_turn_base.json`` gives it (the stateless calculator has no loader and gets none);
- ``manifest.json``: ``[{name, descriptions, implementation: FILE.py:Class, scenario?}]``, relative to FOLDER.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "requirements.txt"
VENV = HERE / "python"
STAMP = VENV / ".installed"
BUILD = HERE / "build"
SOURCE = Path("eval_checker", "multi_turn_eval", "func_source_code")
ENTRIES = Path("data", "BFCL_v4_multi_turn_base.json")
LOADER = "_load_scenario"

# the multi-turn suite's classes (bfcl_eval's CLASS_FILE_PATH_MAPPING less web search and the memory classes,
# which need a network or an embedding model): the file stem their class file and function list share
CLASSES = {
    "gorilla_file_system": "GorillaFileSystem",
    "posting_api": "TwitterAPI",
    "ticket_api": "TicketAPI",
    "travel_booking": "TravelAPI",
    "trading_bot": "TradingBot",
    "vehicle_control": "VehicleControlAPI",
    "message_api": "MessageAPI",
    "math_api": "MathAPI",
}


def installed() -> bool:
    """Whether ``bench/bfcl/python`` holds the install ``requirements.txt`` pins (the Makefile's stamp)."""
    return STAMP.is_file() and STAMP.stat().st_mtime >= REQUIREMENTS.stat().st_mtime


def install() -> None:
    """What the Makefile's ``$(BFCL_STAMP)`` target does: a fresh virtual environment and the pinned install."""
    shutil.rmtree(VENV, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    python = VENV / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "-r", str(REQUIREMENTS)], check=True)
    STAMP.touch()


def package() -> Path:
    """The installed ``bfcl_eval`` package folder."""
    found = sorted(VENV.glob("lib/python*/site-packages/bfcl_eval"))
    if not installed() or not found:
        raise FileNotFoundError(f"bfcl-eval is not installed in {VENV}: run `make bench` (or bench/fidelity.py --bfcl)")
    return found[-1]


def _classes_with_loader(path: Path) -> dict[str, bool]:
    """The classes a file defines, and whether each has the scenario loader."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: any(isinstance(f, ast.FunctionDef) and f.name == LOADER for f in node.body)
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }


def _first_configs(entries: Path) -> dict[str, object]:
    """Each class's ``initial_config`` in the first entry that gives it one."""
    first: dict[str, object] = {}
    for line in entries.read_text(encoding="utf-8").splitlines():
        if line.strip():
            for cls, config in json.loads(line).get("initial_config", {}).items():
                first.setdefault(cls, config)
    return first


def prepared(folder: Path) -> Path:
    """The pinned install (made when there is none) built into ``folder``, which goes on ``sys.path``
    (the classes import their siblings by absolute name); ``folder``."""
    found = sorted(VENV.glob("lib/python*/site-packages/bfcl_eval"))
    if not found:
        print("bench/bfcl/python has no bfcl-eval: installing bench/bfcl/requirements.txt ...", file=sys.stderr)
        install()
        found = sorted(VENV.glob("lib/python*/site-packages/bfcl_eval"))
    build(folder, source=found[0])
    sys.path.insert(0, str(folder))
    return folder


def build(folder: Path = BUILD, source: Path | None = None) -> Path:
    """Write the manifest and what it names into ``folder`` (see the module docstring); its path."""
    pkg = source or package()
    folder = Path(folder).resolve()
    copied = folder / "bfcl_eval"
    shutil.rmtree(copied, ignore_errors=True)
    for name in ("descriptions", "scenarios"):
        shutil.rmtree(folder / name, ignore_errors=True)
        (folder / name).mkdir(parents=True)
    shutil.copytree(pkg / SOURCE, copied / SOURCE, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for parent in (Path(), *reversed(SOURCE.parents[:-1])):  # bfcl_eval/, eval_checker/, multi_turn_eval/
        shutil.copyfile(pkg / parent / "__init__.py", copied / parent / "__init__.py")
    configs = _first_configs(pkg / ENTRIES)
    manifest = []
    for stem, cls in CLASSES.items():
        classes = _classes_with_loader(copied / SOURCE / f"{stem}.py")
        if cls not in classes:
            raise LookupError(f"{SOURCE / stem}.py defines no class {cls} (found: {', '.join(classes)})")
        shutil.copyfile(pkg / "data" / "multi_turn_func_doc" / f"{stem}.json", folder / "descriptions" / f"{stem}.json")
        item = {"name": cls, "descriptions": f"descriptions/{stem}.json",
                "implementation": f"{Path('bfcl_eval') / SOURCE / stem}.py:{cls}"}  # fmt: skip
        if classes[cls]:
            if cls not in configs:
                raise LookupError(f"no entry of {ENTRIES.name} gives {cls} an initial_config")
            (folder / "scenarios" / f"{stem}.json").write_text(json.dumps(configs[cls], indent=1), encoding="utf-8")
            item["scenario"] = f"scenarios/{stem}.json"
        manifest.append(item)
    path = folder / "manifest.json"
    path.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":
    try:
        print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else BUILD))
    except (FileNotFoundError, LookupError) as err:
        sys.exit(f"bench/bfcl/manifest.py: {err}")

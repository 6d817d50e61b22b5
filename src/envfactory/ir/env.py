"""EnvSpec: everything needed to run an environment, saved as a readable directory.

    <dir>/env.json         name, description, config (seed, step budget, clock)
    <dir>/tools.json       the ToolSet
    <dir>/schema.json      the StateSchema
    <dir>/behaviours.json  one Behaviour per tool
    <dir>/state.json       the initial state: {entity: [rows]}

All files are plain JSON, written deterministically so that diffs and hashes are meaningful.
Writers hold an exclusive lock on ``<dir>/.lock`` and replace each file atomically (temp file +
rename); readers hold a shared lock, so a load never sees half of one version and half of
another. Files a new version does not write (a stale ``fidelity.json``) are removed.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from envfactory.errors import EnvSpecError
from envfactory.ir.choice import Choice
from envfactory.ir.effect import Behaviour
from envfactory.ir.sharing import share, unshare
from envfactory.ir.state import StateSchema
from envfactory.ir.tool import ToolSet

FORMAT = "envfactory-env/2"  # /2: repeated schemas under ``$shared`` (ir/sharing.py)
READABLE_FORMATS = ("envfactory-env/1", FORMAT)  # a /1 folder is a /2 folder that shares nothing
ENV_NAME = r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,99}$"  # also a folder name: no '.', '..', '/'
SPEC_FILES = ("env.json", "tools.json", "schema.json", "behaviours.json", "state.json")
DERIVED_FILES = ("fidelity.json", "graph.png")  # made from the spec files; stale once those change
JSON = dict[str, Any]


class EnvConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int = 0
    rows_per_entity: int = 12
    max_steps: int = 50
    max_list_rows: int = 100  # a list call returns at most this many rows (observations stay readable)
    clock_start: str = "2026-01-05T09:00:00Z"
    state_source: str = "seeded"  # "seeded", "empty" or the path of a user-supplied JSON file
    # a bound implementation's scenario: a JSON file given to a loader method of each fresh object
    scenario: str | None = None
    scenario_loader: str | None = None  # default: the first of runtime.environment.SCENARIO_LOADERS it has


class EnvSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=ENV_NAME)
    description: str = ""
    config: EnvConfig = EnvConfig()
    tools: ToolSet
    state_schema: StateSchema = Field(default_factory=StateSchema)
    behaviours: tuple[Behaviour, ...]
    initial_state: dict[str, list[JSON]] = Field(default_factory=dict)
    # the last number each entity's key counter handed out (new keys continue after it); absent: the
    # largest numbered key of its rows. A real object's ``ticket_counter`` lands here.
    counters: dict[str, int] = Field(default_factory=dict)
    # per tool, the candidate synthesis chose, the runners-up and the evidence (``choices.json``)
    choices: tuple[Choice, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> EnvSpec:
        tools = set(self.tools.names)
        covered = {b.tool for b in self.behaviours}
        if tools != covered:
            missing, extra = sorted(tools - covered), sorted(covered - tools)
            raise EnvSpecError(
                f"env {self.name!r}: behaviours do not match tools "
                f"(tools without behaviour: {missing}; behaviours without tool: {extra})"
            )
        entities = set(self.state_schema.names)
        for behaviour in self.behaviours:
            entity = getattr(behaviour.effect, "entity", None)
            if entity is not None and entity not in entities:
                raise EnvSpecError(f"env {self.name!r}, tool {behaviour.tool!r}: unknown entity {entity!r}")
            if behaviour.gate is not None and behaviour.gate.entity not in entities:
                raise EnvSpecError(
                    f"env {self.name!r}, tool {behaviour.tool!r}: its gate names an unknown entity "
                    f"{behaviour.gate.entity!r}"
                )
        unknown = sorted(set(self.initial_state) - entities)
        if unknown:
            raise EnvSpecError(f"env {self.name!r}: initial state has unknown entities {unknown}")
        return self

    def behaviour(self, tool: str) -> Behaviour:
        for behaviour in self.behaviours:
            if behaviour.tool == tool:
                return behaviour
        raise KeyError(tool)

    @property
    def low_fidelity_tools(self) -> list[str]:
        return [b.tool for b in self.behaviours if b.low_fidelity]

    # -- persistence ------------------------------------------------------------------------
    def files(self) -> dict[str, Any]:
        """The folder's spec files as JSON data (file name -> content); :meth:`from_files` reads them
        back to an equal EnvSpec. ``behaviours.json`` leaves out ``None`` members, so every IR field
        that may be ``None`` defaults to ``None`` (``tests/ir/test_roundtrip.py`` holds that)."""
        meta = {
            "format": FORMAT,
            "name": self.name,
            "description": self.description,
            "config": self.config.model_dump(),
            **({"counters": self.counters} if self.counters else {}),
        }
        files = {
            "env.json": meta,
            # a schema many tools (or entities' fields) inline is written once (``ir/sharing.py``)
            "tools.json": share(self.tools.model_dump(mode="json", exclude_defaults=True)),
            "schema.json": share(self.state_schema.model_dump(mode="json", exclude_defaults=True)),
            "behaviours.json": [b.model_dump(mode="json", exclude_none=True) for b in self.behaviours],
            "state.json": self.initial_state,
        }
        if self.choices:  # what synthesis chose per tool, among which candidates, on what evidence
            files["choices.json"] = [c.model_dump(mode="json", exclude_defaults=True) for c in self.choices]
        return files

    def save(self, directory: str | Path, *, extra: dict[str, Any] | None = None) -> Path:
        """Write the folder (and ``extra`` derived files such as ``fidelity.json``); derived
        files not given are removed, since they describe an earlier version."""
        path = Path(directory)
        path.mkdir(parents=True, exist_ok=True)
        files = self.files()
        files.update(extra or {})
        with folder_lock(path, exclusive=True):
            for name, data in files.items():
                if name == "state.json" and isinstance(data, dict):
                    write_text(path / name, rows_text(data))
                elif name in SPEC_FILES:
                    write_text(path / name, layered_json(data) + "\n")
                else:
                    write_json(path / name, data)
            for name in (*DERIVED_FILES, "choices.json"):
                if name not in files:
                    (path / name).unlink(missing_ok=True)
        return path

    @classmethod
    def load(cls, directory: str | Path) -> EnvSpec:
        path = Path(directory)
        if not (path / "env.json").is_file():
            raise EnvSpecError(f"{path}: not an environment directory (no env.json); run `envfactory synth` first")
        with folder_lock(path, exclusive=False):
            return cls._load(path)

    @classmethod
    def _load(cls, path: Path) -> EnvSpec:
        meta = read_json(path / "env.json")
        _check_format(meta, path)
        files = {"env.json": meta, **{n: read_json(path / n) for n in SPEC_FILES[1:]}}
        if (path / "choices.json").is_file():
            files["choices.json"] = read_json(path / "choices.json")
        return cls.from_files(files, where=path)

    @classmethod
    def from_files(cls, files: dict[str, Any], *, where: Path = Path(".")) -> EnvSpec:
        """The EnvSpec of :meth:`files`' data; errors name ``where`` (the folder) and the field."""
        meta = files["env.json"]
        _check_format(meta, where)
        try:
            return cls(
                name=meta["name"],
                description=meta.get("description", ""),
                config=EnvConfig(**meta.get("config", {})),
                tools=ToolSet.model_validate(unshare(files["tools.json"])),
                state_schema=StateSchema.model_validate(unshare(files["schema.json"])),
                behaviours=tuple(Behaviour.model_validate(b) for b in files["behaviours.json"]),
                initial_state=files["state.json"],
                counters=meta.get("counters") or {},
                choices=tuple(Choice.model_validate(c) for c in files.get("choices.json") or ()),
            )
        except ValidationError as err:
            raise EnvSpecError(f"{where}: invalid environment files: {_first_error(err)}") from None
        except KeyError as err:
            raise EnvSpecError(f"{where / 'env.json'}: missing key {err}") from None
        except (TypeError, ValueError) as err:  # a list where an object belongs, a broken shared part
            raise EnvSpecError(f"{where}: invalid environment files: {err}") from None


def _check_format(meta: Any, where: Path) -> None:
    if not isinstance(meta, dict) or meta.get("format") not in READABLE_FORMATS:
        found = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise EnvSpecError(f"{where / 'env.json'}: unsupported format {found!r}, expected {FORMAT!r}")


@contextmanager
def folder_lock(path: Path, *, exclusive: bool) -> Iterator[None]:
    """Hold ``<path>/.lock``: exclusively to write (refused at once if another writer holds it),
    shared to read (waits for a writer to finish)."""
    try:
        lock = path / ".lock"
        handle = lock.open("a" if exclusive else "r") if exclusive or lock.exists() else None
    except OSError:  # a read-only folder: nobody can be writing to it
        handle = None
    if handle is None:
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB if exclusive else fcntl.LOCK_SH)
        except BlockingIOError:
            raise EnvSpecError(f"{path}: another envfactory process is writing this folder; try again later") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically: a reader sees the old file or the new one, never a part."""
    write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


SPEC_DEPTH = 4  # spec files are indented this deep; what lies deeper (a schema's inner parts) is one line


def layered_json(data: Any, depth: int = SPEC_DEPTH, indent: str = "") -> str:
    """``data`` as JSON indented ``depth`` levels deep, each deeper value compact on one line: a
    person still reads a tool, its fields and its schemas' members a line each, and a large
    description's folder is about half the size of one indented all the way down."""
    if depth <= 0 or not isinstance(data, dict | list) or not data:
        return json.dumps(data, ensure_ascii=False, separators=(", ", ": "))
    inner = indent + "  "
    if isinstance(data, dict):
        parts = [
            f"{inner}{json.dumps(k, ensure_ascii=False)}: {layered_json(v, depth - 1, inner)}" for k, v in data.items()
        ]
        return "{\n" + ",\n".join(parts) + f"\n{indent}}}"
    parts = [inner + layered_json(v, depth - 1, inner) for v in data]
    return "[\n" + ",\n".join(parts) + f"\n{indent}]"


def rows_text(state: dict[str, Any]) -> str:
    """``{entity: [rows]}`` as JSON with one compact row a line: as readable as indented JSON for
    tables, and about half its size (seeded rows were most of a large folder)."""
    tables = [
        f"  {json.dumps(name, ensure_ascii=False)}: ["
        + (
            "\n"
            + ",\n".join("    " + json.dumps(r, ensure_ascii=False, separators=(", ", ": ")) for r in rows)
            + "\n  ]"
            if rows
            else "]"
        )
        for name, rows in state.items()
    ]
    return "{\n" + ",\n".join(tables) + "\n}\n" if tables else "{}\n"


def write_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; these files are for people to read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise EnvSpecError(f"{path}: missing file") from None
    except json.JSONDecodeError as err:
        raise EnvSpecError(f"{path}: invalid JSON at line {err.lineno}: {err.msg}") from None


def _first_error(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']} ({err.error_count()} error(s))"

"""The bundled example specs, their environments, and their Gymnasium ids (registered by
``import envfactory``).

Registration names entry points as text, so it imports none of envfactory's runtime; and it
waits for Gymnasium to be imported by someone (:func:`register_when_imported`), so that
``import envfactory`` and ``envfactory --help`` do not pay Gymnasium's and NumPy's start-up.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from functools import cache
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from envfactory.gym_env import ToolEnv
    from envfactory.ir.task import Task
    from envfactory.runtime.environment import Environment

BUNDLED = {
    "petstore": "petstore.yaml",
    "library": "library.json",
    "shop": "shop.yaml",
    "notes": "notes.mcp.json",
    "calendar": "calendar.openai.json",
    "banking": "banking.anthropic.json",
    "travel": "travel.py",
}


def bundled_specs_dir() -> Path:
    """Where the bundled example specs live (inside the wheel, or the source checkout)."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_specs", here.parents[1] / "specs"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("bundled specs not found")


@cache
def bundled_environment(name: str) -> Environment:
    """A bundled spec, synthesized and compiled once per process."""
    from envfactory.runtime.environment import Environment
    from envfactory.synth import synthesize

    return Environment(synthesize(bundled_specs_dir() / BUNDLED[name], name=name, trust_code=True))  # our own files


def load(source: str | Path, *, trust_code: bool = False) -> Environment:
    """``envfactory.load``: an environment, ready for episodes — a folder written by ``envfactory synth``
    (``envs/shop``) or a bundled name (``"shop"``). Tool *descriptions* are read by ``envfactory.load_spec``
    and made into an environment by ``envfactory.synthesize``."""
    from envfactory.errors import EnvSpecError
    from envfactory.runtime.environment import Environment

    path = Path(source)
    if (path / "env.json").is_file():
        return Environment.load(path, trust_code=trust_code)
    if isinstance(source, str) and source in BUNDLED:
        return bundled_environment(source)
    raise EnvSpecError(
        f"{source}: neither an environment folder (no env.json; `envfactory synth` writes one) nor a bundled "
        f"environment ({', '.join(BUNDLED)}); for tool descriptions use envfactory.load_spec or envfactory.synthesize"
    )


@cache
def bundled_tasks(name: str) -> tuple[Task, ...]:
    """The tasks ``gymnasium.make("envfactory/<name>")`` draws from when given none (seeded, made once)."""
    from envfactory.gym_env import drawn_tasks

    return tuple(drawn_tasks(bundled_environment(name)))


def make_bundled(name: str, tasks: list[Task] | str | Path | None = None, **kwargs: Any) -> ToolEnv:
    """``gymnasium.make("envfactory/<name>", tasks=...)``: ``reset`` draws one of ``tasks`` (a list or a
    JSON-lines file), or of :func:`bundled_tasks` without them; ``reset(options={"task": t})`` picks one."""
    from envfactory.gym_env import ToolEnv

    return ToolEnv(bundled_environment(name), tasks=list(bundled_tasks(name)) if tasks is None else tasks, **kwargs)


def register_envs() -> None:
    """Register ``envfactory/<name>`` for each bundled spec (idempotent)."""
    import gymnasium

    for name in BUNDLED:
        env_id = f"envfactory/{name}"
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id,
                entry_point="envfactory.bundled:make_bundled",
                kwargs={"name": name},
                disable_env_checker=True,
            )


def register_when_imported() -> None:
    """Register now if Gymnasium is loaded, else right after whoever imports it first."""
    if "gymnasium" in sys.modules:
        register_envs()
    elif not any(isinstance(f, _AfterGymnasium) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterGymnasium())


class _AfterGymnasium(importlib.abc.MetaPathFinder):
    """Finds ``gymnasium`` the usual way and registers the bundled ids once its module has run."""

    def find_spec(self, name: str, path: Any = None, target: ModuleType | None = None) -> ModuleSpec | None:
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader
        run = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            register_envs()

        loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec

"""envfactory: tool descriptions in, executable and verifiable agent environments out.

>>> import envfactory
>>> spec = envfactory.synthesize("specs/shop.yaml")
>>> episode = envfactory.Environment(spec).episode()
>>> episode.call_tool("get_order", {"order_id": "order_0001"}).ok
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from envfactory.bundled import register_envs, register_when_imported
from envfactory.errors import EnvFactoryError, EnvSpecError, SpecError, SynthesisError

__version__ = "0.1.0"

# Public names load on first use (PEP 562): `envfactory --help` and `import envfactory` stay fast.
_LAZY = {
    "load": "envfactory.bundled",
    "load_spec": "envfactory.ingest",
    "load_toolset": "envfactory.ingest",
    "EnvSpec": "envfactory.ir",
    "Goal": "envfactory.ir",
    "Task": "envfactory.ir",
    "ToolSet": "envfactory.ir",
    "ToolSpec": "envfactory.ir",
    "Verdict": "envfactory.ir",
    "Environment": "envfactory.runtime.environment",
    "Episode": "envfactory.runtime.episode",
    "ToolEnv": "envfactory.gym_env",
    "register_env_dir": "envfactory.gym_env",
    "ToolResult": "envfactory.runtime.result",
    "synthesize": "envfactory.synth",
    "FidelityReport": "envfactory.synth.selfcheck",
    "self_check": "envfactory.synth.selfcheck",
}

_ATTRIBUTE = {"load_spec": "load"}  # public name -> the module's own

if TYPE_CHECKING:
    from envfactory.bundled import load
    from envfactory.gym_env import ToolEnv, register_env_dir
    from envfactory.ingest import load as load_spec
    from envfactory.ingest import load_toolset
    from envfactory.ir import EnvSpec, Goal, Task, ToolSet, ToolSpec, Verdict
    from envfactory.runtime.environment import Environment
    from envfactory.runtime.episode import Episode
    from envfactory.runtime.result import ToolResult
    from envfactory.synth import synthesize
    from envfactory.synth.selfcheck import FidelityReport, self_check


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'envfactory' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _ATTRIBUTE.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


register_when_imported()


__all__ = [
    "EnvFactoryError",
    "EnvSpec",
    "EnvSpecError",
    "Environment",
    "Episode",
    "FidelityReport",
    "Goal",
    "SpecError",
    "SynthesisError",
    "Task",
    "ToolEnv",
    "ToolResult",
    "ToolSet",
    "ToolSpec",
    "Verdict",
    "__version__",
    "load",
    "load_spec",
    "load_toolset",
    "register_env_dir",
    "register_envs",
    "self_check",
    "synthesize",
]

"""envfactory: tool descriptions in, executable and verifiable agent environments out.

>>> import envfactory
>>> spec = envfactory.synthesize("specs/shop.yaml")
>>> episode = envfactory.Environment(spec).episode()
>>> episode.call_tool("get_order", {"order_id": "order_0001"}).ok
True
"""

from envfactory.errors import EnvFactoryError, EnvSpecError, SpecError, SynthesisError
from envfactory.ingest import load, load_toolset
from envfactory.ir import EnvSpec, Goal, Task, ToolSet, ToolSpec, Verdict
from envfactory.runtime.environment import Environment
from envfactory.runtime.episode import Episode
from envfactory.runtime.gym_env import ToolEnv, register_env_dir, register_envs
from envfactory.runtime.result import ToolResult
from envfactory.synth import synthesize
from envfactory.synth.selfcheck import FidelityReport, self_check

__version__ = "0.1.0"

register_envs()

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
    "load_toolset",
    "register_env_dir",
    "register_envs",
    "self_check",
    "synthesize",
]

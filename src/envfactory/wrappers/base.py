"""EpisodeWrapper (delegation with overridable seams) and the Randomization config."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from envfactory.core import EpisodeLike, ErrorCode
from envfactory.ir.task import Task
from envfactory.registry import Registry
from envfactory.runtime.episode import act_on
from envfactory.runtime.result import ToolResult
from envfactory.seeding import derive_seed

JSON = dict[str, Any]


class EpisodeWrapper:
    """Wraps an Episode (or another wrapper); everything not overridden is delegated.

    Subclasses override ``call_tool``, ``tools``, ``opening`` or ``respond``; ``act`` is built on
    them, so an OpenAI message sees the wrapped behaviour. ``on_reset`` draws the episode's
    perturbation from ``derive_seed(config, seed)``: the same seed gives the same perturbation.
    """

    family = "base"

    def __init__(self, inner: EpisodeLike, config: BaseModel) -> None:
        self.inner = inner
        self.config = config
        self.rng = random.Random(0)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def reset(self, task: Task | None = None, seed: int | None = None) -> list[JSON]:
        self.inner.reset(task=task, seed=seed)
        self.rng = random.Random(derive_seed(self.family, self.config.model_dump_json(), self.seed))
        self.on_reset()
        return self.opening()

    def on_reset(self) -> None:
        return None

    def opening(self) -> list[JSON]:
        return self.inner.opening()

    def call_tool(self, name: str, arguments: JSON | str | None = None) -> ToolResult:
        return self.inner.call_tool(name, arguments)

    def respond(self, text: str) -> list[JSON]:
        return self.inner.respond(text)

    def reject(self, message: str, code: ErrorCode = "invalid_arguments") -> ToolResult:
        return self.inner.reject(message, code)

    def act(self, message: JSON) -> list[JSON]:
        return act_on(self, message)

    @property
    def tools(self) -> list[JSON]:
        return self.inner.tools

    @property
    def randomization(self) -> dict[str, Any]:
        below = getattr(self.inner, "randomization", {})
        return {**below, self.family: self.config.model_dump(mode="json")}

    def snapshot(self) -> JSON:
        return {**self.inner.snapshot(), "randomization": self.randomization}


@dataclass(frozen=True)
class Family:
    config: type[BaseModel]
    wrapper: Callable[[Any, Any], EpisodeWrapper]
    sample: Callable[[random.Random], BaseModel]
    stress: BaseModel  # every perturbation of the family at once, at the top of its range (for evaluation)


FAMILIES: Registry[Family] = Registry("randomization family")


class Randomization(BaseModel):
    """Which families to apply, each a fixed config, ``"random"`` (drawn per episode) or
    ``"stress"`` (the family's hardest setting, for robustness evaluation).

    ``{"output": "random", "faults": {"transient_rate": 0.2}}`` is valid JSON for this model.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    output: JSON | str | None = None
    faults: JSON | str | None = None
    descriptions: JSON | str | None = None
    users: JSON | str | None = None

    def families(self) -> list[str]:
        return [name for name in FAMILIES if getattr(self, name) is not None]

    def resolve(self, rng: random.Random) -> dict[str, BaseModel]:
        """Concrete configs: fixed ones validated, ``"random"`` ones sampled."""
        out: dict[str, BaseModel] = {}
        for name in self.families():
            family, value = FAMILIES[name], getattr(self, name)
            if value == "random":
                out[name] = family.sample(rng)
            elif value == "stress":
                out[name] = family.stress
            elif isinstance(value, dict):
                out[name] = family.config.model_validate(value)
            else:
                raise ValueError(f"randomization {name!r}: expected 'random', 'stress' or an object, got {value!r}")
        return out


def conditions(levels: tuple[str, ...] = ("random", "stress")) -> list[str]:
    """The settings a robustness table reports: ``none``, then ``family:level`` for each level and family."""
    return ["none", *(f"{family}:{level}" for level in levels for family in FAMILIES)]


def condition(name: str) -> Randomization | None:
    """``none`` -> None; ``faults`` or ``faults:random`` -> drawn per episode; ``faults:stress``."""
    family, _, level = name.partition(":")
    return None if family == "none" else Randomization(**{family: level or "random"})


def randomize(episode: EpisodeLike, randomization: Randomization, seed: int = 0) -> EpisodeLike:
    """Stack the wrappers of ``randomization`` around ``episode`` (configs drawn from ``seed``)."""
    configs = randomization.resolve(random.Random(derive_seed("randomize", seed)))
    wrapped = episode
    for name, config in configs.items():
        wrapped = FAMILIES[name].wrapper(wrapped, config)
    return wrapped

"""A scripted episode that touches every tool once, in a natural order (for demos and tests)."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from envfactory.runtime.environment import Environment
from envfactory.seeding import derive_seed
from envfactory.synth.arguments import ready_arguments
from envfactory.values import ValueMaker

ORDER = {
    "list": 0,
    "read": 1,
    "create": 2,
    "update": 3,
    "action": 4,
    "transfer": 5,
    "bound": 6,
    "served": 6,
    "fallback": 7,
    "delete": 8,
}


@dataclass
class SmokeRun:
    env: str
    calls: list[tuple[str, bool, str]] = field(default_factory=list)  # tool, ok, content
    step_us: list[float] = field(default_factory=list)
    state_hash: str = ""

    @property
    def ok(self) -> int:
        return sum(ok for _, ok, _ in self.calls)

    @property
    def median_us(self) -> float:
        return statistics.median(self.step_us) if self.step_us else 0.0


def smoke_episode(env: Environment, seed: int = 0) -> SmokeRun:
    spec = env.spec
    episode = env.episode(max_steps=len(spec.behaviours) + 2)
    episode.reset(seed=seed)
    maker = ValueMaker(derive_seed(seed, "smoke", spec.name), spec.config.clock_start)
    run = SmokeRun(env=spec.name)
    for behaviour in sorted(spec.behaviours, key=lambda b: ORDER.get(b.effect.kind, 9)):
        args = ready_arguments(spec, behaviour, episode.store, maker)
        start = time.perf_counter()
        result = episode.call_tool(behaviour.tool, args)
        run.step_us.append((time.perf_counter() - start) * 1e6)
        run.calls.append((behaviour.tool, result.ok, result.content))
    episode.respond("All done.")
    run.state_hash = episode.state_hash()
    return run

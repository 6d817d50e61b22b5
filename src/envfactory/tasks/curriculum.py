"""A curriculum scheduler: start with the easiest level, unlock the next as success rises.

Pure and seeded: feed it outcomes with :meth:`record`, ask :meth:`next_level` what to train on.
The frontier (the hardest unlocked level) gets most draws; easier unlocked levels keep a share
(``review``) so that they are not forgotten.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field


@dataclass
class Curriculum:
    levels: list[int]
    threshold: float = 0.7  # success rate at the frontier that unlocks the next level
    window: int = 50  # outcomes remembered per level
    min_trials: int = 20  # outcomes needed before a level can unlock the next
    review: float = 0.2  # share of draws from easier unlocked levels
    unlocked: int = 1  # how many levels are open
    history: dict[int, deque[bool]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.levels:
            raise ValueError("a curriculum needs at least one level")
        self.levels = sorted(set(self.levels))
        self.history = {level: deque(maxlen=self.window) for level in self.levels}

    @property
    def frontier(self) -> int:
        return self.levels[self.unlocked - 1]

    def success_rate(self, level: int) -> float | None:
        outcomes = self.history[level]
        return sum(outcomes) / len(outcomes) if outcomes else None

    def record(self, level: int, success: bool) -> None:
        self.history[level].append(success)
        frontier = self.history[self.frontier]
        if (
            self.unlocked < len(self.levels)
            and len(frontier) >= self.min_trials
            and sum(frontier) / len(frontier) >= self.threshold
        ):
            self.unlocked += 1

    def next_level(self, rng: random.Random) -> int:
        easier = self.levels[: self.unlocked - 1]
        if easier and rng.random() < self.review:
            return rng.choice(easier)
        return self.frontier

"""EpisodeSnapshot: the wire format of ``Episode.snapshot()``, validated before anything is restored."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from envfactory.ir.task import Task

JSON = dict[str, Any]


class StoreSnapshot(BaseModel):
    """What an episode changed: per entity, ``[key, row]`` pairs (``row`` null when deleted)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base: StrictStr
    overlay: dict[str, list[tuple[StrictStr | StrictInt, JSON | None]]] = Field(default_factory=dict)
    counters: dict[str, StrictInt] = Field(default_factory=dict)


class EpisodeSnapshot(BaseModel):
    """Everything needed to continue an episode in another process that loaded the same EnvSpec."""

    model_config = ConfigDict(frozen=True, extra="allow")  # wrappers add their own keys

    env: StrictStr
    store: StoreSnapshot
    steps: StrictInt = Field(ge=0)
    seed: StrictInt
    terminated: StrictBool
    truncated: StrictBool
    replies: list[StrictStr] = Field(default_factory=list)
    task: Task | None = None
    log: list[tuple[StrictStr, Any, StrictStr | None, StrictStr | None]] = Field(default_factory=list)
    owner: Any = None  # a bound implementation's state, for checking the replay

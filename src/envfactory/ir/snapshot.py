"""EpisodeSnapshot: the wire format of ``Episode.snapshot()``, validated before anything is restored."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from envfactory.ir.task import Task

JSON = dict[str, Any]


class StoreSnapshot(BaseModel):
    """What an episode changed: per entity, ``[key, row]`` pairs (``row`` null when deleted).

    Every member is required: a snapshot without ``overlay`` would restore the initial state, not the
    episode's, and say nothing (``Episode.snapshot()`` always writes them all)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base: StrictStr
    overlay: dict[str, list[tuple[StrictStr | StrictInt, JSON | None]]]
    counters: dict[str, StrictInt]


class EpisodeSnapshot(BaseModel):
    """Everything needed to continue an episode in another process that loaded the same EnvSpec."""

    model_config = ConfigDict(frozen=True, extra="allow")  # wrappers add their own keys

    env: StrictStr
    store: StoreSnapshot
    steps: StrictInt = Field(ge=0)
    seed: StrictInt
    terminated: StrictBool
    truncated: StrictBool
    # required like the store's members: a missing transcript or task is a malformed snapshot, not an empty one
    replies: list[StrictStr]
    task: Task | None
    log: list[tuple[StrictStr, Any, StrictStr | None, StrictStr | None]]
    owner: Any = None  # a bound implementation's state, for checking the replay

"""What a served environment keeps: every finished episode's trajectory, written as it ends.

A trajectory is appended to a JSON-lines file (the format ``envfactory export`` and the trainers
read) and handed to the operating system before the step that ended the episode answers, so a
finished trajectory survives whatever happens to the server process afterwards: a graceful
shutdown, a crash, ``kill -9`` (not a power cut: the file is not synced to the disk per episode,
which would cost about a millisecond each). A line is one ``write`` to a file opened for
appending, which the kernel appends whole; it is serialized straight from the trajectory's fields
and the episode's messages (the line is the copy: nothing is copied before it is written), the
same JSON as ``trajectory.model_dump(mode="json")`` with those messages. Sessions are counted as they open and close, so
``/metrics`` shows whether any leaked, and how many ended unfinished (abandoned).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from pydantic import BaseModel

from envfactory.ir.trajectory import Trajectory

JSON = dict[str, Any]


class Recorder:
    """Thread-safe trajectory log and session counters for one server. ``path=None`` keeps the
    counters only."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._fd: int | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
        self.saved = self.sessions_opened = self.sessions_open = self.abandoned = 0

    def save(self, trajectory: Trajectory, messages: Sequence[JSON] | None = None) -> None:
        """Append ``trajectory``, with ``messages`` as its messages when given (the episode's own
        list, serialized as it is now)."""
        line = trajectory_line(trajectory, messages)
        with self._lock:
            if self._fd is not None:
                _write_all(self._fd, line)
            self.saved += 1

    def opened(self) -> None:
        with self._lock:
            self.sessions_opened += 1
            self.sessions_open += 1

    def closed(self, unfinished: bool) -> None:
        with self._lock:
            self.sessions_open -= 1
            self.abandoned += unfinished

    def metrics(self) -> dict[str, Any]:
        return {"sessions_opened": self.sessions_opened, "sessions_open": self.sessions_open,
                "trajectories_saved": self.saved, "episodes_abandoned": self.abandoned,
                "trajectories_file": str(self.path) if self.path else None}  # fmt: skip

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


def trajectory_line(trajectory: Trajectory, messages: Sequence[JSON] | None = None) -> bytes:
    """``trajectory`` as one JSON line (its fields in order, ``messages`` in place of its own when
    given): orjson over the fields themselves, ``json`` for what orjson refuses (integers past 64
    bits in a message)."""
    fields = trajectory.__dict__ if messages is None else {**trajectory.__dict__, "messages": messages}
    try:
        return orjson.dumps(fields, default=as_plain) + b"\n"
    except TypeError:  # written as ASCII: a lone surrogate is escaped, never invalid UTF-8 in the file
        return json.dumps(fields, default=as_plain, separators=(",", ":")).encode() + b"\n"


def as_plain(value: Any) -> Any:
    """A pydantic model inside a value being serialized, as its JSON dump (a ``default=`` for
    orjson and ``json``)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    raise TypeError(f"{type(value).__name__} is not JSON")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


__all__ = ["Recorder", "as_plain", "trajectory_line"]

"""What a served environment keeps: every finished episode's trajectory, written as it ends.

A trajectory is appended to a JSON-lines file (the format ``envfactory export`` and the trainers
read) and handed to the operating system before the step that ended the episode answers, so a
finished trajectory survives whatever happens to the server process afterwards: a graceful
shutdown, a crash, ``kill -9`` (not a power cut: the file is not synced to the disk per episode,
which would cost about a millisecond each). Sessions are counted as they open and close, so
``/metrics`` shows whether any leaked, and how many ended unfinished (abandoned).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import orjson

from envfactory.ir.trajectory import Trajectory


class Recorder:
    """Thread-safe trajectory log and session counters for one server. ``path=None`` keeps the
    counters only."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._file = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("ab")
        self.saved = self.sessions_opened = self.sessions_open = self.abandoned = 0

    def save(self, trajectory: Trajectory) -> None:
        line = orjson.dumps(trajectory.model_dump(mode="json")) + b"\n"
        with self._lock:
            if self._file is not None:
                self._file.write(line)
                self._file.flush()
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
            if self._file is not None:
                self._file.close()
                self._file = None


__all__ = ["Recorder"]

"""A response cache in SQLite, keyed by the model and the full request: reruns and tests are
cheap and deterministic. Hits and misses are counted in the client's ``Stats``."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from envfactory.llm.types import ChatRequest, ChatResponse, LLMClient, Stats


def request_key(model: str, request: ChatRequest, scope: str = "") -> str:
    """The cache key: the endpoint (``scope``), the model and the whole request."""
    body = json.dumps({"scope": scope, "model": model, **request.model_dump(mode="json")}, sort_keys=True,
                      ensure_ascii=True)  # fmt: skip
    return hashlib.sha256(body.encode()).hexdigest()


class CachedClient:
    def __init__(self, inner: LLMClient, path: Path, *, stats: Stats | None = None, scope: str = "") -> None:
        self.inner, self.model, self.path, self.scope = inner, inner.model, Path(path), scope
        self.stats = stats or Stats()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, response TEXT NOT NULL)")

    def chat(self, request: ChatRequest) -> ChatResponse:
        key = request_key(self.model, request, self.scope)
        with self._lock:
            row = self._db.execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        if row is not None:
            self.stats.cache_hits += 1
            return ChatResponse.model_validate_json(row[0]).model_copy(update={"cached": True})
        self.stats.cache_misses += 1
        response = self.inner.chat(request)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, response) VALUES (?, ?)", (key, response.model_dump_json())
            )
        return response

    def close(self) -> None:
        self._db.close()


__all__ = ["CachedClient", "request_key"]

"""One client interface for every model: ``LLMClient.chat(ChatRequest) -> ChatResponse``.

``make_client("openai:NAME", base_url=...)`` talks to any OpenAI-compatible endpoint (vLLM,
SGLang, Ollama, llama.cpp's server, hosted APIs); ``make_client("local")`` runs the embedded
SmolLM2-135M on the CPU with no network. Every client made by ``make_client`` is wrapped in
:class:`Managed` — retries with exponential backoff, a concurrency limit, token and time
accounting — and, unless ``cache=None``, in the SQLite response cache.
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from envfactory.errors import EnvFactoryError
from envfactory.llm.types import ChatRequest, ChatResponse, LLMClient, LLMError, LLMUnavailable, Stats
from envfactory.registry import Registry


class Managed:
    """Retries (``retries`` times, backoff doubling from ``backoff`` seconds, with jitter), at most
    ``concurrency`` requests in flight, and accounting in ``stats`` (shared with the cache)."""

    def __init__(
        self,
        inner: LLMClient,
        *,
        retries: int = 3,
        backoff: float = 0.5,
        concurrency: int = 4,
        stats: Stats | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.inner, self.model = inner, inner.model
        self.retries, self.backoff, self.sleep = retries, backoff, sleep
        self.stats = stats or Stats()
        self._slots = threading.BoundedSemaphore(max(1, concurrency))
        self._jitter = random.Random(0)

    def chat(self, request: ChatRequest) -> ChatResponse:
        with self._slots:
            for attempt in range(self.retries + 1):
                start = time.perf_counter()
                try:
                    response = self.inner.chat(request)
                except LLMUnavailable:
                    if attempt == self.retries:
                        raise
                    self.stats.retries += 1
                    self.sleep(self.backoff * 2**attempt * (1 + 0.1 * self._jitter.random()))
                    continue
                self.stats.add(response, time.perf_counter() - start)
                return response
        raise AssertionError("unreachable")


Factory = Callable[[str, "ClientOptions"], LLMClient]
BACKENDS: Registry[Factory] = Registry("model backend")


@dataclass(frozen=True)
class ClientOptions:
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 60.0


CACHE_FOLDER = ".envfactory"


def default_cache() -> Path:
    """The response cache of the project at hand: ``$ENVFACTORY_CACHE/llm.sqlite`` where the user points
    elsewhere, else ``.envfactory/llm.sqlite`` in the current folder. One shared cache across checkouts
    would answer one project's requests with another's responses (a hit from code that is not this code)."""
    folder = os.environ.get("ENVFACTORY_CACHE")
    return (Path(folder) if folder else Path.cwd() / CACHE_FOLDER) / "llm.sqlite"


def make_client(
    spec: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    timeout: float = 60.0,
    cache: Path | Literal["default"] | None = "default",
    retries: int = 3,
    concurrency: int = 4,
) -> Managed:
    """``local`` (the embedded model) or ``BACKEND:MODEL`` (``openai:gpt-4o-mini``,
    ``openai:Qwen/Qwen2.5-7B-Instruct`` with ``base_url`` of a vLLM server). The API key comes
    from ``api_key``, else ``ENVFACTORY_API_KEY``, else ``OPENAI_API_KEY``. ``cache``: a SQLite file,
    ``None`` for none, or ``"default"``: :func:`default_cache`, the project's own."""
    backend, _, model = spec.partition(":")
    if backend not in BACKENDS:
        raise EnvFactoryError(
            f"unknown model {spec!r}: use 'local' or one of {', '.join(f'{b}:MODEL' for b in BACKENDS if b != 'local')}"
        )
    key = api_key or os.environ.get("ENVFACTORY_API_KEY") or os.environ.get("OPENAI_API_KEY")
    inner: LLMClient = BACKENDS[backend](model, ClientOptions(base_url=base_url, api_key=key, timeout=timeout))
    stats = Stats()
    if cache is not None:
        from envfactory.llm.cache import CachedClient

        inner = CachedClient(inner, default_cache() if cache == "default" else cache, stats=stats, scope=base_url or "")
    return Managed(inner, retries=retries, concurrency=concurrency, stats=stats)


def _openai(model: str, options: ClientOptions) -> LLMClient:
    from envfactory.llm.openai_backend import OpenAIClient

    if not model:
        raise EnvFactoryError("openai:MODEL needs a model name, e.g. openai:gpt-4o-mini")
    return OpenAIClient(model, base_url=options.base_url, api_key=options.api_key, timeout=options.timeout)


def _local(model: str, options: ClientOptions) -> LLMClient:
    from envfactory.llm.local import LocalClient

    return LocalClient()


BACKENDS.add("openai", _openai)
BACKENDS.add("local", _local)

__all__ = [
    "BACKENDS",
    "ClientOptions",
    "LLMClient",
    "LLMError",
    "LLMUnavailable",
    "Managed",
    "Stats",
    "default_cache",
    "make_client",
]

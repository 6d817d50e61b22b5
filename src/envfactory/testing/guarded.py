"""A guarded echo server on loopback: the serving guard's deadlines, with nothing behind them.

The tests and ``bench/hostile_security.py`` hold slow clients (half a header, a body that stops)
against it; every request that arrives whole is answered ``200 ok``.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


async def _echo(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"ok"})


@contextmanager
def guarded_echo(limit_s: float) -> Iterator[int]:
    """The port of a running guarded echo server whose header and body deadlines are ``limit_s``."""
    import uvicorn

    from envfactory.serve.guard import Guard, server_options

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(Guard(_echo, body_s=limit_s), host="127.0.0.1", port=port,
                                           log_level="error", **server_options(header_s=limit_s)))  # fmt: skip
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


__all__ = ["guarded_echo"]

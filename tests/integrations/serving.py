"""An ASGI app served by uvicorn on a free loopback port, in a thread, for the duration of a test."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn

from envfactory.serve.inline import InlineWebSocketProtocol


@contextlib.contextmanager
def running(app: Any, **options: Any) -> Iterator[str]:
    """Serve ``app`` (``options``: more of uvicorn's settings; WebSockets by the protocol
    ``envfactory serve`` runs, unless ``ws`` says otherwise); yields its base URL
    (``http://127.0.0.1:PORT``)."""
    options.setdefault("ws", InlineWebSocketProtocol)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", **options))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)

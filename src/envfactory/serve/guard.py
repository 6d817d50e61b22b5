"""A guard in front of a served environment: an optional bearer token, a request-size limit and
counters, for HTTP and WebSocket alike (a plain ASGI middleware, so it sees both).

``Authorization: Bearer TOKEN`` (or ``?token=TOKEN`` on a WebSocket, which browsers cannot give
headers) is required everywhere but ``/health`` when a token is set: a missing or wrong one is
``401`` (a WebSocket is closed with code 1008). A body over ``max_body`` bytes is ``413`` before
the app reads any of it, whether or not it declared its length. ``GET /metrics`` answers the
counters as JSON: requests by status, refusals by reason, WebSocket sessions opened and open (and
what ``extra`` adds: episodes, saved trajectories). A
WebSocket session silent for ``idle_s`` seconds is ended (close code 1001) and its episode freed.
A request body that has not fully arrived within ``body_s`` seconds is ``408`` (a slow client
holds no connection open); uvicorn's own timeouts bound idle
keep-alive connections, ``server_options()`` adds a header deadline uvicorn lacks.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import json
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, ClassVar
from urllib.parse import parse_qs

from starlette.websockets import WebSocketDisconnect
from uvicorn.protocols.http.h11_impl import H11Protocol

from envfactory.serve.inline import InlineWebSocketProtocol

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
OPEN_PATHS = frozenset({"/health"})
MAX_BODY = 1 << 20
IDLE_S = 300.0
BODY_S = 10.0
HEADER_S = 10.0
MIN_CONNECTIONS = 512  # uvicorn's limit_concurrency when sessions are few
HTTP_HEADROOM = 64  # connections beyond the sessions, for plain HTTP requests
FILE_HEADROOM = 256  # open files beyond the connections: the environment's, the log's, the interpreter's
HEARD = "envfactory.heard"  # scope key: a WebSocket session's idle watch, told of a message answered inline


class DeadlineH11(H11Protocol):  # type: ignore[misc]
    """uvicorn's h11 protocol with a header deadline: a connection whose request line and headers
    have not all arrived ``header_s`` seconds after it opened (or after its last response) is
    closed. uvicorn has no such limit of its own: a client that sends half a header holds the
    connection forever."""

    header_s: ClassVar[float] = HEADER_S
    _deadline: Any = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not None and not self.cycle.response_complete and self._deadline is not None:
            self._deadline.cancel()  # the headers are in: the app's own limits take over
            self._deadline = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.header_s, self._expire)

    def _expire(self) -> None:
        self._deadline = None
        waiting = self.cycle is None or self.cycle.response_complete
        if waiting and self.transport.get_protocol() is self and not self.transport.is_closing():
            self.transport.close()


def _deadline_protocol(header_s: float) -> type | str:
    """:class:`DeadlineH11` with ``header_s``: by its import path for the default deadline (what
    uvicorn's worker processes can be given: their settings are pickled), else a subclass."""
    if header_s == HEADER_S:
        return f"{__name__}:DeadlineH11"
    return type("DeadlineH11", (DeadlineH11,), {"header_s": header_s})


def max_connections(max_sessions: int) -> int:
    """The connections a server with ``max_sessions`` WebSocket sessions accepts: every session,
    and :data:`HTTP_HEADROOM` more for plain requests (``/health``, ``/metrics``, a refused
    session's answer), never fewer than :data:`MIN_CONNECTIONS`."""
    return max(MIN_CONNECTIONS, max_sessions + HTTP_HEADROOM)


def raise_file_limit(connections: int) -> int:
    """Raise this process's soft limit on open files so that ``connections`` sockets fit beside
    the files a server holds (as far as the hard limit allows); the new soft limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = connections + FILE_HEADROOM
    if soft != resource.RLIM_INFINITY and soft < wanted:
        soft = wanted if hard == resource.RLIM_INFINITY else min(hard, wanted)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


def server_options(header_s: float = HEADER_S, max_sessions: int = MIN_CONNECTIONS - HTTP_HEADROOM) -> dict[str, Any]:
    """uvicorn settings of every envfactory server: the header deadline, idle keep-alive connections
    closed after 5 s, at most :func:`max_connections` connections (past it uvicorn answers 503),
    headers within 64 KiB, WebSocket messages of inline sessions answered where they are read
    (:mod:`envfactory.serve.inline`). The process's open-file limit is raised to fit them. The
    protocols are given by import path where they can be, as uvicorn's worker processes need."""
    limit = max_connections(max_sessions)
    raise_file_limit(limit)
    return {"http": _deadline_protocol(header_s), "ws": "envfactory.serve.inline:InlineWebSocketProtocol",
            "timeout_keep_alive": 5, "limit_concurrency": limit,
            "h11_max_incomplete_event_size": 64 * 1024}  # fmt: skip


def quiet_gc() -> None:
    """Move everything a server process loaded at start-up out of the collector's reach, so that
    full collections (which otherwise walk the web stack's many objects) stay short while sessions
    step."""
    import gc

    gc.collect()
    gc.freeze()


class _IdleWatch:
    """One WebSocket session's idle limit, at no cost per message: a message only notes the time it
    came, and one timer per session wakes every ``idle_s`` seconds to see whether the session has
    been silent that long (then the wait for its next message ends, as if its client had left). A
    deadline re-armed per message (``asyncio.timeout`` around each receive) costs a timer heap push
    and a cancel per message, and the heap grows with the sessions."""

    def __init__(self, idle_s: float, on_expiry: Callable[[], None]) -> None:
        self.idle_s, self.on_expiry, self.expired = idle_s, on_expiry, False
        self.loop = asyncio.get_running_loop()
        self.last = self.loop.time()
        self.waiting: asyncio.Task[Any] | None = None
        self.timer: asyncio.TimerHandle | None = self.loop.call_at(self.last + idle_s, self._check)

    def _check(self) -> None:
        due = self.last + self.idle_s
        if self.loop.time() < due or self.waiting is None:  # heard from lately, or busy answering
            self.timer = self.loop.call_at(max(due, self.loop.time() + self.idle_s / 8), self._check)
            return
        self.timer, self.expired = None, True
        self.on_expiry()
        self.waiting.cancel()

    def heard(self) -> None:
        """A message of the session was answered without passing through :meth:`receive`
        (:mod:`envfactory.serve.inline`)."""
        self.last = self.loop.time()

    async def receive(self, receive: Receive) -> Message:
        if self.expired:
            return {"type": "websocket.disconnect", "code": 1001}
        self.waiting, self.last = asyncio.current_task(), self.loop.time()
        try:
            message = await receive()
        except asyncio.CancelledError:
            if not self.expired or self.waiting is None:
                raise
            self.waiting.uncancel()  # our own cancel: the session is over, the task goes on to close it
            return {"type": "websocket.disconnect", "code": 1001}
        finally:
            self.waiting = None
        self.last = self.loop.time()
        return message

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class Guard:
    def __init__(self, app: ASGIApp, *, token: str | None = None, max_body: int = MAX_BODY,
                 idle_s: float = IDLE_S, extra: Callable[[], dict[str, Any]] | None = None,
                 body_s: float = BODY_S) -> None:  # fmt: skip
        self.app, self.token, self.max_body, self.idle_s, self.extra = app, token, max_body, idle_s, extra
        self.body_s = body_s
        self.statuses: Counter[int] = Counter()
        self.refused: Counter[str] = Counter()
        self.sockets_opened = self.sockets_open = 0

    def metrics(self) -> dict[str, Any]:
        by_status = {str(k): v for k, v in sorted(self.statuses.items())}
        return {"requests": sum(self.statuses.values()), "by_status": by_status, "refused": dict(self.refused),
                "websockets_opened": self.sockets_opened, "websockets_open": self.sockets_open,
                "websocket_messages_answered_inline": InlineWebSocketProtocol.answered,
                **(self.extra() if self.extra is not None else {})}  # fmt: skip

    def _allowed(self, scope: Scope) -> bool:
        if not self.token or scope.get("path") in OPEN_PATHS:
            return True
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers") or ()}
        given = headers.get("authorization", "")
        given = given[7:] if given.lower().startswith("bearer ") else ""
        if not given and scope["type"] == "websocket":
            given = (parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token") or [""])[0]
        return hmac.compare_digest(given.encode(), self.token.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._socket(scope, receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._allowed(scope):
            self.refused["token"] += 1
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return
        self.sockets_opened += 1
        self.sockets_open += 1
        watch = _IdleWatch(self.idle_s, lambda: self.refused.update(idle=1))
        scope[HEARD] = watch.heard
        patient = functools.partial(watch.receive, receive)  # a session silent too long leaves as if its client had

        closed = False

        async def sending(message: Message) -> None:
            nonlocal closed
            closed = closed or message["type"] == "websocket.close"
            await send(message)

        try:
            await self.app(scope, patient, sending)
            if watch.expired and not closed:
                await send({"type": "websocket.close", "code": 1001})
        except WebSocketDisconnect:  # the app closing a socket its client already dropped: nothing to tell
            self.refused["gone"] += 1
        finally:
            watch.stop()
            self.sockets_open -= 1

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("path") == "/metrics" and scope.get("method") == "GET" and self._allowed(scope):
            await _answer(send, 200, self.metrics())
            self.statuses[200] += 1
            return
        if not self._allowed(scope):
            self.refused["token"] += 1
            self.statuses[401] += 1
            await _answer(send, 401, {"error": {"code": "unauthorized", "message": "a bearer token is required"}})
            return
        try:
            async with asyncio.timeout(self.body_s):
                body = await self._body(receive, send)
        except TimeoutError:
            self.refused["slow"] += 1
            self.statuses[408] += 1
            late = f"the request body did not arrive within {self.body_s:g} s"
            await _answer(send, 408, {"error": {"code": "timeout", "message": late}}, close=True)
            return
        if body is None:
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        async def counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.statuses[int(message["status"])] += 1
            await send(message)

        await self.app(scope, replay, counted)

    async def _body(self, receive: Receive, send: Send) -> bytes | None:
        """The whole body (read first, so that an oversized one is refused before the app sees it),
        or None when the client left or the body was refused."""
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_body:
                self.refused["size"] += 1
                self.statuses[413] += 1
                limit = f"the request body is over {self.max_body} bytes"
                await _answer(send, 413, {"error": {"code": "too_large", "message": limit}})
                return None
        return body


async def _answer(send: Send, status: int, payload: dict[str, Any], close: bool = False) -> None:
    data = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


__all__ = [
    "BODY_S",
    "HEADER_S",
    "HEARD",
    "IDLE_S",
    "MAX_BODY",
    "DeadlineH11",
    "Guard",
    "max_connections",
    "quiet_gc",
    "raise_file_limit",
    "server_options",
]

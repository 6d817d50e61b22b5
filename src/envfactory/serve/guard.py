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
import hmac
import json
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from starlette.websockets import WebSocketDisconnect

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


def _deadline_protocol(header_s: float) -> type:
    """uvicorn's h11 protocol with a header deadline: a connection whose request line and headers
    have not all arrived ``header_s`` seconds after it opened (or after its last response) is
    closed. uvicorn has no such limit of its own: a client that sends half a header holds the
    connection forever."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class DeadlineH11(H11Protocol):  # type: ignore[misc]
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
                self._deadline = self.loop.call_later(header_s, self._expire)

        def _expire(self) -> None:
            self._deadline = None
            waiting = self.cycle is None or self.cycle.response_complete
            if waiting and self.transport.get_protocol() is self and not self.transport.is_closing():
                self.transport.close()

    return DeadlineH11


def server_options(header_s: float = HEADER_S) -> dict[str, Any]:
    """uvicorn settings of every envfactory server: the header deadline, idle keep-alive connections
    closed after 5 s, at most 512 connections, headers within 64 KiB."""
    return {"http": _deadline_protocol(header_s), "timeout_keep_alive": 5, "limit_concurrency": 512,
            "h11_max_incomplete_event_size": 64 * 1024}  # fmt: skip


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
        expired = False

        async def patient() -> Message:  # a session silent too long leaves as if its client had
            nonlocal expired
            try:
                async with asyncio.timeout(self.idle_s):  # no task per message, unlike wait_for
                    return await receive()
            except TimeoutError:
                expired = True
                self.refused["idle"] += 1
                return {"type": "websocket.disconnect", "code": 1001}

        closed = False

        async def sending(message: Message) -> None:
            nonlocal closed
            closed = closed or message["type"] == "websocket.close"
            await send(message)

        try:
            await self.app(scope, patient, sending)
            if expired and not closed:
                await send({"type": "websocket.close", "code": 1001})
        except WebSocketDisconnect:  # the app closing a socket its client already dropped: nothing to tell
            self.refused["gone"] += 1
        finally:
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


__all__ = ["BODY_S", "HEADER_S", "IDLE_S", "MAX_BODY", "Guard", "server_options"]

"""WebSocket messages answered in the callback that read them, for sessions that allow it.

uvicorn hands every WebSocket message to the ASGI app through a queue: the connection's task
wakes, the message climbs the app's ``receive`` wrappers, the reply goes down its ``send``
wrappers, and reading pauses and resumes around each message. For a session whose every answer
is a few microseconds of state transition, that hand-over is most of a served step
(``bench/serve.py``). :class:`InlineWebSocketProtocol` is uvicorn's own sans-I/O WebSocket
protocol with one change: while the app has put an *answerer* in the connection's scope under
:data:`ANSWER` (a function from a text message to its reply), a text message is answered there
and then, in ``data_received``, and never queued.

The app keeps the order of replies by offering the answerer only while it waits for the next
message (``envfactory.serve.sessions`` sets it before each ``receive`` and clears it after),
and a message goes to the app as before whenever

- no answerer is offered, or messages are already waiting in the queue (they come first);
- the client is not reading its replies (the transport's buffer is full): the app's ``send``
  waits for it, and reading pauses, as uvicorn does;
- the message is binary, or not valid UTF-8 (uvicorn's own handling applies);
- the connection is closing (the client's close frame came in the same read as the message):
  no reply may be sent, and uvicorn hands the app the message and then the disconnect;
- the answerer returns None: a message only the app may answer (``close``).

An answerer that raises (it answers every bad message itself, so only a fault of the server's
can) closes the connection with 1011, as uvicorn does when an app raises.

Frames, limits, pings and the closing handshake are uvicorn's and websockets' code, unchanged.
Pass the class as ``uvicorn.run(..., ws=InlineWebSocketProtocol)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, cast

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

ANSWER = "envfactory.answer"  # scope key: Callable[[str], str | None], offered by the app while it waits
Answerer = Callable[[str], "str | None"]


class InlineWebSocketProtocol(WebSocketsSansIOProtocol):  # type: ignore[misc]
    """uvicorn's ``websockets-sansio`` protocol, answering text messages inline while the app
    offers an answerer (module docstring). ``answered`` counts the messages answered inline in
    this process (``/metrics`` shows it)."""

    answered: ClassVar[int] = 0

    def send_receive_event_to_app(self) -> None:
        answer = cast("Answerer | None", self.scope.get(ANSWER))
        if (answer is None or self.curr_msg_data_type != "text" or self.close_sent or not self.queue.empty()
                or not self.writable.is_set() or self.conn.state is not State.OPEN):  # fmt: skip
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        try:
            text = data.decode()
        except UnicodeDecodeError:
            super().send_receive_event_to_app()  # uvicorn closes the connection with 1007
            return
        try:
            reply = answer(text)
        except Exception:  # a fault of the server's (the answerer answers every bad message itself)
            self._fail()
            return
        if reply is None:  # the app's to answer: queued as uvicorn queues it
            super().send_receive_event_to_app()
            return
        self.frames = []
        InlineWebSocketProtocol.answered += 1
        self.conn.send_text(reply.encode())
        self.transport.write(b"".join(self.conn.data_to_send()))

    def _fail(self) -> None:
        """Close the connection as uvicorn closes one whose app raised (1011, logged); the message is
        not handed on, so that nothing it may have done is done twice."""
        self.logger.exception("Exception answering a WebSocket message inline")
        self.frames = []
        self.queue.put_nowait({"type": "websocket.disconnect", "code": 1011})
        self.conn.fail(1011, "internal error")
        self.transport.write(b"".join(self.conn.data_to_send()))
        self.close_sent = True
        self.transport.close()


__all__ = ["ANSWER", "Answerer", "InlineWebSocketProtocol"]

"""A small OpenAI-compatible server for tests: it speaks the chat-completions wire format the
official client parses, and answers from a script (a function of the request), so the backend,
retries, the cache and the agent loop are exercised over real HTTP on a loopback port."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

JSON = dict[str, Any]
Script = Callable[[JSON], tuple[int, JSON]]


def completion(message: JSON, model: str = "fake-model") -> JSON:
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
    }


def tool_call(name: str, arguments: JSON, call_id: str = "call_1") -> JSON:
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


class FakeOpenAI:
    """``with FakeOpenAI(script) as server: server.url``; ``server.requests`` records every body."""

    def __init__(self, script: Script) -> None:
        self.script, self.requests = script, []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # the stdlib's name
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                owner.requests.append(body)
                status, payload = owner.script(body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

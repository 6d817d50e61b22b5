"""The security sections of ``bench/hostile.py`` (issue #24): each returns table rows
``(check, cases, bad outcomes (target 0), other outcomes)``. All traffic goes to 127.0.0.1,
bounded in count and time."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import envfactory
from envfactory.bundled import bundled_environment
from envfactory.errors import EnvFactoryError
from envfactory.ir.effect import Behaviour, CodeEffect, SimulatedEffect
from envfactory.runtime.environment import Environment
from envfactory.sandbox import _CHILD, ALLOWED, SandboxResult
from envfactory.testing.hostile_code import escapes, programs

Row = tuple[str, str, str, str]
SRC = str(Path(envfactory.__file__).parents[1])
INIT = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}
MCP_HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _rpc(rid: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}


def _unfenced(code: str, function: str, state: Any, args: Any, *, cpu_seconds: int = 2, memory_mb: int = 256,
              wall_seconds: float = 5.0) -> SandboxResult:  # fmt: skip
    """The previous sandbox (``python -I`` and the audit hook, no OS boundary), for comparison only."""
    payload = json.dumps({"code": code, "function": function, "state": state, "args": args})
    argv = [sys.executable, "-I", "-c", _CHILD, str(cpu_seconds), str(memory_mb), ",".join(ALLOWED)]
    try:
        done = subprocess.run(argv, input=payload, capture_output=True, text=True, timeout=wall_seconds, check=False)
        answer = json.loads(done.stdout)
        return SandboxResult(answer["outcome"], value=answer.get("value"), detail=str(answer.get("detail", "")))
    except (subprocess.TimeoutExpired, ValueError, KeyError):
        return SandboxResult("crash")


def sandbox() -> list[Row]:
    chosen = programs()
    found, escaped = escapes(chosen)
    kinds = sorted({p.kind for p in chosen})
    before, _ = escapes([p for p in chosen if p.kind != "floods"], runner=_unfenced)  # floods would hit this process
    bad = ", ".join(f"{k} {found[k]}" for k in kinds)
    was = ", ".join(f"{k} {before[k]}/{before[k + ' programs']}" for k in kinds if k != "floods")
    rows = [("generated code: hostile programs (hook switched off 5 ways)", f"{len(chosen)}", f"escapes: {bad}",
             f"the previous in-process fence let out: {was}")]  # fmt: skip
    rows += [(f"  escaped: {name}", "", "1", "") for name in escaped[:10]]
    return rows


def _spec_with(tool: str, effect: Any) -> Any:
    spec = bundled_environment("shop").spec
    behaviours = tuple(Behaviour(tool=b.tool, effect=effect, prior="plausible") if b.tool == tool else b
                       for b in spec.behaviours)  # fmt: skip
    return spec.model_copy(update={"behaviours": behaviours})


@contextmanager
def _trap() -> Iterator[tuple[str, list[bytes]]]:
    """An OpenAI-compatible address on loopback that records whatever reaches it."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    seen: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(self.rfile.read(int(self.headers.get("content-length") or 0)))
            self.send_response(500)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    finally:
        server.shutdown()
        server.server_close()


def consent(tmp: Path) -> list[Row]:
    """Folders whose behaviours run code or contact a model, used without --trust-code."""
    from typer.testing import CliRunner

    from envfactory.cli.main import app

    marker = tmp / "ran"
    planted = f"def run(state, args):\n    open({str(marker)!r}, 'w')\n    return {{'result': {{}}}}"
    runs = cases = 0
    with _trap() as (url, seen):
        folders = {
            "code": _spec_with("list_customers", CodeEffect(code=planted, entities=("customer",))).save(tmp / "code"),
            "simulated": _spec_with("list_customers", SimulatedEffect(model="openai:m", base_url=url,
                                                                      entities=("customer",))).save(tmp / "sim"),
        }  # fmt: skip
        runner = CliRunner()
        for folder in folders.values():
            for attempt in (
                lambda f: Environment.load(f).episode().call_tool("list_customers", {}),
                lambda f: runner.invoke(app, ["check", str(f)]),
                lambda f: runner.invoke(app, ["tasks", str(f), "--out", str(tmp / "t.jsonl"), "-n", "2"]),
                lambda f: _openenv(f).post("/reset", json={}),
            ):
                cases += 1
                with contextlib.suppress(EnvFactoryError):
                    attempt(folder)
                runs += int(marker.exists()) + len(seen)
                marker.unlink(missing_ok=True)
                seen.clear()
        # consent given: the simulated tool reaches the user's address, never the folder's
        os.environ.pop("ENVFACTORY_BASE_URL", None)
        os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
        os.environ["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"  # nothing listens there
        for _ in range(3):
            Environment.load(folders["simulated"], trust_code=True).episode().call_tool("list_customers", {})
        to_folder = len(seen)
    return [
        ("code / simulated folders without --trust-code (load, check, tasks, serve)", f"{cases}",
         f"runs without consent {runs}", "each refused with the tools it would run"),
        ("simulated tool with consent: requests to the address the folder names", "3", f"{to_folder}",
         "its address is the user's ENVFACTORY_BASE_URL"),
    ]  # fmt: skip


def _openenv(folder: Path, **kwargs: Any) -> Any:
    from starlette.testclient import TestClient

    from envfactory.integrations.openenv import make_app

    return TestClient(make_app(folder, {}, trajectories=folder / "t.jsonl", **kwargs), raise_server_exceptions=False)


def _mcp_http(folder: Path, **kwargs: Any) -> Any:
    from starlette.testclient import TestClient

    from envfactory.serve.mcp import http_app

    return TestClient(http_app(folder, {}, **kwargs), base_url="http://127.0.0.1:8000")


def _sse(response: Any) -> Any:
    lines = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
    return json.loads(lines[-1]) if lines else None


def serving(tmp: Path, sessions: int) -> list[Row]:
    shop = bundled_environment("shop")
    folder = shop.spec.save(tmp / "shop")
    rows: list[Row] = []
    # unauthenticated calls, per server mode
    let_in, tried = 0, 0
    client = _openenv(folder, token="t0k")
    for path, body in (("/reset", {}), ("/step", {"action": {}}), ("/state", None), ("/schema", None),
                       ("/metrics", None)):  # fmt: skip
        tried += 1
        answer = client.post(path, json=body) if body is not None else client.get(path)
        let_in += int(answer.status_code != 401)
    tried += 1
    try:
        with client.websocket_connect("/ws") as ws:
            ws.send_text(json.dumps({"type": "reset", "data": {}}))
            ws.receive_text()
            let_in += 1
    except Exception:  # closed with 1008
        pass
    with _mcp_http(folder, token="t0k") as mcp:
        for method in ("initialize", "tools/list", "tools/call"):
            tried += 1
            let_in += int(mcp.post("/mcp", json=_rpc(1, method, INIT), headers=MCP_HEADERS).status_code != 401)
    rows.append(("unauthenticated calls with a token set (OpenEnv HTTP, /ws, MCP HTTP)", f"{tried}", f"{let_in}",
                 "401 / close 1008"))  # fmt: skip
    # lost episodes: a live session while many others come and go
    lost, refused = _churn(folder, sessions)
    rows.append((f"live MCP HTTP session while {sessions:,} others open and close (max 4 live)", "1",
                 f"episodes lost {lost}", f"a fifth live session refused: {refused}"))  # fmt: skip
    # 500s
    bodies = ('{"task_id": ["a"]}', '{"task_id": {"a": 1}}', '{"seed": NaN}', '{"seed": 1e400}', '{"seed": -1e400}',
              '{"seed": 1e30}', '{"seed": "x"}', '{"episode_id": [1]}', "[1]", '"x"', "{",
              '{"seed": 100000000000000000000000}')  # fmt: skip
    client = _openenv(folder)
    fives = sum(client.post("/reset", content=b, headers={"content-type": "application/json"}).status_code >= 500
                for b in bodies)  # fmt: skip
    from envfactory.serve.mcp import EpisodeHost

    host = EpisodeHost(shop, {}, control=True)
    mcp_args = ({"task_id": ["a"]}, {"task_id": {"a": 1}}, {"seed": float("nan")}, {"seed": 2**80}, {"text": [1]})
    crashed = 0
    for args in mcp_args:
        try:
            host.call("env_reply" if "text" in args else "env_reset", args)
        except Exception:
            crashed += 1
    rows.append(("hostile reset fields (POST /reset, MCP env_reset)", f"{len(bodies) + len(mcp_args)}",
                 f"500s {fives}, MCP crashes {crashed}", "400/422 or a refusal naming the field"))  # fmt: skip
    # unanswered requests
    unanswered, asked = _unanswered(folder, client)
    rows.append(("hostile messages (/ws 100,000 deep; MCP stdio surrogates, 3,000 deep)", f"{asked}",
                 f"unanswered {unanswered}", "each answered; the session goes on"))  # fmt: skip
    return rows


def _churn(folder: Path, sessions: int) -> tuple[int, bool]:
    with _mcp_http(folder, max_sessions=4) as client:
        first = client.post("/mcp", json=_rpc(1, "initialize", INIT), headers=MCP_HEADERS)
        headers = dict(MCP_HEADERS, **{"mcp-session-id": first.headers["mcp-session-id"]})
        order = {"customer_id": "customer_0001", "product_id": "product_0001", "quantity": 1}
        made = _sse(client.post("/mcp", json=_rpc(2, "tools/call", {"name": "create_order", "arguments": order}),
                                headers=headers))  # fmt: skip
        order_id = json.loads(made["result"]["content"][0]["text"])["id"]
        others = [client.post("/mcp", json=_rpc(1, "initialize", INIT), headers=MCP_HEADERS) for _ in range(3)]
        refused = client.post("/mcp", json=_rpc(1, "initialize", INIT), headers=MCP_HEADERS).status_code >= 400
        for other in others:
            client.delete("/mcp", headers=dict(MCP_HEADERS, **{"mcp-session-id": other.headers["mcp-session-id"]}))
        for _ in range(sessions):
            other = client.post("/mcp", json=_rpc(1, "initialize", INIT), headers=MCP_HEADERS)
            sid = other.headers["mcp-session-id"]
            call = _rpc(2, "tools/list")
            client.post("/mcp", json=call, headers=dict(MCP_HEADERS, **{"mcp-session-id": sid}))
            client.delete("/mcp", headers=dict(MCP_HEADERS, **{"mcp-session-id": sid}))
        got = _sse(client.post("/mcp", json=_rpc(3, "tools/call", {"name": "get_order",
                                                                   "arguments": {"order_id": order_id}}),
                               headers=headers))  # fmt: skip
    return int(got is None or got["result"]["isError"]), refused


def _unanswered(folder: Path, client: Any) -> tuple[int, int]:
    missing = asked = 0
    with client.websocket_connect("/ws") as ws:
        for text in ("[" * 100_000 + "]" * 100_000, '{"type": "step", "data": ' + "{" * 5000 + "}" * 5000 + "}",
                     '{"type": "reset", "data": {"seed": NaN}}'):  # fmt: skip
            asked += 1
            ws.send_text(text)
            missing += int(not ws.receive_text())
    argv = [sys.executable, "-m", "envfactory.cli.main", "serve", str(folder), "--mcp"]
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env={**os.environ, "PYTHONPATH": SRC})  # fmt: skip
    assert proc.stdin and proc.stdout
    proc.stdin.write(json.dumps(_rpc(1, "initialize", INIT)) + "\n")
    proc.stdin.flush()
    proc.stdout.readline()
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    call = '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}'
    lines = {
        2: call % (2, "get_order", '{"order_id":"\\ud800"}'),
        3: call % (3, "get_order", '{"x":' + "[" * 3000 + "]" * 3000 + "}"),
        4: call % (4, "\\udfff", "{}"),
        5: json.dumps(_rpc(5, "tools/list")).replace("{}", "[" * 200 + "]" * 200),
    }  # fmt: skip
    for rid, line in lines.items():
        asked += 1
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        answer = json.loads(proc.stdout.readline() or "null")
        missing += int(not isinstance(answer, dict) or answer.get("id") != rid)
    proc.stdin.close()
    proc.wait()
    return missing, asked


def held_connections(count: int = 20, limit_s: float = 1.0) -> list[Row]:
    """Slow clients (half a header; a body that stops) against a guarded server with ``limit_s`` deadlines."""
    from envfactory.testing.guarded import guarded_echo

    with guarded_echo(limit_s) as port:
        conns = []
        for n in range(count):
            conn = socket.create_connection(("127.0.0.1", port))
            conn.sendall(
                b"GET / HTTP/1.1\r\nHost: x\r\n"
                if n % 2
                else b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\nab"
            )
            conns.append(conn)
        time.sleep(limit_s * 3)  # well past the deadline
        held = 0
        for conn in conns:
            conn.setblocking(False)
            try:
                while conn.recv(4096):
                    pass
                closed = True
            except BlockingIOError:  # nothing to read and not closed: still held
                closed = False
            except OSError:
                closed = True
            held += int(not closed)
            conn.close()
    return [(f"slow clients (half headers, stalled bodies; {limit_s:g} s deadlines)", f"{count}",
             f"held past the limit {held}", "closed, or answered 408")]  # fmt: skip


def leaked_processes() -> list[Row]:
    from envfactory.ingest.mcp import load_mcp_server
    from envfactory.testing.broken_mcp import MODES, marked

    rows: list[Row] = []
    for mode in MODES:
        start = time.perf_counter()
        try:
            load_mcp_server(f"{sys.executable} -m envfactory.testing.broken_mcp {mode} b{os.getpid()}", timeout=5,
                            env={"PYTHONPATH": SRC})  # fmt: skip
            outcome = "accepted?"
        except EnvFactoryError as err:
            outcome = str(err).split(": ", 2)[-1][:60]
        except Exception as err:  # a raw traceback
            outcome = f"RAW {type(err).__name__}"
        seconds = time.perf_counter() - start
        pgrep = ["pgrep", "-f", marked(f"b{os.getpid()}")]
        left = subprocess.run(pgrep, capture_output=True, text=True, check=False).stdout.split()
        for pid in left:
            subprocess.run(["kill", "-9", pid], check=False)
        raw = int(outcome.startswith("RAW"))
        rows.append((f"broken live MCP server: {mode}", "1", f"leaked processes {len(left)}, raw tracebacks {raw}",
                     f"{outcome} ({seconds:.1f} s)"))  # fmt: skip
    return rows


def security_rows(sessions: int) -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        return [*sandbox(), *consent(Path(tmp)), *serving(Path(tmp), sessions), *held_connections(),
                *leaked_processes()]  # fmt: skip


__all__ = ["security_rows"]

"""A deliberately broken MCP server over stdio, for tests and ``bench/hostile.py``:
``python -m envfactory.testing.broken_mcp MODE``.

Modes: ``hang`` (reads, never answers, and leaves a child running: ``MARK`` in its command line),
``die-on-list`` (answers ``initialize``, exits on ``tools/list``), ``error-on-list`` (answers
``tools/list`` with a JSON-RPC error), ``bad-schema`` (lists a tool whose input schema is a list).
"""

from __future__ import annotations

import json
import subprocess
import sys

MARK = "efbrokenmcpchild"


def marked(tag: str) -> str:
    """The mark a ``hang`` server started with ``tag`` puts in its child's command line: a run
    looks for its own leftovers only, not another run's on the same machine."""
    return f"{MARK}-{tag}" if tag else MARK


MODES = ("hang", "die-on-list", "error-on-list", "bad-schema")


def _say(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(mode: str, tag: str = "") -> None:
    if mode == "hang":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", marked(tag)])
        for _ in sys.stdin:
            pass
        return
    for line in sys.stdin:
        request = json.loads(line)
        method, rid = request.get("method"), request.get("id")
        if method == "initialize":
            info = {"name": "broken", "version": "0"}
            version = request["params"]["protocolVersion"]
            result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
            _say({"jsonrpc": "2.0", "id": rid, "result": result})
        elif method == "tools/list":
            if mode == "die-on-list":
                sys.exit(3)
            if mode == "error-on-list":
                _say({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "listing is broken"}})
            else:
                tool = {"name": "odd", "description": "an odd tool", "inputSchema": ["not", "an", "object"]}
                _say({"jsonrpc": "2.0", "id": rid, "result": {"tools": [tool]}})
        elif rid is not None:
            _say({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "hang", sys.argv[2] if len(sys.argv) > 2 else "")

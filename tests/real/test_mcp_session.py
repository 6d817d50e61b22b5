"""Live MCP sessions started at once in several threads (a pool's spares start in the background):
each owns exactly its own server, and stopping one leaves the others answering."""

from __future__ import annotations

import sys
import threading

from tests.conftest import ROOT

from envfactory.real.mcp import McpSession, McpTarget

NOTES = f"mcp+stdio:{sys.executable} {ROOT / 'tests' / 'fixtures' / 'notes_server.py'}"


def test_sessions_started_together_each_own_their_server() -> None:
    target = McpTarget.parse(NOTES)
    sessions = [McpSession(target) for _ in range(4)]
    together = threading.Barrier(len(sessions))

    def start(session: McpSession) -> None:
        together.wait()
        session.start()

    threads = [threading.Thread(target=start, args=(s,)) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        groups = [s._groups for s in sessions]
        assert all(len(g) == 1 for g in groups) and len(set().union(*groups)) == len(sessions)
        sessions[0].close()
        for s in sessions[1:]:  # the others' servers were not taken for the first one's
            assert s.call("add_note", {"title": "still here"}).ok
    finally:
        for s in sessions:
            s.close()

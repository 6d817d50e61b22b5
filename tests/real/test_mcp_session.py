"""Live MCP sessions started at once in several threads (a pool's spares start in the background):
each owns exactly its own server, and stopping one leaves the others answering."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

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


def test_a_json_text_the_sdk_wraps_as_result_is_read_as_json() -> None:
    from types import SimpleNamespace

    from envfactory.real.mcp import outcome_of

    def result(text: str, structured: object) -> SimpleNamespace:
        content = [SimpleNamespace(type="text", text=text)]
        return SimpleNamespace(content=content, structured_content=structured, is_error=False)

    listing = '{\n  "count": 1,\n  "items": [{"id": "a1"}]\n}'
    assert outcome_of(result(listing, {"result": listing})).data == {"count": 1, "items": [{"id": "a1"}]}
    # prose wrapped, or structured content that is more than the text, stays as the server gave it
    assert outcome_of(result("Saved.", {"result": "Saved."})).data == {"result": "Saved."}
    assert outcome_of(result(listing, {"result": listing, "n": 1})).data == {"result": listing, "n": 1}
    assert outcome_of(result("[1, 2", {"result": "[1, 2"})).data == {"result": "[1, 2"}


def test_a_session_never_closed_leaves_no_folder_behind(tmp_path: Path) -> None:
    """A process that exits holding a started session (a pool's spare still starting, a script that
    forgot ``close``) removes the session's folder on its way out."""
    script = tmp_path / "forgets.py"
    script.write_text(
        "from envfactory.real.mcp import McpSession, McpTarget\n"
        f"session = McpSession(McpTarget.parse({NOTES!r}))\n"
        "session.start()\n"
        "print(session._tmp, flush=True)\n"
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=True)
    folder = Path(done.stdout.strip())
    assert folder.name.startswith("envfactory-mcp-") and not folder.exists()

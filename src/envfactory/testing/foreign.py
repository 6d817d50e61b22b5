"""Published MCP servers that tests and ``bench/fidelity.py`` measure synthesized environments against.

They come from the npm registry at the versions pinned in ``tests/mcp-servers/package.json`` (and
its lock file); ``make test`` installs them, and ``ensure_installed`` does it on first use when a
test runs without make. Nothing of them is committed. Each entry says how to start a fresh server
whose state lives in the session's ``{tmp}`` folder, and which tool reads everything.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from envfactory.errors import EnvFactoryError


@dataclass(frozen=True)
class ForeignServer:
    package: str
    command: str  # the installed binary and its arguments; {tmp} is the session's fresh folder
    env: tuple[tuple[str, str], ...] = ()
    final_tool: str | None = None
    shapes: str = ""  # what state shapes it exercises

    def target(self, root: Path) -> str:
        binary, *rest = self.command.split(" ")
        path = servers_dir(root) / "node_modules" / ".bin" / binary
        return "mcp+stdio:" + " ".join([str(path), *rest])


FOREIGN_MCP: dict[str, ForeignServer] = {
    "memory": ForeignServer(
        "@modelcontextprotocol/server-memory",
        "mcp-server-memory",
        env=(("MEMORY_FILE_PATH", "{tmp}/memory.jsonl"),),
        final_tool="read_graph",
        shapes="batch creates and deletes, natural keys (names), nested observations, search, open-by-names, dump",
    ),
    "filesystem": ForeignServer(
        "@modelcontextprotocol/server-filesystem",
        "mcp-server-filesystem {tmp}",
        final_tool="directory_tree",
        shapes="hierarchical path-addressed state, text contents, moves, not-found and duplicate errors",
    ),
}


def servers_dir(root: Path) -> Path:
    return root / "tests" / "mcp-servers"


def ensure_installed(root: Path) -> None:
    """Install the pinned servers with ``npm ci`` unless they are there; a clear error without npm."""
    folder = servers_dir(root)
    if (folder / "node_modules" / ".installed").is_file():
        return
    npm = shutil.which("npm")
    if npm is None:
        raise EnvFactoryError("npm is needed to install the foreign MCP servers (tests/mcp-servers); install Node.js")
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=folder, check=False)
    if done.returncode != 0:
        raise EnvFactoryError(f"`npm ci` failed in {folder} (exit {done.returncode})")
    (folder / "node_modules" / ".installed").touch()


__all__ = ["FOREIGN_MCP", "ForeignServer", "ensure_installed", "servers_dir"]

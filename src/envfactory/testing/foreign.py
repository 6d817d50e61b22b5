"""Published MCP servers that tests and ``bench/fidelity.py`` measure synthesized environments against.

They come from the package registries at pinned versions: npm ones from
``tests/mcp-servers/package.json`` (and its lock file), Python ones from
``tests/mcp-servers/requirements.txt`` into their own virtual environment there. ``make test``
installs them, and ``ensure_installed`` does it on first use when a test runs without make.
Nothing of them is committed. Each entry says how to start a fresh server whose state lives in
the session's ``{tmp}`` folder (``{bin}`` is the installed program), and which tool reads
everything.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from envfactory.errors import EnvFactoryError

GIT_IDENTITY = (("GIT_AUTHOR_NAME", "envfactory"), ("GIT_AUTHOR_EMAIL", "env@factory.test"),
                ("GIT_COMMITTER_NAME", "envfactory"), ("GIT_COMMITTER_EMAIL", "env@factory.test"))  # fmt: skip


@dataclass(frozen=True)
class ForeignServer:
    package: str
    program: str  # the installed executable
    command: str = "{bin}"  # how to start it; {bin} is the program, {tmp} the session's fresh folder
    registry: Literal["npm", "pypi"] = "npm"
    env: tuple[tuple[str, str], ...] = ()
    final_tool: str | None = None
    shapes: str = ""  # what state shapes it exercises

    def target(self, root: Path) -> str:
        folder = servers_dir(root).resolve()  # the server runs in its own folder
        binary = folder / "node_modules" / ".bin" / self.program if self.registry == "npm" else (
            folder / "python" / "bin" / self.program)  # fmt: skip
        return "mcp+stdio:" + self.command.replace("{bin}", str(binary))


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
        "mcp-server-filesystem",
        "{bin} {tmp}",
        final_tool="directory_tree",
        shapes="hierarchical path-addressed state, text contents, moves, not-found and duplicate errors",
    ),
    "git": ForeignServer(
        "mcp-server-git (PyPI)",
        "mcp-server-git",
        "sh -c 'git init -q {tmp} && exec {bin} --repository {tmp}'",
        registry="pypi",
        env=GIT_IDENTITY,
        final_tool=None,
        shapes="a version-control state the synthesizer has no template for: an honest measure of what it cannot model",
    ),
}


def servers_dir(root: Path) -> Path:
    return root / "tests" / "mcp-servers"


def ensure_installed(root: Path) -> None:
    """Install the pinned servers unless they are there (``npm ci``; a venv with pip); clear errors."""
    folder = servers_dir(root)
    if not (folder / "node_modules" / ".installed").is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise EnvFactoryError(
                "npm is needed to install the foreign MCP servers (tests/mcp-servers); install Node.js"
            )
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=folder, check=False)
        if done.returncode != 0:
            raise EnvFactoryError(f"`npm ci` failed in {folder} (exit {done.returncode})")
        (folder / "node_modules" / ".installed").touch()
    venv = folder / "python"
    if not (venv / ".installed").is_file():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "-r",
                               str(folder / "requirements.txt")], check=False)  # fmt: skip
        if done.returncode != 0:
            raise EnvFactoryError(f"installing {folder / 'requirements.txt'} failed (exit {done.returncode})")
        (venv / ".installed").touch()


__all__ = ["FOREIGN_MCP", "ForeignServer", "ensure_installed", "servers_dir"]

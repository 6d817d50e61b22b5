"""The README's code blocks and the marks that say how the README test treats each one.

A block runs as written unless the line right before its fence is a mark::

    <!-- readme-test: check-only REASON -->     not run (REASON: what the test machine lacks); checked:
                                                bash parses and names real commands and options,
                                                Python compiles and its imports resolve
    <!-- readme-test: background -->            bash: each command is started and left running (a
                                                server); the test waits for its --port, stops it at the end
    <!-- readme-test: python PATH -->           Python run by the interpreter at PATH (another environment)
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```(\w+)\s*$")
MARK = re.compile(r"^<!-- readme-test: (check-only|background|python)\b\s*(.*?)\s*-->$")
KINDS = ("bash", "python")


@dataclass(frozen=True)
class Block:
    line: int  # 1-based line of the opening fence
    lang: str
    code: str
    mark: str = "run"  # run | check-only | background | python
    argument: str = ""  # check-only: the reason; python: the interpreter

    @property
    def where(self) -> str:
        return f"README.md:{self.line} ({self.lang}, {self.mark})"


def blocks(text: str) -> list[Block]:
    """Every fenced block, in order, with its mark; an unknown language or a mark of the wrong shape is
    an error here, never a block left out."""
    lines = text.splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence is None:
            if lines[i].startswith("<!-- readme-test") and not MARK.match(lines[i]):
                raise ValueError(f"README.md:{i + 1}: a readme-test mark of unknown shape: {lines[i]}")
            i += 1
            continue
        lang = fence.group(1)
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        mark = MARK.match(lines[i - 1]) if i else None
        if lang not in KINDS and lang != "text":
            raise ValueError(f"README.md:{i + 1}: a ```{lang} block: the README test knows bash, python and text")
        if lang in KINDS:
            kind, argument = (mark.group(1), mark.group(2)) if mark else ("run", "")
            if kind == "check-only" and not argument:
                raise ValueError(f"README.md:{i}: check-only needs a reason (what the test machine lacks)")
            found.append(Block(i + 1, lang, "\n".join(lines[i + 1 : end]) + "\n", kind, argument))
        i = end + 1
    return found


def commands(code: str) -> list[list[str]]:
    """The shell commands of a bash block: continuation lines joined, comments and blank lines dropped."""
    joined = re.sub(r"\\\n\s*", " ", code)
    out = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        words = shlex.split(line, comments=True)
        if words:
            out.append(words)
    return out


def envfactory_calls(code: str) -> list[tuple[str, list[str]]]:
    """``(subcommand, options)`` of each ``envfactory`` command in a bash block (after any VAR=value)."""
    calls = []
    for words in commands(code):
        while words and re.match(r"^[A-Z_]+=", words[0]):
            words = words[1:]
        if words and Path(words[0]).name == "envfactory" and len(words) > 1:
            calls.append((words[1], [w.split("=")[0] for w in words[2:] if w.startswith("-")]))
    return calls


def port(words: list[str]) -> int:
    return int(words[words.index("--port") + 1]) if "--port" in words else 8000


def readme(root: Path) -> str:
    return (root / "README.md").read_text(encoding="utf-8")


__all__ = ["Block", "blocks", "commands", "envfactory_calls", "port", "readme"]

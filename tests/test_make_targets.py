"""Every `make TARGET` the README, the docs or a message tells a user to run is a target of the Makefile."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOLD = re.compile(r"`make ([a-z][\w.-]*)")
CORPUS_TARGET = re.compile(r'corpus_target\([^)]*"([a-z][\w.-]*)"\)')  # bench/*.py: "run `make X`" when not installed


def _targets() -> set[str]:
    return set(re.findall(r"^([a-z][\w.-]*):", (ROOT / "Makefile").read_text(), re.MULTILINE))


def test_every_make_target_a_user_is_told_to_run_exists() -> None:
    told: set[str] = set()
    for path in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "src").rglob("*.py")]:
        told |= set(TOLD.findall(path.read_text()))
    for path in (ROOT / "bench").glob("*.py"):
        text = path.read_text()
        told |= set(TOLD.findall(text)) | set(CORPUS_TARGET.findall(text))
    assert {"demo", "test", "bench", "learn-corpus", "describe-corpus"} <= told
    assert told <= _targets(), sorted(told - _targets())

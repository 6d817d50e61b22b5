"""Where the project's ``shared/`` folder is (specs from the wild, a corpus), for tests and benches.

It sits beside the repository. A clone made elsewhere (``git clone . /tmp/x``) finds it beside the
repository it was cloned from; ``ENVFACTORY_SHARED`` names it explicitly.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def shared_dir(root: Path) -> Path:
    """The ``shared/`` folder for the checkout at ``root`` (it may not exist)."""
    named = os.environ.get("ENVFACTORY_SHARED")
    if named:
        return Path(named)
    beside = root.parent / "shared"
    if beside.is_dir():
        return beside
    try:
        origin = subprocess.run(
            ["git", "-C", str(root), "config", "--get", "remote.origin.url"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        return beside
    source = Path(origin)
    if origin and source.is_dir() and (source.parent / "shared").is_dir():
        return source.resolve().parent / "shared"
    return beside


__all__ = ["shared_dir"]

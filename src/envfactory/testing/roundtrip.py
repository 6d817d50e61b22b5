"""Does an environment survive its own folder format: saved and loaded back, is it the same EnvSpec?"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable

from envfactory.errors import EnvSpecError
from envfactory.ir.env import EnvSpec


def round_trip(spec: EnvSpec) -> EnvSpec:
    """``spec`` written as its folder's JSON files and read back, without touching the disk."""
    text = {name: json.dumps(data, ensure_ascii=False) for name, data in spec.files().items()}
    return EnvSpec.from_files({name: json.loads(body) for name, body in text.items()})


def check_round_trip(spec: EnvSpec) -> None:
    """Raise ``EnvSpecError`` naming the first part that differs when ``spec`` does not load back equal."""
    back = round_trip(spec)
    if back == spec:
        return
    for part in ("description", "config", "tools", "state_schema", "initial_state", "counters"):
        if getattr(back, part) != getattr(spec, part):
            raise EnvSpecError(f"env {spec.name!r}: {part} differs once saved and loaded back")
    for mine, theirs in zip(spec.behaviours, back.behaviours, strict=True):
        if mine != theirs:
            raise EnvSpecError(f"env {spec.name!r}, tool {mine.tool!r}: its behaviour differs once loaded back")
    raise EnvSpecError(f"env {spec.name!r}: differs once saved and loaded back")


def round_tripped(synthesize: Callable[..., EnvSpec]) -> Callable[..., EnvSpec]:
    """``synthesize`` that also checks (:func:`check_round_trip`) every environment it makes."""

    @functools.wraps(synthesize)
    def wrapper(*args: object, **kwargs: object) -> EnvSpec:
        spec = synthesize(*args, **kwargs)
        check_round_trip(spec)
        return spec

    return wrapper

"""The state of a bound implementation (the user's own object), as plain JSON.

A bound environment keeps its state inside the user's object, where the copy-on-write store
cannot see it. :func:`owner_state` reads it — through a ``state()`` method the class provides,
else the instance's attributes (dataclasses, pydantic models, tuples and sets turned into JSON)
— so that ``state_hash`` changes with every write, ``verify`` compares final states, and a
snapshot records it. Restoring replays the snapshot's logged calls on a fresh object and checks
that it reaches the recorded state (implementations must be deterministic; one that is not is
reported, never silently diverged from).
"""

from __future__ import annotations

import hashlib
import random
import re
from typing import Any

import orjson

from envfactory.runtime.behaviours import to_jsonable
from envfactory.runtime.store import canonical_numbers
from envfactory.runtime.tracked import META, volatile_digest

JSON = dict[str, Any]
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def owner_state(owner: Any) -> Any:
    """The object's state as JSON: its ``state()`` if it has one, else its public and private attributes."""
    custom = getattr(owner, "state", None)
    if callable(custom):
        return plain_json(custom())
    attrs = getattr(owner, "__dict__", None)
    if attrs is None:
        return None
    return plain_json({k: v for k, v in attrs.items() if not callable(v) and k != META})


def owner_digest(owner: Any) -> int:
    """A 128-bit digest of :func:`owner_state` (canonical JSON, sorted keys)."""
    data = orjson.dumps(canonical_numbers(owner_state(owner)), option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return int.from_bytes(hashlib.blake2b(data, digest_size=16).digest(), "big")


def plain_json(value: Any) -> Any:
    """``value`` as JSON; what JSON cannot show is its repr (without a memory address, which would
    differ in every episode), a random generator a digest of its state."""
    if isinstance(value, random.Random):
        return f"<random generator {volatile_digest(value):032x}>"
    value = to_jsonable(value)
    if isinstance(value, dict):
        return {str(k): plain_json(v) for k, v in value.items() if k != META}
    if isinstance(value, list):
        return [plain_json(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return ADDRESS.sub("", repr(value))  # an object the state cannot show: its repr, so changes still show


__all__ = ["owner_digest", "owner_state", "plain_json"]

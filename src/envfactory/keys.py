"""Generated keys in the shape the API's id parameters demand (uuid, date, pattern, length).

A key is a pure function of the entity name and its counter ``n``: the same environment gives
the same keys in every process, and ``n`` keeps them distinct.
"""

from __future__ import annotations

import hashlib
import random
import uuid
from datetime import date, timedelta
from typing import Any

from envfactory.patterns import linear_pattern, matching_string, sized_to_pattern

JSON = dict[str, Any]


_TEXT_FORMATS = {
    "email": lambda name, n: f"{name}{n}@example.com",
    "idn-email": lambda name, n: f"{name}{n}@example.com",
    "hostname": lambda name, n: f"{name}-{n}.example.com",
    "idn-hostname": lambda name, n: f"{name}-{n}.example.com",
    "uri": lambda name, n: f"https://example.com/{name}/{n}",
    "url": lambda name, n: f"https://example.com/{name}/{n}",
    "ipv4": lambda name, n: f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}",
}


def shaped_key(entity: str, n: int, schema: JSON, plain: str) -> str:
    """The ``n``-th key of ``entity`` satisfying ``schema`` (``plain`` when it already does)."""
    digest = hashlib.blake2b(f"{entity}:{n}".encode(), digest_size=16).digest()
    members = schema.get("enum")
    if isinstance(members, list) and members:  # ``ride_type: lyft | lyft_plus | ...``: the members in turn
        return str(members[(n - 1) % len(members)])
    formatted = _formatted(schema.get("format"), entity, n, digest)
    pattern = schema.get("pattern")
    check = linear_pattern(pattern) if isinstance(pattern, str) else None
    if formatted is not None and (check is None or check(formatted)):
        return formatted  # (keys read from two routes, a uuid beside ``^se(-[a-z0-9]+)+$``: the pattern's)
    text = plain
    rng = random.Random(int.from_bytes(digest, "big"))
    if isinstance(pattern, str):
        made = matching_string(pattern, rng)
        text = made if made is not None else plain
    low, high = schema.get("minLength"), schema.get("maxLength")
    low = low if isinstance(low, int) else 0
    high = high if isinstance(high, int) else None
    if isinstance(pattern, str) and text and not low <= len(text) <= (high or len(text)):
        return sized_to_pattern(text, pattern, rng, low, high)
    if high is not None and len(text) > high and pattern is None:
        text = (text[: max(0, high - len(str(n)))] + str(n))[-high:] if high else text
    if len(text) < low and pattern is None:
        text = text + "0" * (low - len(text))
    return text


def _formatted(fmt: Any, entity: str, n: int, digest: bytes) -> str | None:
    """The ``n``-th key of a declared ``format`` (None: no format keys are made for)."""
    if fmt == "uuid":
        return str(uuid.UUID(bytes=digest, version=4))
    if fmt == "date":
        return (date(2020, 1, 1) + timedelta(days=n)).isoformat()
    if fmt == "date-time":
        return (date(2020, 1, 1) + timedelta(days=n)).isoformat() + "T00:00:00Z"
    if fmt in _TEXT_FORMATS:  # a follower named ``nameWithHost: email``, a server by its ``hostname``
        return _TEXT_FORMATS[fmt](entity.replace("_", "-"), n)
    return None


__all__ = ["shaped_key"]

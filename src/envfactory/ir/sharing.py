"""Repeated JSON written once: a schema that many tools inline (a ``User`` in every answer) is kept in
``tools.json`` once, under ``$shared``, and referred to as ``{"$shared": "User.3"}`` elsewhere.

:func:`share` and :func:`unshare` are exact inverses (the same values, keys in the same order); the
in-memory IR stays fully inlined, so nothing but the folder format knows about it. A document that
already holds a ``$shared`` key of its own is written as it is.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

KEY = "$shared"
MIN_SIZE = 200  # characters of JSON: smaller parts cost less written out than referred to


def share(data: Any) -> Any:
    """``data`` with every object of at least ``MIN_SIZE`` characters that occurs twice or more
    replaced by a reference into a ``$shared`` table added to the top-level object."""
    if not isinstance(data, dict) or _holds_key(data):
        return data
    digests: dict[int, tuple[bytes, int]] = {}
    _measure(data, digests)
    counts: dict[bytes, int] = {}
    _count(data, digests, counts)
    table: dict[str, Any] = {}
    names: dict[bytes, str] = {}

    def put(node: Any, top: bool = False) -> Any:
        if isinstance(node, dict):
            digest, size = digests[id(node)]
            if not top and size >= MIN_SIZE and counts[digest] > 1:
                if digest not in names:
                    title = node.get("title")
                    names[digest] = f"{title if isinstance(title, str) else 'part'}.{len(names) + 1}"
                    table[names[digest]] = {k: put(v) for k, v in node.items()}
                return {KEY: names[digest]}
            return {k: put(v) for k, v in node.items()}
        if isinstance(node, list):
            return [put(v) for v in node]
        return node

    out = put(data, top=True)
    if table:
        out[KEY] = table
    return out


def unshare(data: Any) -> Any:
    """The inverse of :func:`share`: references replaced by their (one, shared) object."""
    if not isinstance(data, dict) or not isinstance(data.get(KEY), dict):
        return data
    raw: dict[str, Any] = data[KEY]
    done: dict[str, Any] = {}

    def get(name: Any) -> Any:
        if not isinstance(name, str) or name not in raw:
            raise ValueError(f"unknown shared part {name!r}")
        if name not in done:
            done[name] = None  # a part that refers to itself is a broken file, not a loop
            done[name] = walk(raw[name])
        if done[name] is None:
            raise ValueError(f"shared part {name!r} refers to itself")
        return done[name]

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if len(node) == 1 and KEY in node:
                return get(node[KEY])
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk({k: v for k, v in data.items() if k != KEY})


def _measure(node: Any, digests: dict[int, tuple[bytes, int]]) -> tuple[bytes, int]:
    """A digest of ``node`` (its keys' order included) and its size as JSON, for every object in it."""
    if isinstance(node, dict):
        h, size = hashlib.blake2b(b"{", digest_size=16), 2
        for k, v in node.items():
            digest, n = _measure(v, digests)
            h.update(json.dumps(k).encode())
            h.update(digest)
            size += len(k) + 4 + n
        digests[id(node)] = out = (h.digest(), size)
        return out
    if isinstance(node, list):
        h, size = hashlib.blake2b(b"[", digest_size=16), 2
        for v in node:
            digest, n = _measure(v, digests)
            h.update(digest)
            size += n + 2
        return h.digest(), size
    text = json.dumps(node)
    return hashlib.blake2b(text.encode(), digest_size=16).digest(), len(text)


def _count(node: Any, digests: dict[int, tuple[bytes, int]], counts: dict[bytes, int]) -> None:
    """How often each object occurs, not counting what lies inside a repeat of an object already met
    (written once, a repeated ``User`` holds its ``properties`` once)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            digest = digests[id(item)][0]
            counts[digest] = counts.get(digest, 0) + 1
            if counts[digest] == 1:
                stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _holds_key(data: Any) -> bool:
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if KEY in node:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


__all__ = ["KEY", "share", "unshare"]

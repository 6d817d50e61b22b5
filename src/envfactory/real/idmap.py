"""Ids a replayed server minted anew, mapped onto the ones the agent saw.

A live server that mints random ids (uuids, tokens) answers a replay of the same calls with other
ids. Restoring it pairs each recorded answer with the replayed one, leaf by leaf where the two have
the same shape: a differing token (``3f2a…`` against ``9c41…``) is one id under two names. The
server is then called with its own ids and answers with the agent's, so the agent goes on as if
nothing had moved; differences that are not such pairs (another shape, another text) mean the
server cannot be restored, and :class:`IdMap` says where.
"""

from __future__ import annotations

import re
from typing import Any

from envfactory.real.keypool import MINTED

TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]*[A-Za-z0-9]|[A-Za-z0-9]")
MIN_TOKEN = 6  # a shorter word that differs is a different answer, not a minted id
MIN_INSIDE = 8  # ids replaced inside longer text (a path, a sentence) are at least this long


def looks_minted(text: str) -> bool:
    """A token a server could have minted: no spaces, at least 6 characters, a digit in it."""
    return len(text) >= MIN_TOKEN and bool(TOKEN.fullmatch(text)) and any(c.isdigit() for c in text)


class IdMap:
    """Agent's id <-> server's id, learned from answers of the same calls (``learn``)."""

    def __init__(self) -> None:
        self.to_server: dict[Any, Any] = {}
        self.to_agent: dict[Any, Any] = {}
        self.unpaired: list[str] = []  # where the two answers differ beyond ids
        self._patterns: dict[bool, re.Pattern[str] | None] = {}

    def __bool__(self) -> bool:
        return bool(self.to_server)

    def learn(self, seen: Any, replayed: Any, where: str = "answer") -> None:
        """Pair the agent's answer ``seen`` with the replayed server's (already translated with
        what was learned before), leaf by leaf."""
        if isinstance(seen, dict) and isinstance(replayed, dict):
            if seen.keys() != replayed.keys():
                self.unpaired.append(f"{where}: members {sorted(seen)[:6]} against {sorted(replayed)[:6]}")
                return
            for key in seen:
                self.learn(seen[key], replayed[key], f"{where}.{key}")
        elif isinstance(seen, list) and isinstance(replayed, list):
            if len(seen) != len(replayed):
                self.unpaired.append(f"{where}: {len(seen)} items against {len(replayed)}")
                return
            for i, (a, b) in enumerate(zip(seen, replayed, strict=True)):
                self.learn(a, b, f"{where}[{i}]")
        elif isinstance(seen, str) and isinstance(replayed, str):
            self._texts(seen, replayed, where)
        elif (isinstance(seen, int) and isinstance(replayed, int) and not isinstance(seen, bool)
              and not isinstance(replayed, bool) and seen != replayed):  # fmt: skip
            if where.rsplit(".", 1)[-1].endswith(MINTED):
                self._pair(seen, replayed, where)
            else:
                self.unpaired.append(f"{where}: {seen} against {replayed}")
        elif seen != replayed:
            self.unpaired.append(f"{where}: {str(seen)[:60]!r} against {str(replayed)[:60]!r}")

    def _texts(self, seen: str, replayed: str, where: str) -> None:
        if seen == replayed:
            return
        if looks_minted(seen) and looks_minted(replayed):
            self._pair(seen, replayed, where)
            return
        ours, theirs = TOKEN.findall(seen), TOKEN.findall(replayed)
        if len(ours) != len(theirs) or TOKEN.sub("", seen) != TOKEN.sub("", replayed):
            self.unpaired.append(f"{where}: {seen[:60]!r} against {replayed[:60]!r}")
            return
        for a, b in zip(ours, theirs, strict=True):
            if a != b:
                if looks_minted(a) and looks_minted(b):
                    self._pair(a, b, where)
                else:
                    self.unpaired.append(f"{where}: {a[:40]!r} against {b[:40]!r}")

    def _pair(self, seen: Any, replayed: Any, where: str) -> None:
        if self.to_server.get(seen, replayed) != replayed or self.to_agent.get(replayed, seen) != seen:
            self.unpaired.append(f"{where}: {seen!r} was paired with {self.to_server.get(seen)!r} already")
            return
        self.to_server[seen], self.to_agent[replayed] = replayed, seen
        self._patterns.clear()

    def server_side(self, data: Any) -> Any:
        """``data`` as the server knows it (the agent's ids replaced by the server's)."""
        return self._translate(data, self.to_server, True) if self.to_server else data

    def agent_side(self, data: Any) -> Any:
        """``data`` as the agent knows it (the server's ids replaced by those it saw)."""
        return self._translate(data, self.to_agent, False) if self.to_agent else data

    def _translate(self, data: Any, mapping: dict[Any, Any], forward: bool) -> Any:
        if isinstance(data, dict):
            return {self._translate(k, mapping, forward): self._translate(v, mapping, forward) for k, v in data.items()}
        if isinstance(data, list):
            return [self._translate(v, mapping, forward) for v in data]
        if isinstance(data, bool) or not isinstance(data, (str, int)):
            return data
        if data in mapping:
            return mapping[data]
        if isinstance(data, str):
            pattern = self._pattern(mapping, forward)
            if pattern is not None:
                return pattern.sub(lambda m: str(mapping[m.group(0)]), data)
        return data

    def _pattern(self, mapping: dict[Any, Any], forward: bool) -> re.Pattern[str] | None:
        if forward not in self._patterns:
            long = sorted((k for k in mapping if isinstance(k, str) and len(k) >= MIN_INSIDE), key=len, reverse=True)
            self._patterns[forward] = re.compile("|".join(re.escape(k) for k in long)) if long else None
        return self._patterns[forward]


__all__ = ["IdMap", "looks_minted"]

"""Copy-on-write state: a shared, immutable base plus a small per-episode overlay.

Episodes never copy the initial state. Reads look in the overlay first, then the base; writes
go to the overlay only. The state hash is a multiset hash (sum of per-row BLAKE2b digests
mod 2**128): the base total is computed once, and an episode's hash only re-hashes the rows
it changed, so hashing costs O(changes) rather than O(state).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import orjson

from envfactory.errors import SnapshotError
from envfactory.ir.derived import derive, sort_lists
from envfactory.ir.rollup import MAX_DEPTH
from envfactory.ir.state import StateSchema
from envfactory.runtime.canonical import NotCanonical, canonical_number, canonical_value

NEXT_KEY_TRIES = 1_000  # keys made before a create gives up: every one it makes is taken

JSON = dict[str, Any]
MOD = 1 << 128
_GONE: Any = None  # overlay value of a deleted row


def clone(value: Any) -> Any:
    """A deep copy of JSON data (much cheaper than ``copy.deepcopy``)."""
    if isinstance(value, dict):
        return {k: clone(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clone(v) for v in value]
    return value


def canonical_numbers(value: Any) -> Any:
    """``value`` with integral floats as integers (``3.0`` -> ``3``): equal numbers hash equal.

    Returns ``value`` itself when nothing changes, so rows without such floats are not copied."""
    if type(value) is float:
        return canonical_number(value)
    if isinstance(value, dict):
        fixed = {k: canonical_numbers(v) for k, v in value.items()}
        return value if all(fixed[k] is value[k] for k in value) else fixed
    if isinstance(value, list):
        items = [canonical_numbers(v) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def row_digest(entity: str, key: Any, row: JSON | None) -> int:
    """BLAKE2b of the canonical JSON of ``[entity, key, row]`` (keys sorted, integral floats as
    integers), as an integer."""
    if row is None:
        return 0
    item = [entity, key, canonical_numbers(row)]
    try:
        data = orjson.dumps(item, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError:  # integers beyond 64 bits, lone surrogates in user-supplied rows
        text = json.dumps(item, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=repr)
        data = text.encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=16).digest(), "big")


class BaseState:
    """The initial state shared by every episode of an environment (never mutated)."""

    def __init__(
        self, schema: StateSchema, rows: dict[str, list[JSON]], counters: dict[str, int] | None = None
    ) -> None:
        self.keys = {e.name: e.key for e in schema.entities}
        self.key_types = {e.name: e.key_type for e in schema.entities}
        self.derived = {e.name: e.derived for e in schema.entities if e.derived}  # rendered on every write
        self.sorted = {e.name: e.sorted for e in schema.entities if e.sorted}  # kept sorted on every write
        self.after_highest = {e.name for e in schema.entities if e.keys_after_highest and e.key_type == "integer"}
        self.rollups = {e.name: e.rollup for e in schema.entities if e.rollup is not None}  # kept on every write
        self.tables: dict[str, dict[Any, JSON]] = {
            name: {row[key]: row for row in rows.get(name, ())} for name, key in self.keys.items()
        }
        self.row_lists = {name: list(table.values()) for name, table in self.tables.items()}  # shared, never changed
        self.digests = {
            name: {k: row_digest(name, k, r) for k, r in table.items()} for name, table in self.tables.items()
        }
        self.total = sum(d for table in self.digests.values() for d in table.values()) % MOD
        self.counters = {name: _max_counter(table) for name, table in self.tables.items()}
        self.counters.update({k: v for k, v in (counters or {}).items() if k in self.counters})
        self.hash = f"{self.total:032x}"


def _max_counter(table: dict[Any, JSON]) -> int:
    best = len(table)  # keys shaped like uuids or patterns carry no counter: continue after the rows
    for key in table:
        if isinstance(key, int):
            best = max(best, key)
        elif isinstance(key, str):
            tail = key.rsplit("_", 1)[-1]
            if tail.isdigit():
                best = max(best, int(tail))
    return best


class Store:
    """One episode's view of the state. Rows handed out must be treated as read-only."""

    __slots__ = ("_digests", "_lists", "base", "counters", "overlay")

    def __init__(self, base: BaseState) -> None:
        self.base = base
        self.overlay: dict[str, dict[Any, JSON | None]] = {}
        self.counters: dict[str, int] = {}
        self._digests: dict[tuple[str, Any], tuple[JSON | None, int]] = {}  # rows are never mutated
        self._lists: dict[str, list[JSON]] = {}  # row_list's, per entity written, until the next write to it

    def get(self, entity: str, key: Any) -> JSON | None:
        changed = self.overlay.get(entity)
        if changed is not None and key in changed:
            return changed[key]
        return self.base.tables[entity].get(key)

    def put(self, entity: str, key: Any, row: JSON) -> None:
        """Write ``row``; its lists kept sorted (``Entity.sorted``) are sorted and its derived fields
        (``Entity.derived``) rendered into it, so the caller answering it answers them (a row already
        held is copied first); the record it sits under, where the entity rolls a field up
        (``Entity.rollup``), takes that field anew."""
        row = self._write(entity, key, row)
        if self.base.rollups and entity in self.base.rollups:
            self._roll_up(entity, row)

    def _write(self, entity: str, key: Any, row: JSON) -> JSON:
        sorts = self.base.sorted.get(entity) if self.base.sorted else None
        derived = self.base.derived.get(entity) if self.base.derived else None
        if sorts or derived:
            fresh = row is not self.get(entity, key)
            if sorts:
                made = sort_lists(row, sorts, in_place=fresh)
                fresh, row = fresh or made is not row, made  # a copy it made is fresh too
            if derived:
                row = derive(row, derived, in_place=fresh)
        self.overlay.setdefault(entity, {})[key] = row
        self._lists.pop(entity, None)
        return row

    def delete(self, entity: str, key: Any) -> None:
        row = self.get(entity, key) if self.base.rollups and entity in self.base.rollups else None
        self.overlay.setdefault(entity, {})[key] = _GONE
        self._lists.pop(entity, None)
        if row is not None:
            self._roll_up(entity, row)

    def _roll_up(self, entity: str, row: JSON) -> None:
        """The parents of ``row``, and theirs on up, with the field they take from the records under
        them (``Entity.rollup``) taken anew; a parent left as it was stops the climb."""
        rule, key_field = self.base.rollups[entity], self.base.keys[entity]
        for _ in range(MAX_DEPTH):
            parent = self._parent(entity, row.get(rule.parent))
            if parent is None:
                return
            value = rule.of(r.get(rule.field) for r in rule.children(self.row_list(entity), parent[key_field]))
            if value is None or parent.get(rule.field) == value:
                return
            row = self._write(entity, parent[key_field], {**parent, rule.field: value})

    def _parent(self, entity: str, key: Any) -> JSON | None:
        """The record ``key`` names (a reference held as text names an integer key too)."""
        if key is None or isinstance(key, bool):
            return None
        found = self.get(entity, key)
        if found is None and isinstance(key, str) and key.isdigit() and self.base.key_types[entity] == "integer":
            found = self.get(entity, int(key))
        return found

    def rows(self, entity: str) -> Iterator[JSON]:
        """All live rows: base order first, then rows created in this episode."""
        changed = self.overlay.get(entity)
        base = self.base.tables[entity]
        if not changed:
            yield from base.values()
            return
        for key, row in base.items():
            if key in changed:
                new = changed[key]
                if new is not None:
                    yield new
            else:
                yield row
        for key, added in changed.items():
            if added is not None and key not in base:
                yield added

    def row_list(self, entity: str) -> list[JSON]:
        """``list(self.rows(entity))`` (a list tool's every call), built without a generator and
        kept until the entity is next written (the starting rows' list: for good). The list is
        shared: callers never change it."""
        rows: list[Any] | None = self._lists.get(entity)
        if rows is not None:
            return rows
        changed = self.overlay.get(entity)
        if not changed:
            return self.base.row_lists[entity]
        base = self.base.tables[entity]
        rows = [changed.get(key, row) for key, row in base.items()]
        if None in changed.values():  # a deleted row (_GONE)
            rows = [row for row in rows if row is not None]
        rows += [added for key, added in changed.items() if added is not None and key not in base]
        self._lists[entity] = rows
        return rows

    def count(self, entity: str) -> int:
        return sum(1 for _ in self.rows(entity))

    def next_key(self, entity: str, format_key: Any) -> Any:
        """The next free key ``format_key`` makes, or None where it makes none: keys drawn from a few
        values (an enum of them) can all be taken. An entity whose keys follow the highest held counts on
        from that key, so the key of a deleted last record is given again."""
        if entity in self.base.after_highest:
            key_field = self.base.keys[entity]
            held = (r.get(key_field) for r in self.rows(entity))
            self.counters[entity] = max((k for k in held if isinstance(k, int) and not isinstance(k, bool)), default=0)
        for _ in range(NEXT_KEY_TRIES):  # a row a user supplied may already hold the next key
            n = self.counters.get(entity, self.base.counters[entity]) + 1
            self.counters[entity] = n
            key = format_key(n)
            if self.get(entity, key) is None:
                return key
        return None

    def hash(self) -> str:
        total = self.base.total
        cache = self._digests
        for entity, changed in self.overlay.items():
            digests = self.base.digests[entity]
            for key, row in changed.items():
                hit = cache.get((entity, key))
                if hit is None or hit[0] is not row:
                    hit = (row, row_digest(entity, key, row))
                    cache[(entity, key)] = hit
                total += hit[1] - digests.get(key, 0)
        return f"{total % MOD:032x}"

    # -- moving state around -----------------------------------------------------------------
    def snapshot(self) -> JSON:
        """A JSON-serializable copy of what this episode changed."""
        return {
            "base": self.base.hash,
            "overlay": {
                entity: [[key, row] for key, row in changed.items()] for entity, changed in self.overlay.items()
            },
            "counters": dict(self.counters),
        }

    def restore(self, snap: JSON) -> None:
        """Load a validated store snapshot (see ``ir.snapshot.StoreSnapshot``) into this empty store."""
        overlay: dict[str, dict[Any, JSON | None]] = {}
        for entity, pairs in snap["overlay"].items():
            if entity not in self.base.key_types:
                raise SnapshotError(f"invalid snapshot: store.overlay: unknown entity {entity[:80]!r}")
            key_type = self.base.key_types[entity]
            try:
                overlay[entity] = {_native_key(key_type, key): canonical_value(row, exact=True) for key, row in pairs}
            except (NotCanonical, ValueError) as err:
                raise SnapshotError(f"invalid snapshot: store.overlay.{entity[:80]}: {err}") from None
        for entity, count in snap["counters"].items():
            if entity not in self.base.key_types or count < 0:
                raise SnapshotError(f"invalid snapshot: store.counters: bad entry {entity[:80]!r}: {count}")
        self.overlay = overlay
        self._digests = {}
        self._lists = {}
        self.counters = dict(snap["counters"])

    def materialize(self) -> dict[str, list[JSON]]:
        return {entity: list(self.rows(entity)) for entity in self.base.tables}

    def changes(self) -> dict[str, dict[Any, JSON | None]]:
        """Rows this episode created, changed (new value) or deleted (None)."""
        return {e: dict(c) for e, c in self.overlay.items() if c}


def _native_key(key_type: str, key: Any) -> Any:
    if key_type == "integer" and isinstance(key, str):
        return int(key)  # ValueError on non-digits: reported by restore()
    if key_type != "integer" and not isinstance(key, str):
        raise ValueError(f"key {key!r} must be a string")
    return key

"""A bound object's state, tracked: a digest that costs what a call touched, and fresh copies that
keep it (so a fresh object needs neither the user's loader nor a new hash of its whole state).

The object's plain dicts and lists are adopted as :class:`TrackedDict` / :class:`TrackedList`, and
its plain objects (the owner itself, a file system's folders) get a subclass whose ``__setattr__``
reports; a change marks its container's key, and the containers above it, dirty. The digest is a
Merkle sum: a container's is a hash of its tag plus the sum of its members' item digests (key and
value), cached until a member changes, so after one write only the path to it is hashed again.
Values the tracker cannot watch (a ``random.Random``, a set, a deque, a model object) are
*volatile*: hashed again on every digest, their container marked when they changed. A reference
back to an object being hashed (a folder's ``parent``) counts as one marker. Values a call stored
are adopted when the call is over (at the next digest): within a call, the user's code may still
hold the very dict it just stored and go on filling it.

Random generators found in the object are reseeded from the episode's seed, so a class holding a
``random.Random`` gives the same state, answers and hash in every episode of one seed.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import functools
import gc
import hashlib
import random
import types
from typing import Any

import orjson

from envfactory.runtime.canonical import canonical_number
from envfactory.runtime.tracked_containers import (
    META,
    SCALARS,
    TRACKED_CLASSES,
    Meta,
    TrackedDict,
    TrackedList,
    is_generator,
    meta_of,
    touch,
    tracked_class,
)
from envfactory.runtime.tracked_copies import clone_value, put_back, put_back_keys, restorable, restore
from envfactory.seeding import derive_seed

MASK = (1 << 128) - 1
SMALL = 64  # a container of at most this many scalars is hashed as one serialization
FROZEN = (datetime.date, datetime.time, datetime.timedelta, decimal.Decimal, enum.Enum, bytes, complex, range, type)
CALLABLES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType)
BACK = 0x5EF  # the digest of a reference back to an object being hashed
VOLATILE = 0x7A3E_91C2_55D0_4B1F_A6E8_3C07_D9F1_2B64  # set apart from the digest of the same JSON
SPREAD = 0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835  # places a list member (an odd multiplier, then this)


def _h(data: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(data, digest_size=16).digest(), "big")


def _trackable_object(value: Any) -> bool:
    cls = type(value)
    if cls.__module__ == "builtins" or type(getattr(value, "__dict__", None)) is not dict:
        return False
    if isinstance(value, (types.ModuleType, type, enum.Enum, random.Random)) or hasattr(value, "model_dump"):
        return False
    return not any("__slots__" in vars(base) for base in cls.__mro__[1:-1]) and "__slots__" not in vars(cls)


def _frozen(value: Any) -> bool:
    if isinstance(value, (*FROZEN, *CALLABLES)):
        return True
    if type(value) in (tuple, frozenset):
        return all(type(v) in SCALARS or _frozen(v) for v in value)
    return False


def _frozen_digest(value: Any) -> int:
    if type(value) is frozenset:
        return _h(b"Z" + repr(sorted(repr(v) for v in value)).encode())
    if isinstance(value, CALLABLES):
        name = getattr(value, "__qualname__", None) or getattr(value, "__name__", "")
        return _h(b"C" + str(name).encode())
    return _h(b"F" + repr(value).encode())


@functools.lru_cache(maxsize=1 << 16)
def _scalar_digest(kind: str, value: Any) -> int:
    """A scalar's digest (cached: a long list of names is summed again without hashing them again)."""
    return _h(b"s" + _scalar_bytes(value))


def _key_bytes(key: Any) -> bytes:
    if type(key) in SCALARS:
        return orjson.dumps(canonical_number(key) if type(key) is float else key)
    return repr(key).encode()


def _scalar_bytes(value: Any) -> bytes:
    return orjson.dumps(canonical_number(value) if type(value) is float else value)


class Volatile:
    """A value hashed again on every digest, and the places it sits."""

    __slots__ = ("initial", "last", "source", "up", "value")

    def __init__(self, value: Any, last: int = -1, source: Any = None) -> None:
        self.value, self.last, self.initial = value, last, last
        self.source = source  # in a copy: the value it was copied from
        self.up: list[tuple[Any, Any]] = []


def volatile_digest(value: Any) -> int:
    if isinstance(value, random.Random):
        return _h(b"R" + repr(value.getstate()).encode())
    state = getattr(getattr(value, "bit_generator", None), "state", None)
    if state is not None:  # a numpy Generator
        return _h(b"N" + repr(state).encode())
    from envfactory.runtime.owner import plain_json

    data = orjson.dumps(plain_json(value), option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return _h(b"V" + data)


class Tracker:
    """The tracked state of one bound object: :meth:`digest`, :meth:`clone`, :meth:`reseed`."""

    def __init__(self, owner: Any) -> None:
        self.owner = owner
        self.pending: list[tuple[Any, Any]] = []
        self.volatile: dict[int, Volatile] = {}
        self.generators: list[Any] = []
        self.hashed = 0  # containers hashed again (for tests: a write costs its path, not the state)
        self.source: Tracker | None = None  # the tracker this one is a copy of
        self.copies: dict[int, Any] = {}  # id of a source value -> its copy here
        self.touched: list[Meta] = []
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._adopt(owner, {})
        finally:
            if collecting:
                gc.enable()

    @classmethod
    def of(cls, owner: Any) -> Tracker | None:
        """A tracker for ``owner``, or None when its state is not its attributes (a ``state()``
        method of its own, a module, a live server)."""
        if callable(getattr(owner, "state", None)) or not _trackable_object(owner):
            return None
        return cls(owner)

    # -- adoption ----------------------------------------------------------------------------
    def _adopt(self, value: Any, memo: dict[int, Any]) -> Any:
        """``value`` as a tracked value (a new container for a plain dict or list; a plain object
        tracked in place)."""
        kind = type(value)
        if kind in SCALARS or meta_of(value) is not None:
            return value
        done = memo.get(id(value))
        if done is not None:
            return done
        if kind is dict:
            out: Any = TrackedDict()
            out._ef = None
            memo[id(value)] = out
            for key, member in value.items():
                dict.__setitem__(out, key, self._adopt(member, memo))
            out._ef = Meta(self, out)
            return out
        if kind is list:
            out = TrackedList()
            out._ef = None
            memo[id(value)] = out
            list.extend(out, [self._adopt(member, memo) for member in value])
            out._ef = Meta(self, out)
            return out
        if kind in TRACKED_CLASSES or _trackable_object(value):
            try:
                if kind not in TRACKED_CLASSES:
                    object.__setattr__(value, "__class__", tracked_class(kind))
            except (TypeError, AttributeError):
                return self._watch(value, memo)
            memo[id(value)] = value
            attrs = value.__dict__
            for name in list(attrs):
                attrs[name] = self._adopt(attrs[name], memo)
            attrs[META] = Meta(self, value)
            return value
        if _frozen(value):
            return value
        return self._watch(value, memo)

    def _watch(self, value: Any, memo: dict[int, Any]) -> Any:
        memo[id(value)] = value
        self.volatile.setdefault(id(value), Volatile(value))
        if is_generator(value) and not any(g is value for g in self.generators):
            self.generators.append(value)
        return value

    def settle(self) -> None:
        """Adopt what the last calls stored (no user code is running now)."""
        pending, self.pending = self.pending, []
        memo: dict[int, Any] = {}
        for holder, key in pending:
            if type(holder) is TrackedDict:
                if key in holder:
                    dict.__setitem__(holder, key, self._adopt(dict.__getitem__(holder, key), memo))
            elif type(holder) is TrackedList:
                if key < len(holder):
                    list.__setitem__(holder, key, self._adopt(list.__getitem__(holder, key), memo))
            elif key in holder.__dict__:
                holder.__dict__[key] = self._adopt(holder.__dict__[key], memo)

    # -- digest ------------------------------------------------------------------------------
    def digest(self) -> int:
        """The 128-bit digest of the object's state, hashing only what changed since the last."""
        self.settle()
        for watched in self.volatile.values():
            now = volatile_digest(watched.value)
            if now != watched.last:
                watched.last = now
                for holder, key in watched.up:
                    touch(meta_of(holder), key)
        return self._node(self.owner, meta_of(self.owner), {id(self.owner)})  # type: ignore[arg-type]

    def _node(self, node: Any, meta: Meta, path: set[int]) -> int:
        if meta.clean:
            return meta.digest
        self.hashed += 1
        members = _members(node)
        tag = DICT if type(node) is TrackedDict else LIST if type(node) is TrackedList else _h(b"O" + _name(node))
        if meta.items is None or meta.dirty is None:
            if len(members) <= SMALL and all(type(v) in SCALARS for v in members.values()):
                plain = {k: canonical_number(v) if type(v) is float else v for k, v in members.items()}
                data = orjson.dumps(plain, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
                meta.items, meta.dirty = None, set()
                meta.digest, meta.clean = _h(b"S" + tag.to_bytes(16, "big") + data), True
                return meta.digest
            meta.items = {key: self._item(node, key, value, path) for key, value in members.items()}
        else:
            for key in meta.dirty:
                if key in members:
                    meta.items[key] = self._item(node, key, members[key], path)
                else:
                    meta.items.pop(key, None)
        meta.dirty = set()
        meta.digest, meta.clean = (tag + sum(meta.items.values())) & MASK, True
        return meta.digest

    def _item(self, holder: Any, key: Any, value: Any, path: set[int]) -> int:
        """A member's share of its container's digest: for a list, its value's digest weighted by
        its place (no hashing: a list shifted by a deletion is summed again in microseconds); for a
        mapping or an object, a hash of the key and the value's digest."""
        inner = self._value(holder, key, value, path)
        if type(holder) is TrackedList:
            return (inner * (2 * key + 1) + key * SPREAD) & MASK
        return _h(_key_bytes(key) + b"\x00" + inner.to_bytes(16, "big"))

    def _value(self, holder: Any, key: Any, value: Any, path: set[int]) -> int:
        kind = type(value)
        if kind in SCALARS:
            return _scalar_digest(kind.__name__, value)
        meta = value._ef if kind is TrackedDict or kind is TrackedList else meta_of(value)
        if meta is not None:
            if id(value) in path:  # a reference back (a parent): no link, or a change would run down the tree
                return BACK
            link = (id(holder), key)
            if link not in meta.linked:
                meta.linked.add(link)
                meta.up.append((holder, key))
            if meta.clean:  # the common case: a member nothing touched
                return meta.digest  # type: ignore[no-any-return]
            path.add(id(value))
            inner = self._node(value, meta, path)
            path.discard(id(value))
            return inner
        if _frozen(value):
            return _frozen_digest(value)
        watched = self.volatile.get(id(value))
        if watched is None:  # stored behind the tracker's back (an object's __dict__ written directly)
            watched = self.volatile[id(value)] = Volatile(value)
        if not any(h is holder and k == key for h, k in watched.up):
            watched.up.append((holder, key))
        if watched.last < 0:
            watched.last = volatile_digest(value)
        return watched.last ^ VOLATILE

    # -- fresh copies ------------------------------------------------------------------------
    def reseed(self, seed: int) -> None:
        """Every random generator in the object reseeded from ``seed`` (in the order found)."""
        for i, generator in enumerate(self.generators):
            part = derive_seed(seed, "bound-random", i)
            if isinstance(generator, random.Random):
                generator.seed(part)
            else:
                generator.bit_generator.state = type(generator.bit_generator)(part).state

    def clone(self) -> Tracker:
        """A copy of the object, tracked, its caches kept: no user code runs and nothing is hashed
        again. The source is hashed first: a copy's caches must all be clean, so that each change
        marks every container above it as changed since the copy (what a roll back puts back)."""
        self.digest()
        new = Tracker.__new__(Tracker)
        new.pending, new.volatile, new.generators, new.hashed = [], {}, [], 0
        new.source, new.touched = self, []
        memo: dict[int, Any] = {}
        shared: list[tuple[Meta, Meta]] = []
        collecting = gc.isenabled()
        gc.disable()  # a copy makes objects only: collecting the heap again and again was most of its time
        try:
            new.owner = clone_value(self.owner, None, None, self, new, memo, shared)
        finally:
            if collecting:
                gc.enable()
        for old, made in shared:
            made.up = [(memo[id(h)], k) for h, k in old.up if id(h) in memo]
            made.linked = {(id(h), k) for h, k in made.up}
        for key, watched in self.volatile.items():
            if key in memo:
                copied = Volatile(memo[key], watched.last, watched.value)
                copied.up = [(memo[id(h)], k) for h, k in watched.up if id(h) in memo]
                new.volatile[id(copied.value)] = copied
        new.generators = [memo[id(g)] for g in self.generators if id(g) in memo]
        new.copies = memo
        return new

    def can_roll_back(self) -> bool:
        """Whether :meth:`roll_back` can bring this copy back to its source: every value it cannot
        watch is a random generator (reseeded anyway)."""
        if self.source is None:
            return False
        return all(w.source is None or restorable(w.value) for w in self.volatile.values())

    def roll_back(self) -> None:
        """Put every container changed since the copy back as its source has it, caches too: a
        fresh object in time proportional to what the episode changed."""
        assert self.source is not None
        self.settle()
        copies = self.copies
        for meta in self.touched:
            kept = meta_of(meta.source)
            if meta.since is not None and type(meta.node) is not TrackedList and kept is not None:
                put_back_keys(meta, kept, copies)
            else:
                put_back(meta, kept, copies)
            meta.touched, meta.since = False, set()
        self.touched = []
        still: dict[int, Volatile] = {}
        for key, watched in self.volatile.items():  # what a call made and stored went with its container
            if watched.source is not None:
                restore(watched.value, watched.source)  # generators are reseeded next
                watched.last = watched.initial
                still[key] = watched
        self.volatile = still


DICT, LIST = _h(b"D"), _h(b"L")


def _name(node: Any) -> bytes:
    cls = type(node)
    return (cls.__mro__[1] if cls in TRACKED_CLASSES else cls).__qualname__.encode()


def _members(node: Any) -> dict[Any, Any]:
    if type(node) is TrackedDict:
        return node  # type: ignore[no-any-return]
    if type(node) is TrackedList:
        return dict(enumerate(list.__iter__(node)))
    return {k: v for k, v in node.__dict__.items() if k != META and not callable(v)}


__all__ = ["TrackedDict", "TrackedList", "Tracker", "volatile_digest"]

"""The containers a bound object's state is adopted into: dicts, lists and objects that say which
member changed, and the bookkeeping (:class:`Meta`) that marks the containers above them dirty."""

from __future__ import annotations

import copy
import operator
import random
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, SupportsIndex

if TYPE_CHECKING:
    from envfactory.runtime.tracked import Tracker

META = "_ef_meta"  # the tracked object's bookkeeping, in its __dict__ (never hashed, never shown)
SCALARS = (str, int, float, bool, type(None))
SWAPPED: dict[type, type] = {}
TRACKED_CLASSES: set[type] = set()


class Meta:
    """One container's cache: its digest, per-member digests, the members changed since, and
    where it sits (``up``: the containers, and their keys, whose digests used this one)."""

    __slots__ = ("clean", "digest", "dirty", "items", "linked", "node", "since", "source", "touched", "tracker", "up")

    def __init__(self, tracker: Tracker, node: Any = None) -> None:
        self.tracker = tracker
        self.node = node  # the container itself; in a copy, ``source`` is the one it was copied from
        self.source: Any = None
        self.touched = False  # changed since it was copied (a rollback puts it back)
        self.since: set[Any] | None = set()  # the keys changed since it was copied; None: any
        self.up: list[tuple[Any, Any]] = []
        self.linked: set[tuple[int, Any]] = set()  # (id of the holder, key) of each of ``up``
        self.digest = 0
        self.clean = False
        self.items: dict[Any, int] | None = None  # None: hashed whole next time
        self.dirty: set[Any] | None = None  # None: every member

    def __deepcopy__(self, memo: dict[int, Any]) -> None:
        return None  # a copy of a tracked object is not tracked until it is adopted

    def __copy__(self) -> None:
        return None

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(None), ())


def touch(meta: Meta | None, key: Any) -> None:
    while meta is not None:
        if meta.source is not None:
            if not meta.touched:
                meta.touched = True
                meta.tracker.touched.append(meta)
            if meta.since is not None:
                meta.since.add(key)
        if meta.dirty is not None:
            meta.dirty.add(key)
        if not meta.clean:
            return  # the containers above already know
        meta.clean = False
        if len(meta.up) == 1:
            ((parent, key),) = meta.up
            meta = meta_of(parent)
            continue
        for parent, above in meta.up:
            touch(meta_of(parent), above)
        return


def touch_all(meta: Meta | None) -> None:
    if meta is not None:
        if meta.source is not None:
            if not meta.touched:
                meta.touched = True
                meta.tracker.touched.append(meta)
            meta.since = None
        meta.dirty = None
        meta.clean, was = False, meta.clean
        if was:
            for parent, above in meta.up:
                touch(meta_of(parent), above)


def stored(meta: Meta | None, holder: Any, key: Any, value: Any) -> None:
    """A call stored ``value`` under ``key``: adopt it when the call is over."""
    if meta is not None and type(value) not in SCALARS and meta_of(value) is None:
        meta.tracker.pending.append((holder, key))


class TrackedDict(dict):  # type: ignore[type-arg]
    """A dict that says which keys changed."""

    __slots__ = ("_ef",)
    _ef: Meta | None

    def __setitem__(self, key: Any, value: Any) -> None:
        dict.__setitem__(self, key, value)
        stored(self._ef, self, key, value)
        touch(self._ef, key)

    def __delitem__(self, key: Any) -> None:
        dict.__delitem__(self, key)
        touch(self._ef, key)

    def pop(self, key: Any, *default: Any) -> Any:
        had = key in self
        out = dict.pop(self, key, *default)
        if had:
            touch(self._ef, key)
        return out

    def popitem(self) -> tuple[Any, Any]:
        key, value = dict.popitem(self)
        touch(self._ef, key)
        return key, value

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return dict.__getitem__(self, key)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def clear(self) -> None:
        dict.clear(self)
        touch_all(self._ef)

    def __ior__(self, other: Any) -> TrackedDict:  # type: ignore[override,misc]
        self.update(other)
        return self

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        memo[id(self)] = out
        for key, value in dict.items(self):
            out[copy.deepcopy(key, memo)] = copy.deepcopy(value, memo)
        return out

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return (dict, (dict(self),))


class TrackedList(list):  # type: ignore[type-arg]
    """A list that says which places changed (any reshuffle: all of them)."""

    __slots__ = ("_ef",)
    _ef: Meta | None

    def __setitem__(self, index: Any, value: Any) -> None:
        list.__setitem__(self, index, value)
        if isinstance(index, slice):
            for i in range(len(self)):
                stored(self._ef, self, i, list.__getitem__(self, i))
            touch_all(self._ef)
        else:
            place = index % len(self)
            stored(self._ef, self, place, value)
            touch(self._ef, place)

    def __delitem__(self, index: Any) -> None:
        list.__delitem__(self, index)
        touch_all(self._ef)

    def append(self, value: Any) -> None:
        list.append(self, value)
        stored(self._ef, self, len(self) - 1, value)
        touch(self._ef, len(self) - 1)

    def extend(self, values: Iterable[Any]) -> None:
        start = len(self)
        list.extend(self, values)
        for i in range(start, len(self)):
            stored(self._ef, self, i, list.__getitem__(self, i))
            touch(self._ef, i)

    def __iadd__(self, values: Iterable[Any]) -> TrackedList:  # type: ignore[override,misc]
        self.extend(values)
        return self

    def pop(self, index: SupportsIndex = -1) -> Any:
        last = len(self) - 1
        out = list.pop(self, index)
        if operator.index(index) in (-1, last):
            touch(self._ef, last)
        else:
            touch_all(self._ef)
        return out

    def _reshuffled(name: str) -> Callable[..., Any]:  # type: ignore[misc]
        base = getattr(list, name)

        def method(self: TrackedList, *args: Any, **kwargs: Any) -> Any:
            out = base(self, *args, **kwargs)
            if name in ("insert", "__imul__"):
                for i in range(len(self)):
                    stored(self._ef, self, i, list.__getitem__(self, i))
            touch_all(self._ef)
            return self if name == "__imul__" else out

        return method

    insert = _reshuffled("insert")
    remove = _reshuffled("remove")
    clear = _reshuffled("clear")
    sort = _reshuffled("sort")
    reverse = _reshuffled("reverse")
    __imul__ = _reshuffled("__imul__")

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        out: list[Any] = []
        memo[id(self)] = out
        out.extend(copy.deepcopy(v, memo) for v in list.__iter__(self))
        return out

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        return (list, (list(self),))


def tracked_class(cls: type) -> type:
    """``cls`` with a ``__setattr__`` that reports (made once per class)."""
    made = SWAPPED.get(cls)
    if made is not None:
        return made

    def __setattr__(self: Any, name: str, value: Any) -> None:
        super(made, self).__setattr__(name, value)  # type: ignore[arg-type]
        meta = self.__dict__.get(META)
        if meta is None or name == META:
            return
        if name in self.__dict__:
            stored(meta, self, name, value)
            touch(meta, name)
        else:
            touch_all(meta)  # a property stored it elsewhere

    def __delattr__(self: Any, name: str) -> None:
        super(made, self).__delattr__(name)  # type: ignore[arg-type]
        touch(self.__dict__.get(META), name)

    namespace = {"__slots__": (), "__setattr__": __setattr__, "__delattr__": __delattr__,
                 "__module__": cls.__module__, "__qualname__": cls.__qualname__}  # fmt: skip
    made = type(cls)(cls.__name__, (cls,), namespace)
    SWAPPED[cls] = made
    TRACKED_CLASSES.add(made)
    return made


def meta_of(value: Any) -> Meta | None:
    if type(value) in (TrackedDict, TrackedList):
        return value._ef  # type: ignore[no-any-return]
    attrs = getattr(value, "__dict__", None)
    return attrs.get(META) if type(attrs) is dict else None


def is_generator(value: Any) -> bool:
    return isinstance(value, random.Random) or hasattr(getattr(value, "bit_generator", None), "state")


__all__ = ["META", "SCALARS", "Meta", "TrackedDict", "TrackedList", "is_generator", "meta_of", "touch", "touch_all"]

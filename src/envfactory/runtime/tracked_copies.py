"""Copies of a tracked object and their roll back: what a fresh episode costs."""

from __future__ import annotations

import collections
import copy
import random
from typing import TYPE_CHECKING, Any

from envfactory.runtime.tracked_containers import META, SCALARS, Meta, TrackedDict, TrackedList, is_generator

if TYPE_CHECKING:
    from envfactory.runtime.tracked import Tracker


def put_back(meta: Meta, kept: Meta | None, copies: dict[int, Any]) -> None:
    """Every member of a copied container as its source holds it (the caches too)."""
    node, source = meta.node, meta.source
    if type(node) is TrackedDict:
        dict.clear(node)
        for key, member in dict.items(source):
            dict.__setitem__(node, key, copies.get(id(member), member))
    elif type(node) is TrackedList:
        list.clear(node)
        list.extend(node, [copies.get(id(m), m) for m in list.__iter__(source)])
    else:
        attrs = node.__dict__
        attrs.clear()
        attrs.update({k: copies.get(id(m), m) for k, m in source.__dict__.items() if k != META})
        attrs[META] = meta
    if kept is not None:
        meta.digest, meta.clean = kept.digest, kept.clean
        meta.items = dict(kept.items) if kept.items is not None else None
        meta.dirty = set(kept.dirty) if kept.dirty is not None else None


def put_back_keys(meta: Meta, kept: Meta, copies: dict[int, Any]) -> None:
    """Only the keys changed since the copy put back (a dict or an object): a write to one of
    10,000 records costs one record."""
    node, source = meta.node, meta.source
    mine = node if type(node) is TrackedDict else node.__dict__
    theirs = source if type(source) is TrackedDict else source.__dict__
    exact = meta.items is not None and kept.items is not None
    for key in meta.since:  # type: ignore[union-attr]
        if key in theirs:
            member = dict.__getitem__(theirs, key)
            dict.__setitem__(mine, key, copies.get(id(member), member))
        elif key in mine:
            dict.__delitem__(mine, key)
        if exact:
            if key in kept.items:  # type: ignore[operator]
                meta.items[key] = kept.items[key]  # type: ignore[index]
            else:
                meta.items.pop(key, None)  # type: ignore[union-attr]
    if not exact:
        meta.items = dict(kept.items) if kept.items is not None else None
    meta.digest, meta.clean = kept.digest, kept.clean
    meta.dirty = set(kept.dirty) if kept.dirty is not None else None


RESTORABLE = (set, collections.deque, collections.OrderedDict, collections.defaultdict, collections.Counter, bytearray)


def restorable(value: Any) -> bool:
    return is_generator(value) or isinstance(value, RESTORABLE)


def restore(value: Any, source: Any) -> None:
    """A copied value the tracker cannot watch, put back in place as its source holds it."""
    if isinstance(value, random.Random):
        value.setstate(source.getstate())
    elif is_generator(value):
        value.bit_generator.state = source.bit_generator.state
    elif isinstance(value, set):
        value.clear()
        value.update(copy.deepcopy(source))
    elif isinstance(value, (collections.deque, bytearray)):
        value.clear()
        value.extend(copy.deepcopy(list(source)))
    else:  # the dict kinds
        value.clear()
        value.update(copy.deepcopy(dict(source)))


def copy_meta(meta: Meta, tracker: Tracker, holder: Any, key: Any) -> Meta:
    made = Meta.__new__(Meta)
    made.tracker, made.digest, made.clean = tracker, meta.digest, meta.clean
    made.source, made.touched, made.since = meta.node, False, set()
    made.items = dict(meta.items) if meta.items is not None else None
    made.dirty = set(meta.dirty) if meta.dirty is not None else None
    made.up = [(holder, key)] if holder is not None and meta.up else []
    made.linked = {(id(holder), key)} if made.up else set()
    return made


def clone_value(value: Any, key: Any, holder: Any, old: Tracker, new: Tracker, memo: dict[int, Any],
           shared: list[tuple[Meta, Meta]]) -> Any:  # fmt: skip
    """A copy of ``value`` (held by the copy ``holder`` under ``key``), caches kept; a value held
    in more than one place gets its other places back at the end (``shared``)."""
    done = memo.get(id(value))
    if done is not None:
        return done
    kind = type(value)
    if kind is TrackedDict or kind is TrackedList:
        meta = value._ef
    else:
        attrs = getattr(value, "__dict__", None)
        meta = attrs.get(META) if type(attrs) is dict else None
    if meta is None:
        if id(value) in old.volatile:
            return copy.deepcopy(value, memo)
        return value  # frozen
    made = copy_meta(meta, new, holder, key)
    if len(meta.up) > 1:
        shared.append((meta, made))
    if kind is TrackedDict:
        out: Any = TrackedDict()
        out._ef = None
        memo[id(value)] = out
        if meta.items is None and meta.clean:  # all scalars: nothing to recurse into
            dict.update(out, value)
        else:
            for k, member in dict.items(value):
                dict.__setitem__(out, k, member if type(member) in SCALARS else
                                 clone_value(member, k, out, old, new, memo, shared))  # fmt: skip
        out._ef, made.node = made, out
        return out
    if kind is TrackedList:
        out = TrackedList()
        out._ef = None
        memo[id(value)] = out
        if meta.items is None and meta.clean:
            list.extend(out, value)
        else:
            list.extend(out, [m if type(m) in SCALARS else clone_value(m, i, out, old, new, memo, shared)
                              for i, m in enumerate(list.__iter__(value))])  # fmt: skip
        out._ef, made.node = made, out
        return out
    out = object.__new__(kind)
    memo[id(value)] = out
    copied = out.__dict__
    for name, member in value.__dict__.items():
        if name != META:
            copied[name] = member if type(member) in SCALARS else clone_value(member, name, out, old, new, memo, shared)
    copied[META], made.node = made, out
    return out


__all__ = ["clone_value", "put_back", "put_back_keys", "restorable", "restore"]

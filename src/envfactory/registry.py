"""One generic name -> item registry, used instead of if-chains across the code base."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from envfactory.errors import RegistryError

T = TypeVar("T")


class Registry(Generic[T]):
    """An ordered mapping from names to items that refuses duplicates.

    >>> shapes = Registry[int]("shapes")
    >>> shapes.add("square", 4)
    4
    >>> shapes["square"]
    4
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        self._deferred: dict[str, str] = {}  # name -> the module that registers it when imported

    def add(self, name: str, item: T) -> T:
        if name in self._items:
            raise RegistryError(f"{self.kind} {name!r} is already registered")
        self._items[name] = item
        return item

    def defer(self, name: str, module: str) -> None:
        """``name`` is registered by ``module``, imported the first time ``name`` is looked up: a
        layer below names what a layer above provides without importing it (the runtime's live
        server executor lives with the real implementations, which import the runtime)."""
        if name in self._items or name in self._deferred:
            raise RegistryError(f"{self.kind} {name!r} is already registered")
        self._deferred[name] = module

    def _load(self, name: str) -> None:
        module = self._deferred.pop(name, None)
        if module is not None:
            importlib.import_module(module)
            if name not in self._items:
                raise RegistryError(f"{self.kind} {name!r}: importing {module} did not register it")

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator form of :meth:`add`."""

        def deco(item: T) -> T:
            return self.add(name, item)

        return deco

    def __getitem__(self, name: str) -> T:
        self._load(name)
        try:
            return self._items[name]
        except KeyError:
            known = ", ".join([*self._items, *self._deferred]) or "none"
            raise RegistryError(f"unknown {self.kind} {name!r} (known: {known})") from None

    def get(self, name: str) -> T | None:
        self._load(name)
        return self._items.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._items or name in self._deferred

    def __iter__(self) -> Iterator[str]:
        return iter([*self._items, *self._deferred])

    def __len__(self) -> int:
        return len(self._items) + len(self._deferred)

    def items(self) -> list[tuple[str, T]]:
        for name in list(self._deferred):
            self._load(name)
        return list(self._items.items())

"""One generic name -> item registry, used instead of if-chains across the code base."""

from __future__ import annotations

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

    def add(self, name: str, item: T) -> T:
        if name in self._items:
            raise RegistryError(f"{self.kind} {name!r} is already registered")
        self._items[name] = item
        return item

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator form of :meth:`add`."""

        def deco(item: T) -> T:
            return self.add(name, item)

        return deco

    def __getitem__(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            known = ", ".join(self._items) or "none"
            raise RegistryError(f"unknown {self.kind} {name!r} (known: {known})") from None

    def get(self, name: str) -> T | None:
        return self._items.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def items(self) -> list[tuple[str, T]]:
        return list(self._items.items())

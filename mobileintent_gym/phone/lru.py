"""A small least-recently-used map for the phone's caches of built screens."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class LRU(Generic[V]):
    """At most ``size`` entries; reading one makes it the most recently used."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()

    def get(self, key: Hashable) -> V | None:
        """The value for ``key``, or ``None``."""
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: Hashable, value: V) -> V:
        """Store ``value`` (evicting the least recently used entry past ``size``)."""
        self._items[key] = value
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return value

    def clear(self) -> None:
        """Drop every entry."""
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

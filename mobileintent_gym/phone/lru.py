"""A small least-recently-used map for the phone's caches of built screens."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class LRU(Generic[V]):
    """At most ``size`` entries; reading one makes it the most recently used.

    Threads may share one: each call is whole (a read and another thread's eviction of
    the same entry raised ``KeyError``).
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        """The value for ``key``, or ``None``."""
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Hashable, value: V) -> V:
        """Store ``value`` (evicting the least recently used entry past ``size``)."""
        with self._lock:
            self._items[key] = value
            if len(self._items) > self.size:
                self._items.popitem(last=False)
            return value

    def __getstate__(self) -> dict[str, object]:
        """What a copy or a pickle holds: the entries, not the lock."""
        with self._lock:
            return {"size": self.size, "items": OrderedDict(self._items)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuild from :meth:`__getstate__`, with a lock of its own."""
        self.size, self._items, self._lock = state["size"], state["items"], threading.Lock()

    def clear(self) -> None:
        """Drop every entry."""
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

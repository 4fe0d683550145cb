"""What a process holds once, when threads share it: cached singletons, torch's RNG.

``functools.cache`` lets threads that call a function together, before its first result
is cached, all run it: each would load its own copy of a model. :func:`once` runs such a
call once. :data:`TORCH_RNG` is held while torch's global random generator is seeded and
drawn from. The locks here are renewed in a child forked while a thread held one (it
would wait for that thread, which the child does not have, for ever).
"""

from __future__ import annotations

import functools
import os
import threading
from collections import namedtuple
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

CacheInfo = namedtuple("CacheInfo", "hits misses maxsize currsize")
"""What ``cache_info()`` of a :func:`once` function says, as ``functools.cache``'s does."""


class ForkSafeLock:
    """A lock (reentrant with ``reentrant=True``) that a forked child gets afresh.

    Use it as a context manager, as a ``threading`` lock. Each registers a hook that runs
    at every fork for the rest of the process: make them once (at import, or per cached
    function), not per object. Forking while the forking thread holds one is unsupported
    (the child's release of the renewed lock raises).
    """

    def __init__(self, reentrant: bool = False) -> None:
        self._make = threading.RLock if reentrant else threading.Lock
        self._lock = self._make()
        if hasattr(os, "register_at_fork"):  # not on Windows, which does not fork
            os.register_at_fork(after_in_child=self._renew)

    def _renew(self) -> None:
        self._lock = self._make()

    def __enter__(self) -> bool:
        return self._lock.__enter__()

    def __exit__(self, *exc: object) -> None:
        self._lock.__exit__(*exc)


TORCH_RNG = ForkSafeLock(reentrant=True)
"""Held while torch's global random generator is forked, seeded and drawn from: a seeded
call holding it draws what its seed says, whatever other calls holding it draw."""


def once(function: Callable[P, R]) -> Callable[P, R]:
    """``functools.cache``, where threads calling with the same arguments run it once.

    A result cached is returned at once; a call not cached yet waits for one in progress
    (another's arguments included) and may make another of the same function (the lock is
    reentrant). ``cache_clear`` and ``cache_info`` are as ``functools.cache``'s.
    """
    results: dict[Any, R] = {}
    lock = ForkSafeLock(reentrant=True)
    counts = {"hits": 0, "misses": 0}
    counting = ForkSafeLock()  # hits are counted outside ``lock``

    @functools.wraps(function)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        key = (args, tuple(sorted(kwargs.items())))
        try:
            result = results[key]
        except KeyError:  # not cached (or cleared meanwhile)
            pass
        else:
            with counting:
                counts["hits"] += 1
            return result
        with lock:
            if key not in results:
                counts["misses"] += 1
                results[key] = function(*args, **kwargs)
            return results[key]

    def clear() -> None:
        with lock, counting:
            results.clear()
            counts.update(hits=0, misses=0)

    call.cache_clear = clear  # type: ignore[attr-defined]
    call.cache_info = lambda: CacheInfo(counts["hits"], counts["misses"], None,  # type: ignore[attr-defined]
                                        len(results))
    return call

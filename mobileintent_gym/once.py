"""What a process holds once, when threads share it: cached singletons, torch's RNG.

``functools.cache`` lets threads that call a function together, before its first result
is cached, all run it: each would load its own copy of a model. :func:`once` runs such a
call once. :data:`TORCH_RNG` is held while torch's global random generator is seeded and
drawn from, which a seeded sample needs to itself.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

TORCH_RNG = threading.RLock()
"""Held while torch's global random generator is forked, seeded and drawn from: a seeded
call then draws what its seed says, whatever other threads draw meanwhile."""


def once(function: Callable[P, R]) -> Callable[P, R]:
    """``functools.cache``, where threads calling with the same arguments run it once.

    Calls go one at a time (a cached one returns at once); a call may make another of the
    same function (the lock is reentrant). ``cache_clear`` and ``cache_info`` are
    ``functools.cache``'s.
    """
    cached = functools.cache(function)
    lock = threading.RLock()

    @functools.wraps(function)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        with lock:
            return cached(*args, **kwargs)

    call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    call.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return call

"""Handing a worker's freed heap memory back to the OS.

Each step allocates and frees thousands of small buffers (tiles, glyph masks, hierarchy
trees, info dicts). glibc's ``free`` gives memory back only from the top of its heap, so
pages freed below live objects stay in the process: an env process stepping random
actions held about 25 MB of them after 1,000 steps, and more the longer it ran.
``malloc_trim(0)`` returns every free page (2.0–3.4 ms in a process of 125–134 MB), so
env workers call :class:`HeapTrimmer` between commands, at most once every
:data:`TRIM_SECONDS`.
"""

from __future__ import annotations

import ctypes
import time
from collections.abc import Callable

TRIM_SECONDS = 1.0
"""Least time between two trims of one process's heap."""


def _malloc_trim() -> Callable[[int], int] | None:
    """The C library's ``malloc_trim`` (glibc), or ``None`` where it has none.

    macOS and musl have no such function; on Windows ``CDLL(None)`` is a ``TypeError``.
    """
    try:
        return ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):
        return None


class HeapTrimmer:
    """Calling it gives freed heap pages back to the OS, unless it did so lately.

    Args:
        interval: Least seconds between two trims.
    """

    def __init__(self, interval: float = TRIM_SECONDS) -> None:
        self.interval = interval
        self._trim = _malloc_trim()
        self._due = time.monotonic() + interval

    def __call__(self) -> bool:
        """Trim if ``interval`` has passed since the last trim; whether it trimmed."""
        now = time.monotonic()
        if self._trim is None or now < self._due:
            return False
        self._trim(0)
        self._due = now + self.interval
        return True

"""Whether an object handed out is still referenced by someone else.

The renderer's frames and the vector env's shared-memory batches are reused in place once
nobody outside holds them (views and tensors sharing their memory hold them too).
"""

from __future__ import annotations

import sys


def held(value: object) -> bool:
    """Whether ``value``, kept in one place (an attribute or a dict entry), has other holders.

    Compares its reference count with that of an object kept in one place, measured the
    same way at import, since what ``sys.getrefcount`` reports differs between versions.
    """
    return sys.getrefcount(value) > _KEPT_ONCE


def _references(value: object) -> int:
    """``value``'s reference count as :func:`held` reads it (the same call shape)."""
    return sys.getrefcount(value)


_PROBE = {"value": object()}
_KEPT_ONCE = _references(_PROBE["value"])

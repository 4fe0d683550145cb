"""Checks of :class:`~mobileintent_gym.envs.vector.SharedMemoryVectorEnv`'s arguments.

Sub-env ids, seeds, a reset mask and the CPUs to pin workers to, each refused with a
``ValueError`` naming the value before anything is sent to a worker.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from mobileintent_gym.checks import is_integer
from mobileintent_gym.errors import brief

ONLINE_CPUS = Path("/sys/devices/system/cpu/online")
"""Where Linux lists the CPUs that are online ("0-3,6-7"): their numbers can have gaps."""


def checked_ids(env_ids: Sequence[int] | np.ndarray | None, num_envs: int) -> list[int]:
    """``env_ids`` as a list of distinct sub-env numbers (every one for ``None``)."""
    if env_ids is None:
        return list(range(num_envs))
    listed = _listed(env_ids)
    if not listed or any(not (is_integer(i) and 0 <= i < num_envs) for i in listed) or (
            len(set(listed)) != len(listed)):
        raise ValueError(f"env_ids must name distinct sub-envs (0-{num_envs - 1}), "
                         f"got {env_ids!r}")
    return [int(i) for i in listed]


def _listed(values: Any) -> list[Any]:
    """A sequence (a list, tuple, range; not text or bytes) or 1-D array as a list; else []."""
    if (isinstance(values, Sequence) and not isinstance(values, str | bytes | bytearray
                                                          | memoryview)) or (
            isinstance(values, np.ndarray) and values.ndim == 1):
        return list(values)
    return []


def checked_seeds(seed: int | Sequence[int | None] | None, num_envs: int) -> list[int | None]:
    """The sub-envs' seeds, each ``None`` or a Python int >= 0, checked before any is sent.

    A seed refused in a worker would leave the sub-envs before it reset and those after
    it not, so every seed is checked here first.
    """
    if seed is None:
        return [None] * num_envs
    if is_integer(seed) and seed >= 0:
        return [int(seed) + i for i in range(num_envs)]
    listed = _listed(seed)
    if len(listed) != num_envs or any(
            s is not None and not (is_integer(s) and s >= 0) for s in listed):
        raise ValueError(f"seed must be None, an int >= 0 or a list of {num_envs} such "
                         f"seeds (None for unseeded), got {brief(seed)}")
    return [None if s is None else int(s) for s in listed]


def checked_cpus(cpus: Sequence[int] | None) -> list[int] | None:
    """``cpus`` as a list of this machine's online CPU numbers (``None``: no pinning).

    Raises:
        ValueError: For an empty list, a number that is no online CPU, or another system
            than Linux.
    """
    if cpus is None:
        return None
    if not hasattr(os, "sched_setaffinity"):
        raise ValueError(f"cpus={cpus!r}: pinning workers to CPUs needs Linux")
    listing = _online_cpus()
    listed = list(cpus) if isinstance(cpus, Iterable) else []
    online = {cpu for span in listing.split(",") for cpu in _span(span)}
    if not listed or any(not (is_integer(c) and c in online) for c in listed):
        raise ValueError(f"cpus must list CPU numbers of this machine ({listing}), "
                         f"got {cpus!r}")
    return [int(c) for c in listed]


def _online_cpus() -> str:
    """This machine's online CPUs as Linux lists them ("0-3,6-7": numbers can have gaps).

    Where Linux does not list them: 0 to ``os.cpu_count() - 1``.
    """
    try:
        return ONLINE_CPUS.read_text().strip()
    except OSError:
        return f"0-{(os.cpu_count() or 1) - 1}"


def _span(span: str) -> range:
    """The numbers of one span of a CPU listing: "6-7" or "9"."""
    first, _, last = span.partition("-")
    return range(int(first), int(last or first) + 1)


def checked_mask(mask: Any, num_envs: int) -> np.ndarray:
    """A reset's ``options["reset_mask"]``: a bool array of one entry per sub-env.

    Raises:
        ValueError: Unless it is such an array with a True value.
    """
    if not (isinstance(mask, np.ndarray) and mask.dtype == np.bool_
            and mask.shape == (num_envs,) and mask.any()):
        raise ValueError(f"options['reset_mask'] must be a bool array of shape ({num_envs},) "
                         f"with a True value, got {mask!r}")
    return mask

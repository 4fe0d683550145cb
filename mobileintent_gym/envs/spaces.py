"""Observation spaces shared by the environments."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from gymnasium import spaces

INSTRUCTION_LENGTH = 512
HIERARCHY_LENGTH = 1 << 20


@lru_cache(maxsize=1)
def unicode_charset() -> str:
    """Every printable character of Unicode's basic plane (labels and dumps use any)."""
    return "".join(c for c in map(chr, range(0x20, 0x10000))
                   if c.isprintable() and not 0xD800 <= ord(c) <= 0xDFFF)


def observation_space(width: int, height: int, fields: tuple[str, ...]) -> spaces.Dict:
    """The Dict observation space of ``fields`` for a ``width`` × ``height`` screen.

    Fields: ``screenshot`` (H×W×3 uint8), ``instruction`` (text) and ``hierarchy`` (the
    uiautomator dump).

    Raises:
        ValueError: Naming an unknown field.
    """
    known = {
        "screenshot": lambda: spaces.Box(0, 255, (height, width, 3), np.uint8),
        "instruction": lambda: spaces.Text(INSTRUCTION_LENGTH, min_length=1,
                                           charset=unicode_charset()),
        "hierarchy": lambda: spaces.Text(HIERARCHY_LENGTH, min_length=1,
                                         charset=unicode_charset()),
    }
    unknown = [f for f in fields if f not in known]
    if unknown or not fields:
        raise ValueError(f"observation fields must be a non-empty subset of {sorted(known)}, "
                         f"got {fields!r}")
    return spaces.Dict({name: known[name]() for name in fields})

"""Type checks shared by argument and data validation."""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np


def is_integer(value: Any) -> bool:
    """Whether ``value`` is an integer, Python's or NumPy's; a bool is not one."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """Whether ``value`` is a real number (integer or float, NumPy's too); a bool is not one."""
    return isinstance(value, Real) and not isinstance(value, bool)


def is_digits(text: str) -> bool:
    """Whether ``text`` is one or more ASCII digits: a plain number that ``int()`` reads.

    ``str.isdigit`` also takes characters such as ``²`` that ``int()`` refuses.
    """
    return text.isascii() and text.isdigit()

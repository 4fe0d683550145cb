"""How :class:`~mobileintent_gym.envs.vector.SharedMemoryVectorEnv` batches its sub-envs' ``info``.

As Gymnasium's vector envs do — every key an array over the sub-envs beside a ``_key``
mask of those that gave it, dicts batched key by key, ``final_obs`` an object array — but
an array's type does not depend on which sub-env came first. Gymnasium types a key by
the first value it meets, so a score that is ``None`` (undefined) in one sub-env and a
number in another came out as ``[0.5, nan]`` or as an object array ``[None, 0.5]``
(which ``np.nanmean`` cannot take) by the sub-envs' order, and a float after an int was
cut to an int. Here numbers and ``None`` batch as one number array, widened as values
come (bool, then int, then float), ``None`` as NaN; anything else makes the array an
object array, where ``None`` stays ``None`` (so does a key that is ``None`` in every
sub-env).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

# Number arrays by how wide a value they hold; None needs a float (NaN).
_WIDTH = {"b": 0, "i": 1, "u": 1, "f": 2}


def add_info(infos: dict[str, Any], info: dict[str, Any], index: int, size: int
             ) -> dict[str, Any]:
    """Add sub-env ``index``'s ``info`` to the batched ``infos`` of ``size`` sub-envs.

    Returns:
        ``infos``, updated in place.
    """
    for key, value in info.items():
        if key == "final_obs":
            array = infos.get(key)
            if array is None:
                array = np.full(size, None, dtype=object)
            array[index] = value
        elif isinstance(value, dict):
            array = add_info(infos.get(key, {}), value, index, size)
        else:
            array = _placed(infos.get(key), value, index, size)
        mask = infos.get(f"_{key}", np.zeros(size, dtype=np.bool_))
        mask[index] = True
        infos[key], infos[f"_{key}"] = array, mask
    return infos


def _placed(array: np.ndarray | None, value: Any, index: int, size: int) -> np.ndarray:
    """``array`` (made or widened to hold ``value``) with ``value`` at ``index``."""
    width = _width(value)
    if array is None:
        array = _new(value, width, size)
    elif array.dtype == object:
        # A number after Nones only: the Nones were undefined numbers.
        if value is not None and width < 3 and all(v is None for v in array):
            array = np.full(size, np.nan)
    elif array.ndim > 1 or isinstance(value, np.ndarray):
        if not (isinstance(value, np.ndarray) and value.shape == array.shape[1:]):
            array = _objects(array)
    elif width > _WIDTH.get(array.dtype.kind, 3):
        array = array.astype((np.int64, np.float64)[width - 1]) if width < 3 else _objects(array)
    elif array.dtype.kind not in _WIDTH:  # str, complex ...
        array = _objects(array)
    array[index] = np.nan if value is None and array.dtype != object else value
    return array


def _new(value: Any, width: int, size: int) -> np.ndarray:
    """The array a key's first value starts: typed by it, ``None`` waiting in objects."""
    if isinstance(value, np.ndarray):
        return np.zeros((size, *value.shape), dtype=value.dtype)
    if value is None or width == 3:
        return np.full(size, None, dtype=object)
    return np.zeros(size, dtype=(bool, np.int64, np.float64)[width])


def _width(value: Any) -> int:
    """0 for a bool, 1 an integer, 2 a real number or ``None``, 3 anything else."""
    if isinstance(value, bool | np.bool_):
        return 0
    if isinstance(value, numbers.Integral):
        return 1
    if value is None or isinstance(value, numbers.Real):
        return 2
    return 3


def _objects(array: np.ndarray) -> np.ndarray:
    """``array`` as an object array of one entry per sub-env."""
    objects = np.empty(len(array), dtype=object)
    objects[:] = list(array)
    return objects

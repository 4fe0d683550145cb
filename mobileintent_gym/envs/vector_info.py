"""How :class:`~mobileintent_gym.envs.vector.SharedMemoryVectorEnv` batches its sub-envs' ``info``.

As Gymnasium's vector envs do — every key an array over the sub-envs beside a ``_key``
mask of those that gave it, dicts batched key by key, ``final_obs`` an object array — but
an array's type does not depend on which sub-env came first. Gymnasium types a key by
the first value it meets, so a score that is ``None`` (undefined) in one sub-env and a
number in another came out as ``[0.5, nan]`` or as an object array ``[None, 0.5]``
(which ``np.nanmean`` cannot take) by the sub-envs' order, and a float after an int was
cut to an int. Here numbers (Python's, NumPy's, and arrays of one shape) batch as one
number array, widened as values come (``np.result_type``: an int beyond int64 after ints
makes them floats), ``None`` among them as NaN;
anything else makes the array an object array, where ``None`` stays ``None`` (so does a
key that is ``None`` in every sub-env, unless it held numbers in an earlier batch). A key
that is a dict in one sub-env and ``None`` in another is left unset (masked) for the
latter; one that is a dict in one sub-env and anything else in another is refused,
naming it.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from mobileintent_gym.errors import MobileIntentError

_NUMBER_KINDS = "biuf"
# A Python value of one of these types fits an array of exactly this type as it is.
_SAME = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64)}
_INT64 = (int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max))


def add_info(infos: dict[str, Any], info: dict[str, Any], index: int, size: int,
             numeric: set[tuple[str, ...]] | None = None, path: tuple[str, ...] = ()
             ) -> dict[str, Any]:
    """Add sub-env ``index``'s ``info`` to the batched ``infos`` of ``size`` sub-envs.

    Args:
        infos: The batch so far.
        info: The sub-env's ``info``.
        index: The sub-env's place in the batch.
        size: Sub-envs in the batch.
        numeric: Keys (paths through dicts) seen holding numbers, in this batch or an
            earlier one (added to): a batch whose values of such a key are all ``None``
            is NaN, not objects, as a batch that also holds numbers is.
        path: The keys of the dict ``info`` is in (for ``numeric``).

    Returns:
        ``infos``, updated in place.

    Raises:
        MobileIntentError: For a key that is a dict in one sub-env and a value other
            than a dict or ``None`` in another.
    """
    for key, value in info.items():
        held = infos.get(key)
        if key == "final_obs":
            array = np.full(size, None, dtype=object) if held is None else held
            array[index] = value
        elif isinstance(value, dict) or isinstance(held, dict):
            if value is None:
                continue  # not known yet in this sub-env: masked
            if not (isinstance(value, dict) and (held is None or isinstance(held, dict)
                                                 or _only_none(held))):
                other = held if isinstance(value, dict) else value  # the one no dict
                raise MobileIntentError(f"info key {key!r} is a dict in one sub-env and "
                                        f"{type(other).__name__} in another; vector envs "
                                        "batch one kind of value per key")
            if held is not None and not isinstance(held, dict):  # Nones so far: unset
                infos.pop(f"_{key}")
            array = add_info(held if isinstance(held, dict) else {}, value, index, size,
                             numeric, (*path, key))
        elif held is not None and _fits(held, value):
            held[index] = value
            array = held
        else:
            array = _placed(held, value, index, size, numeric, (*path, key))
        mask = infos.get(f"_{key}")
        if mask is None:
            mask = np.zeros(size, dtype=np.bool_)
        mask[index] = True
        infos[key], infos[f"_{key}"] = array, mask
    return infos


def batch_infos(infos: Sequence[dict[str, Any] | None],
                numeric: set[tuple[str, ...]] | None = None) -> dict[str, Any]:
    """Batch the sub-envs' ``info`` dicts (``None``: a sub-env that gave none), in one go.

    The result holds what :func:`add_info` gives when called for each sub-env in turn (the
    same arrays, masks and ``numeric`` keys, and the same error; only the order of its
    keys may differ), but a key whose values are all of one of Python's number types, or
    all of types that are never numbers (text, tuples, events), is batched with one array
    for every sub-env at once. The parent of a vector env batches every key of every
    step, so this is its steady state; other keys (``None`` among numbers, NumPy values,
    dicts) go through :func:`add_info`.

    Args:
        infos: One per sub-env, in order.
        numeric: As for :func:`add_info` (added to).

    Raises:
        MobileIntentError: As :func:`add_info`.
    """
    given = [(i, info) for i, info in enumerate(infos) if info]
    keys = dict.fromkeys(key for _, info in given for key in info)
    # One by one: a single sub-env (its keys one at a time cost less), or a key beside
    # one named as its mask.
    if len(given) < 2 or any(f"_{key}" in keys for key in keys):
        return _one_by_one(given, len(infos), numeric)
    seen = None if numeric is None else set(numeric)
    try:
        return _by_key(given, keys, len(infos), numeric)
    except MobileIntentError:  # raise the error add_info meets first, sub-env after
        if numeric is not None:  # sub-env, with numeric as add_info leaves it
            numeric.intersection_update(seen)
        return _one_by_one(given, len(infos), numeric)


def _one_by_one(given: list[tuple[int, dict[str, Any]]], size: int,
                numeric: set[tuple[str, ...]] | None) -> dict[str, Any]:
    """:func:`add_info` for each ``(sub-env, info)`` in turn."""
    batched: dict[str, Any] = {}
    for index, info in given:
        batched = add_info(batched, info, index, size, numeric)
    return batched


def _by_key(given: list[tuple[int, dict[str, Any]]], keys: dict[str, None], size: int,
            numeric: set[tuple[str, ...]] | None) -> dict[str, Any]:
    """The infos batched a key at a time (see :func:`batch_infos`)."""
    batched, every = {}, np.ones(size, dtype=np.bool_)  # copied: cheaper than np.ones
    for key in keys:
        column = [(index, info[key]) for index, info in given if key in info]
        array = None if key == "final_obs" else _column(column, size)
        if array is None:
            for index, value in column:
                add_info(batched, {key: value}, index, size, numeric)
            continue
        if array.dtype != object and numeric is not None:
            numeric.add((key,))
        if len(column) == size:
            mask = every.copy()
        else:
            mask = np.zeros(size, dtype=np.bool_)
            mask[[index for index, _ in column]] = True
        batched[key], batched[f"_{key}"] = array, mask
    return batched


def _column(column: list[tuple[int, Any]], size: int) -> np.ndarray | None:
    """One key's values (``(sub-env, value)`` pairs) as an array of ``size``; or ``None``.

    ``None`` unless the values are all of one Python number type, or all of types that
    are never numbers (nor ``None``, nor dicts).
    """
    values = [value for _, value in column]
    kinds = {type(value) for value in values}
    first = next(iter(kinds))
    if len(kinds) == 1 and first in _SAME:
        try:
            if len(values) == size:
                return np.array(values, dtype=_SAME[first])
            array = np.zeros(size, dtype=_SAME[first])
            array[[index for index, _ in column]] = values
        except OverflowError:  # an int beyond int64: as add_info takes it
            return None
        return array
    if not all(map(_plain_object, kinds)):
        return None
    if len(values) == size:  # each value one entry, a tuple too
        return np.fromiter(values, dtype=object, count=size)
    array = np.full(size, None, dtype=object)
    for index, value in column:
        array[index] = value
    return array


def _placed(array: np.ndarray | None, value: Any, index: int, size: int,
            numeric: set[tuple[str, ...]] | None, key: tuple[str, ...]) -> np.ndarray:
    """``array`` (made or widened to hold ``value``) with ``value`` at ``index``."""
    number = _number(value)
    if number is not None and numeric is not None:
        numeric.add(key)
    if array is None:
        if number is not None:
            array = np.zeros((size, *number.shape), dtype=number.dtype)
        elif value is None and numeric is not None and key in numeric:
            array = np.full(size, np.nan)
        else:
            array = np.full(size, None, dtype=object)
    elif array.dtype == object:
        if number is not None and _only_none(array):  # the Nones were undefined numbers
            array = np.full((size, *number.shape), np.nan,
                            dtype=np.result_type(number.dtype, np.float64))
    else:
        wanted = _wanted(array, value, number)
        if wanted is None:
            array = _objects(array)
        elif wanted != array.dtype:
            array = array.astype(wanted)
    array[index] = np.nan if value is None and array.dtype != object else value
    return array


def _fits(array: np.ndarray, value: Any) -> bool:
    """Whether ``value`` goes into ``array`` as it is, told by its type alone.

    The steady state of a step loop (a vector env batches every key of every step):
    without it each number cost two NumPy calls.
    """
    if array.ndim != 1:
        return False
    if array.dtype == object:
        return _never_a_number(type(value))
    same = _SAME.get(type(value))
    if same is None or array.dtype != same:
        return False
    return type(value) is not int or _INT64[0] <= value <= _INT64[1]  # else widened


@functools.cache
def _plain_object(kind: type) -> bool:
    """Whether a ``kind`` value goes into an object array as it is, whatever else it holds.

    That is: never a number, nor ``None``, nor a dict.
    """
    return _never_a_number(kind) and kind is not type(None) and not issubclass(kind, dict)


@functools.cache
def _never_a_number(kind: type) -> bool:
    """Whether no value of type ``kind`` is a number or an array (``None``'s type is not).

    Such a value goes into an object array as it is (a ``None`` there stays ``None``).
    """
    return not issubclass(kind, numbers.Number | np.generic | np.ndarray)


def _number(value: Any) -> np.ndarray | None:
    """``value`` as an array when it is a number or an array of numbers, else ``None``."""
    if isinstance(value, numbers.Number | np.generic | np.ndarray):
        given = np.asarray(value)
        if given.dtype.kind in _NUMBER_KINDS:
            return given
    return None


def _wanted(array: np.ndarray, value: Any, number: np.ndarray | None) -> np.dtype | None:
    """The type a number ``array`` must take to hold ``value``; ``None``: only objects."""
    if array.dtype.kind not in _NUMBER_KINDS:
        return None
    if value is None:  # NaN (a row of them): a float array as it is, else a float64 one
        return array.dtype if array.dtype.kind == "f" else np.dtype(np.float64)
    if number is None or number.shape != array.shape[1:]:
        return None
    return np.result_type(array.dtype, number.dtype)


def _only_none(array: np.ndarray) -> bool:
    """Whether an object array holds nothing but ``None`` so far."""
    return array.dtype == object and all(v is None for v in array)


def _objects(array: np.ndarray) -> np.ndarray:
    """``array`` as an object array of one entry per sub-env.

    A NaN number (a ``None`` batched among numbers) is ``None`` again.
    """
    objects = np.empty(len(array), dtype=object)
    objects[:] = [None if array.ndim == 1 and array.dtype.kind == "f" and np.isnan(v) else v
                  for v in array]
    return objects

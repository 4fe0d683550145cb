"""How a vector env's parent and workers pickle what they send each other.

``Connection.send`` pickles with ``multiprocessing``'s ``ForkingPickler``, whose
construction costs more than pickling a step's command does (an Execute step's command,
whose action holds NumPy integers and an array: 22.9 µs against 11.5 with ``pickle.dumps``
on the 2-core VM). :func:`send` pickles with a plain pickler that has the same reducers
(``copyreg``'s and ``ForkingPickler``'s, so pipes and sockets still travel) and cheaper
ones for NumPy numbers and small arrays of numbers: 6.2-6.6 µs for that command. Whatever
unpickles them gets the same types, values and bits back, and arrays writable.
"""

from __future__ import annotations

import copyreg
import io
import pickle
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any

import numpy as np

_EXACT_SCALARS = (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                  np.uint32, np.uint64, np.float64)
"""NumPy number types whose bits a Python number holds exactly (``item()``; not float32,
whose signalling NaNs a Python float would quieten)."""
_PLAIN_KINDS = "biufc"  # booleans and numbers: an array of them is its bytes
_SMALL = 1 << 16
"""Bytes up to which an array goes as its bytes: at 64 KiB both ways took 6 µs to pickle
and 4.6 to unpickle; at 8 MiB the bytes took 9.7 and 1.1 ms, NumPy's own reducer (in this
pickler) 0.5 and 0.3 ms: it saves copies."""


def send(pipe: Connection, message: Any) -> None:
    """Send ``message`` through ``pipe``, as ``pipe.send`` does, pickled by :func:`dumps`.

    Raises:
        OSError: When the pipe is closed at the other end.
        Exception: What pickling raises (nothing was written then).
    """
    pipe.send_bytes(dumps(message))


def dumps(message: Any) -> memoryview:
    """``message`` pickled (see the module's docstring)."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _dispatch_table()
    pickler.dump(message)
    return buffer.getbuffer()


_table: tuple[tuple[dict | None, dict | None], dict[type, Callable[[Any], Any]]] = (
    (None, None), {})
"""The dispatch table, and copies of the two tables it was built from."""


def _dispatch_table() -> dict[type, Callable[[Any], Any]]:
    """The NumPy reducers, and ``copyreg``'s and ``ForkingPickler``'s over them.

    Combined as that pickler combines its two (a reducer registered there wins over the
    NumPy ones); rebuilt when either table changes.
    """
    global _table
    (registered, extra), table = _table  # one read: another thread may replace it meanwhile
    extra_now = _extra_reducers()
    if copyreg.dispatch_table != registered or extra_now != extra:
        registered, extra = dict(copyreg.dispatch_table), dict(extra_now)
        table = {**dict.fromkeys(_EXACT_SCALARS, _reduce_scalar), np.ndarray: _reduce_array,
                 **registered, **extra}
        _table = (registered, extra), table
    return table


def _extra_reducers() -> dict[type, Callable[[Any], Any]]:
    """What ``ForkingPickler.register`` added (a private table, stable since Python 3.4)."""
    return getattr(ForkingPickler, "_extra_reducers", {})


def _reduce_scalar(number: np.generic) -> tuple[type, tuple[Any]]:
    return type(number), (number.item(),)


def _reduce_array(array: np.ndarray) -> tuple[Any, ...]:
    """A small C-contiguous array of booleans or numbers as its bytes, any other as NumPy's.

    NumPy's reducer under protocol 5 hands a read-only array over as read-only memory: such
    an array goes as protocol 4 has it (writable when unpickled, as ``Connection.send``
    gave it; a simulated phone's frames are read-only).
    """
    dtype = array.dtype
    if (dtype.kind in _PLAIN_KINDS and dtype.metadata is None and array.flags.c_contiguous
            and array.nbytes <= _SMALL):
        return _array, (array.tobytes(), dtype.str, array.shape)
    return array.__reduce_ex__(pickle.HIGHEST_PROTOCOL if array.flags.writeable else 4)


def _array(data: bytes, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """The array :func:`_reduce_array` pickled: writable, and its own memory."""
    return np.frombuffer(data, dtype).reshape(shape).copy()

"""What a vector env's parent and workers send each other comes back as it was sent."""

from __future__ import annotations

import copyreg
import multiprocessing
import pickle
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest

from mobileintent_gym.envs import vector_wire
from mobileintent_gym.envs.vector_wire import dumps, send

SCALARS = [np.bool_(True), np.int8(-7), np.int16(300), np.int32(-2**31), np.int64(2**62 + 1),
           np.uint8(255), np.uint16(65535), np.uint32(2**32 - 1), np.uint64(2**64 - 1),
           np.float64(np.pi), np.float64(-0.0), np.float64(np.inf)]
SIGNALLING_NAN = np.frombuffer(bytes.fromhex("0100807f"), np.float32)[0]


def round_trip(message):
    return pickle.loads(dumps(message))


@pytest.mark.parametrize("number", SCALARS, ids=lambda n: type(n).__name__)
def test_numpy_numbers_keep_their_type_and_value(number):
    assert b"scalar" not in bytes(dumps(number))  # not NumPy's generic rebuild: the type's
    back = round_trip(number)
    assert type(back) is type(number) and back.tobytes() == number.tobytes()


def test_float32_keeps_its_bits_and_a_signalling_nan_stays_one():
    for number in (np.float32(1 / 3), SIGNALLING_NAN):
        back = round_trip(number)
        assert type(back) is np.float32 and back.tobytes() == number.tobytes()


def test_nan_and_the_numbers_of_other_types():
    assert np.isnan(round_trip(np.float32("nan"))) and type(round_trip(np.float32(1))) is np.float32
    for other in (np.float16(0.1), np.complex64(1 + 2j), np.longdouble(1) / 3, np.str_("é"),
                  np.datetime64("2026-03-02T09:41")):  # NumPy's own reducers
        assert type(round_trip(other)) is type(other) and round_trip(other) == other


@pytest.mark.parametrize("array", [
    np.array([477, 1686]), np.arange(24, dtype=np.uint8).reshape(2, 3, 4),
    np.array(5.5, dtype=np.float32), np.zeros((0, 3), dtype=np.int16),
    np.array([1, -2], dtype=">i4"), np.array([True, False]), np.array([1 + 1j, 2j]),
], ids=["action point", "3-d", "0-d", "empty", "big-endian", "bool", "complex"])
def test_plain_arrays_come_back_equal_writable_and_their_own(array):
    assert b"_array" in bytes(dumps(array))  # as its bytes
    back = round_trip(array)
    assert type(back) is np.ndarray and back.dtype == array.dtype and back.shape == array.shape
    np.testing.assert_array_equal(back, array)
    assert back.flags.writeable and back.flags.owndata


@pytest.mark.parametrize("array", [
    np.asfortranarray(np.arange(6).reshape(2, 3)), np.arange(10)[::2],
    np.array(["ab", "c"]), np.array([(1, 2.0)], dtype=[("a", "i4"), ("b", "f8")]),
    np.array([{"x": 1}, None], dtype=object), np.ones((300, 300), np.uint8),
], ids=["fortran", "strided", "text", "structured", "objects", "large"])
def test_other_arrays_go_as_numpy_pickles_them(array):
    assert b"_array" not in bytes(dumps(array))
    back, numpys = round_trip(array), pickle.loads(pickle.dumps(array))
    assert back.dtype == array.dtype and back.flags.f_contiguous == numpys.flags.f_contiguous
    assert back.tolist() == array.tolist()


@pytest.mark.parametrize("array", [
    np.zeros((1200, 540, 3), np.uint8), np.array(["ab", "c"]), np.arange(6, dtype=np.int8),
    np.asfortranarray(np.arange(6).reshape(2, 3)),
], ids=["frame", "text", "small", "fortran"])
def test_read_only_arrays_come_back_writable(array):
    array.flags.writeable = False  # as a simulated phone's frames are
    back = round_trip(array)
    assert back.flags.writeable and np.array_equal(back, array)
    back[0] = back[1]


def test_dtype_metadata_survives():
    array = np.zeros(3, dtype=np.dtype(np.float32, metadata={"unit": "px"}))
    assert round_trip(array).dtype.metadata == {"unit": "px"}


def test_a_step_command_and_a_pipe_travel_through_a_pipe():
    parent, child = multiprocessing.Pipe()
    other, far = multiprocessing.Pipe()
    command = [(0, "step", (1, {"type": np.int64(2), "point": np.array([3, 4]), "text": "hi"}))]
    send(parent, (command, far))  # a Connection: ForkingPickler's reducer
    got, received = child.recv()
    assert got[0][:2] == (0, "step") and type(got[0][2][1]["type"]) is np.int64
    np.testing.assert_array_equal(got[0][2][1]["point"], [3, 4])
    other.send("through the received end")
    assert received.recv() == "through the received end"


class Later:
    pass


def test_reducers_registered_replaced_or_removed_later_are_followed():
    copyreg.pickle(Later, lambda obj: (int, (41,)))
    try:
        assert round_trip([Later()]) == [41]
        copyreg.pickle(Later, lambda obj: (int, (42,)))  # the same table size
        assert round_trip([Later()]) == [42]
    finally:
        del copyreg.dispatch_table[Later]
    assert Later not in vector_wire._dispatch_table()


def test_forking_pickler_reducers_and_a_users_numpy_reducer_win():
    reducers = ForkingPickler._extra_reducers
    ForkingPickler.register(Later, lambda obj: (str, ("sent by its reducer",)))
    copyreg.pickle(np.float64, lambda number: (float, (float(number),)))
    try:
        assert round_trip(Later()) == "sent by its reducer"
        assert type(round_trip(np.float64(2.5))) is float
    finally:
        del reducers[Later], copyreg.dispatch_table[np.float64]
    assert type(round_trip(np.float64(2.5))) is np.float64


def test_what_cannot_be_pickled_raises_before_anything_is_written():
    parent, child = multiprocessing.Pipe()
    with pytest.raises((AttributeError, TypeError, pickle.PicklingError), match="pickle"):
        send(parent, [lambda: None])
    assert not child.poll(0.05)

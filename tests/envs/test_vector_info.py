"""Batching sub-envs' ``info``: types that do not depend on the sub-envs' order."""

import functools

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mobileintent_gym.envs.vector import SharedMemoryVectorEnv
from mobileintent_gym.envs.vector_info import add_info, batch_infos
from mobileintent_gym.errors import MobileIntentError


def batched(*infos):
    """What the vector env batches: every sub-env's info at once."""
    return batch_infos(infos)


def one_by_one(infos, numeric):
    """The same with add_info called for each sub-env in turn."""
    out: dict = {}
    for index, info in enumerate(infos):
        if info is not None:
            out = add_info(out, info, index, len(infos), numeric)
    return out


def assert_same(found, expected):
    assert found.keys() == expected.keys()
    for key, value in expected.items():
        assert same(found[key], value), (key, found[key], value)


def same(a, b):
    """Equal values of equal types, arrays with their dtypes and NaNs, all the way down."""
    if isinstance(b, dict):
        return isinstance(a, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in b)
    if not isinstance(b, np.ndarray):
        return type(a) is type(b) and a == b
    if not (isinstance(a, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape):
        return False
    if b.dtype == object:
        return all(same(x, y) for x, y in zip(a.ravel(), b.ravel(), strict=True))
    return np.array_equal(a, b, equal_nan=b.dtype.kind == "f")


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2**62, 2**62),
                    st.sampled_from([2**63, -2**63 - 1, 2**64]),  # beyond int64
                    st.floats(allow_nan=False), st.text(max_size=3),
                    st.tuples(st.text(max_size=2)), st.just(np.float32(0.5)),
                    st.just(np.ones(2)), st.dictionaries(st.sampled_from("xy"), st.integers(0, 9),
                                                         max_size=2))
_INFOS = st.lists(st.one_of(st.none(), st.dictionaries(
    st.sampled_from(["a", "b", "_b", "final_obs"]), _VALUES, max_size=4)), min_size=1,
    max_size=5)


@settings(max_examples=300, deadline=None)
@given(_INFOS, st.booleans())
# Two keys in conflict: one by one meets b's first; and a numbers key before the error.
@example([{"a": {}, "b": {}}, {"b": 1, "a": 1}], False)
@example([{"b": "s", "a": {}}, {"a": 5}, {"b": 1.0}], False)
@example([{"k": "s", "x": 1, "a": {}}, {"a": 1, "k": 2.0, "x": 2**63}], False)
def test_batching_a_step_at_once_equals_batching_one_sub_env_after_another(infos, seen):
    # The vector env's batch_infos takes whole columns at once where it can: it must give
    # exactly add_info's arrays, types, masks, errors and numeric keys, whatever the mix
    # (only the order of the keys may differ).
    numeric = {("a",), ("b",)} if seen else set()
    expected_numeric, found_numeric = set(numeric), set(numeric)
    try:
        expected = one_by_one(infos, expected_numeric)
    except MobileIntentError as err:
        with pytest.raises(MobileIntentError) as found:
            batch_infos(infos, found_numeric)
        assert str(found.value) == str(err)  # naming the same key
    else:
        assert_same(batch_infos(infos, found_numeric), expected)
    assert found_numeric == expected_numeric  # kept across steps: even after an error


@pytest.mark.parametrize("order", [(0.5, None), (None, 0.5)])
def test_an_undefined_score_among_numbers_is_nan_in_either_order(order):
    # Gymnasium gave [0.5, nan] one way round and an object array [None, 0.5] the other.
    infos = batched(*({"episode": {"acc_c": v}} for v in order))
    scores = infos["episode"]["acc_c"]
    assert scores.dtype == np.float64 and np.nanmean(scores) == 0.5
    assert [np.isnan(v) for v in scores] == [v is None for v in order]
    assert infos["episode"]["_acc_c"].tolist() == [True, True]


def test_numbers_widen_as_they_come_and_other_values_make_objects():
    infos = batched({"n": True, "s": "a", "m": 1}, {"n": 2, "s": None, "m": 0.5},
                    {"n": 0.25, "s": "c", "m": "x"})
    assert infos["n"].dtype == np.float64 and infos["n"].tolist() == [1.0, 2.0, 0.25]
    assert infos["s"].tolist() == ["a", None, "c"]
    assert infos["m"].tolist() == [1.0, 0.5, "x"]  # an int was cut from 0.5 to 0 before
    ints = batched({"k": 1}, {"k": 2})["k"]
    assert ints.dtype == np.int64 and ints.tolist() == [1, 2]
    # An int beyond int64 widens the array as NumPy would (it raised OverflowError).
    wide = batched({"x": 1}, {"x": 2**63})["x"]
    assert wide.dtype == np.float64 and wide.tolist() == [1.0, 2.0**63]
    flags = batched({"b": True}, None, {"b": False})
    assert flags["b"].dtype == np.bool_ and flags["_b"].tolist() == [True, False, True]


def test_arrays_final_observations_and_masks_batch_as_gymnasium_batches_them():
    frame = np.ones((2, 3), np.uint8)
    infos = batched({"frame": frame, "final_obs": {"x": 1}}, {"frame": frame * 2},
                    {"frame": np.ones(4)})
    assert infos["frame"].dtype == object and infos["frame"][1].tolist() == (frame * 2).tolist()
    same = batched({"frame": frame}, {"frame": frame * 2})["frame"]
    assert same.shape == (2, 2, 3) and same.dtype == np.uint8
    assert infos["final_obs"].tolist() == [{"x": 1}, None, None]
    assert infos["_final_obs"].tolist() == [True, False, False]


def test_a_key_none_everywhere_or_among_objects_stays_none():
    assert batched({"event": None}, {"event": None})["event"].tolist() == [None, None]
    mixed = batched({"event": None}, {"event": ("launcher", 3)})
    assert mixed["event"].tolist() == [None, ("launcher", 3)]


def test_numpy_numbers_and_arrays_widen_by_numpys_rules():
    # An int then a 0-d float array cut 0.5 to 0; uint8 rows then [0.5, 300] wrapped.
    assert batched({"x": 1}, {"x": np.array(0.5)})["x"].tolist() == [1.0, 0.5]
    rows = batched({"x": np.ones(2, np.uint8)}, {"x": np.array([0.5, 300.0])})["x"]
    assert rows.dtype == np.float64 and rows.tolist() == [[1, 1], [0.5, 300.0]]
    kept = batched({"x": np.float32(0.5)}, {"x": None}, {"x": np.float32(1)})["x"]
    assert kept.dtype == np.float32 and kept[[0, 2]].tolist() == [0.5, 1.0]


def test_a_dict_beside_none_is_masked_and_beside_anything_else_is_named():
    late = batched({"stats": None}, {"stats": {"n": 2}})
    assert late["stats"]["n"].tolist() == [0, 2] and late["_stats"].tolist() == [False, True]
    early = batched({"stats": {"n": 2}}, {"stats": None})
    assert early["stats"]["_n"].tolist() == [True, False]
    assert early["_stats"].tolist() == [True, False]
    with pytest.raises(MobileIntentError, match="'stats' is a dict in one sub-env and int"):
        batched({"stats": {"n": 2}}, {"stats": 3})
    with pytest.raises(MobileIntentError, match="'stats' is a dict in one sub-env and ndarray"):
        batched({"stats": 3}, {"stats": {"n": 2}})


class _Scored(gym.Env):
    """Ends every step with a score that is None (undefined) or a number."""

    observation_space = gym.spaces.Box(0, 1, (2,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def __init__(self, score):
        self.score = score

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return np.zeros(2, np.float32), {}

    def step(self, action):
        return np.zeros(2, np.float32), 0.0, True, False, {"episode": {"acc_c": self.score}}


@pytest.mark.parametrize("scores", [(None, 0.5), (0.5, None)])
def test_the_vector_env_steps_and_receives_part_of_its_envs_with_nan_for_none(scores):
    envs = SharedMemoryVectorEnv([functools.partial(_Scored, s) for s in scores])
    try:
        envs.reset(seed=0)
        info = envs.step(np.zeros(2, np.int64))[4]["episode"]["acc_c"]
        assert info.dtype == np.float64 and np.nanmean(info) == 0.5
        envs.step(np.zeros(2, np.int64))  # the autoreset after the episodes ended
        envs.send(np.zeros(2, np.int64))
        first = envs.recv(batch_size=1)[4]["episode"]["acc_c"]
        second = envs.recv(batch_size=1)[4]["episode"]["acc_c"]
        # A batch of the None alone is NaN too: the key held numbers before.
        assert first.dtype == second.dtype == np.float64 and len(first) == len(second) == 1
        assert sorted(np.isnan([first[0], second[0]])) == [False, True]
    finally:
        envs.close()


@pytest.mark.parametrize("order", [(np.zeros(3), None), (None, np.zeros(3))])
def test_an_array_beside_none_is_a_row_of_nan_in_either_order(order):
    rows = batched(*({"a": v} for v in order))["a"]
    assert rows.dtype == np.float64 and rows.shape == (2, 3)
    assert [bool(np.isnan(row).all()) for row in rows] == [v is None for v in order]


def test_none_beside_text_is_none_even_after_numbers():
    numeric = {("k",)}  # the key held numbers in an earlier batch
    for order in (("x", None), (None, "x")):
        out: dict = {}
        for index, value in enumerate(order):
            out = add_info(out, {"k": value}, index, 2, numeric)
        assert out["k"].tolist() == list(order)

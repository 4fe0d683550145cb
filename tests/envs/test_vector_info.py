"""Batching sub-envs' ``info``: types that do not depend on the sub-envs' order."""

import numpy as np
import pytest

from mobileintent_gym.envs.vector import SharedMemoryVectorEnv
from mobileintent_gym.envs.vector_info import add_info


def batched(*infos, size=None):
    out: dict = {}
    for index, info in enumerate(infos):
        if info is not None:
            out = add_info(out, info, index, size or len(infos))
    return out


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


def test_the_package_vector_env_batches_with_it():
    two = type("Two", (), {"num_envs": 2})()
    infos = SharedMemoryVectorEnv._add_info(two, {}, {"x": None}, 0)
    infos = SharedMemoryVectorEnv._add_info(two, infos, {"x": 0.5}, 1)
    assert infos["x"].dtype == np.float64 and np.isnan(infos["x"][0]) and infos["x"][1] == 0.5


def test_a_key_none_everywhere_or_among_objects_stays_none():
    assert batched({"event": None}, {"event": None})["event"].tolist() == [None, None]
    mixed = batched({"event": None}, {"event": ("launcher", 3)})
    assert mixed["event"].tolist() == [None, ("launcher", 3)]

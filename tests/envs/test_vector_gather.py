"""Gathering frames into one batch with several threads."""

import threading

import numpy as np
import pytest

from mobileintent_gym.envs import vector_gather
from mobileintent_gym.envs.vector import make_vector
from mobileintent_gym.envs.vector_gather import FrameGather, default_threads
from tests.envs.test_vector import ENV, KWARGS

FRAME = (600, 700, 3)  # 1.26 MB: over LEAST_BYTES, so threads copy it


def frames(count, seed=0):
    return list(np.random.default_rng(seed).integers(0, 255, (count, *FRAME), np.uint8))


@pytest.mark.parametrize("count", [2, 3, 7])
def test_threads_stack_exactly_what_numpy_stacks_into_the_memory_given(count):
    gather, found = FrameGather(3), frames(count)
    out = np.zeros((count + 2, *FRAME), np.uint8)
    try:
        stacked = gather.stack(found, out[:count])
        assert np.shares_memory(stacked, out) and np.array_equal(stacked, np.stack(found))
        assert not out[count:].any()  # nothing written past the rows asked for
        fresh = gather.stack(frames(count, seed=1))  # no memory given: new memory
        assert np.array_equal(fresh, np.stack(frames(count, seed=1)))
    finally:
        gather.close()


def test_frames_are_copied_by_other_threads_only_when_large_and_several(monkeypatch):
    copiers = set()
    copyto = np.copyto

    def spying(dst, src):
        copiers.add(threading.current_thread().name)
        copyto(dst, src)

    monkeypatch.setattr(vector_gather.np, "copyto", spying)
    gather = FrameGather(2)
    try:
        gather.stack(frames(1))
        gather.stack([np.ones((4, 4, 3), np.uint8)] * 3)  # small: stacked here
        assert not copiers
        gather.stack(frames(4))
        # Which of the pool's threads takes each part is the scheduler's choice.
        assert copiers and all(name.startswith("frame-gather") for name in copiers)
    finally:
        gather.close()
    gather.stack(frames(2))  # closed: threads start again when needed
    gather.close()


def test_frames_of_different_shapes_are_refused_naming_them():
    gather = FrameGather(2)
    with pytest.raises(ValueError, match=r"one shape, got \[\(600, 700, 3\), \(700, 600, 3\)\]"):
        gather.stack([frames(1)[0], np.zeros((700, 600, 3), np.uint8)])
    gather.close()


def test_default_threads_are_half_the_usable_cpus_within_one_and_eight(monkeypatch):
    for usable, want in [(1, 1), (2, 1), (3, 1), (4, 2), (16, 8), (64, 8)]:
        monkeypatch.setattr(vector_gather.os, "sched_getaffinity", lambda _, n=usable: range(n))
        assert default_threads() == want


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2"])
def test_a_bad_gather_threads_is_refused_before_any_worker_starts(bad):
    with pytest.raises(ValueError, match=f"gather_threads.*{bad!r}"):
        make_vector(ENV, 2, gather_threads=bad, **KWARGS)

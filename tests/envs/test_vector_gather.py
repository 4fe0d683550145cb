"""Gathering frames into one batch with several threads."""

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from mobileintent_gym.envs import vector_gather
from mobileintent_gym.envs.vector import make_vector
from mobileintent_gym.envs.vector_gather import FrameGather, default_threads
from tests.envs.test_vector import ENV, KWARGS

ROOT = Path(__file__).resolve().parents[2]
FRAME = (600, 700, 3)  # 1.26 MB
FULL = (2400, 1080, 3)  # 7.8 MB


def frames(count, seed=0, shape=FRAME):
    return list(np.random.default_rng(seed).integers(0, 255, (count, *shape), np.uint8))


@pytest.fixture
def low_bar(monkeypatch):
    """Batches of two or more test frames go to threads (the real bar is 16 MiB)."""
    monkeypatch.setattr(vector_gather, "LEAST_BYTES", 2 << 20)


@pytest.fixture
def slow_threads(monkeypatch):
    """Each copy a thread makes takes 50 ms more: one still running shows."""
    copyto = np.copyto

    def slow(dst, src):
        if threading.current_thread().name.startswith("frame-gather"):
            threading.Event().wait(0.05)
        copyto(dst, src)

    monkeypatch.setattr(vector_gather.np, "copyto", slow)


@pytest.mark.parametrize("count", [2, 3, 7])
def test_threads_stack_exactly_what_numpy_stacks_into_the_memory_given(count, low_bar):
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


def test_frames_are_copied_by_other_threads_only_when_several_and_large(monkeypatch):
    copiers = set()
    copyto = np.copyto

    def spying(dst, src):
        copiers.add(threading.current_thread().name)
        copyto(dst, src)

    monkeypatch.setattr(vector_gather.np, "copyto", spying)
    gather = FrameGather(2)
    try:
        gather.stack(frames(1, shape=FULL))
        gather.stack(frames(2, shape=FULL))  # 15.6 MB: under the bar, stacked here
        assert not copiers
        gather.stack(frames(3, shape=FULL))  # 23.3 MB
        # Which of the pool's threads takes each part is the scheduler's choice.
        assert copiers and all(name.startswith("frame-gather") for name in copiers)
    finally:
        gather.close()
    copiers.clear()
    gather.stack(frames(3, shape=FULL))  # closed: threads start again when needed
    assert copiers
    gather.close()


def test_frames_of_different_shapes_or_memory_of_another_shape_are_refused_naming_them(
        low_bar):
    gather = FrameGather(2)
    with pytest.raises(ValueError, match=r"one shape, got \[\(600, 700, 3\), \(700, 600, 3\)\]"):
        gather.stack([frames(1)[0], np.zeros((700, 600, 3), np.uint8)])
    # Rows left unwritten, too few rows, or frames broadcast into a batch of batches.
    for shape in [(5, *FRAME), (2, *FRAME), (3, 2, *FRAME)]:
        with pytest.raises(ValueError, match=rf"shape of the frames stacked, \(3, 600, 700, 3\), "
                                             rf"not {re.escape(str(shape))}"):
            gather.stack(frames(3), np.zeros(shape, np.uint8))
    gather.close()


def test_frames_are_stacked_while_the_interpreter_exits(tmp_path):
    # An atexit handler (a program closing what it left open) may still receive frames:
    # from then on threads take no work, so the caller copies them.
    script = tmp_path / "at_exit.py"
    script.write_text(
        "import atexit, numpy as np\n"
        "from mobileintent_gym.envs.vector_gather import FrameGather\n"
        "def last():\n"
        "    found = list(np.arange(4 * 600 * 700 * 3, dtype=np.uint32).reshape(4, 600, 700, 3)"
        " % 251)\n"
        "    print(np.array_equal(FrameGather(3).stack(found), np.stack(found)))\n"
        "atexit.register(last)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr[-2000:]


def test_default_threads_are_half_the_usable_cpus_within_one_and_eight(monkeypatch):
    for usable, want in [(1, 1), (2, 1), (3, 1), (4, 2), (16, 8), (64, 8)]:
        monkeypatch.setattr(vector_gather, "usable_cpus", lambda n=usable: n)
        assert default_threads() == want


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2"])
def test_a_bad_gather_threads_is_refused_before_any_worker_starts(bad):
    with pytest.raises(ValueError, match=f"gather_threads.*{bad!r}"):
        make_vector(ENV, 2, gather_threads=bad, **KWARGS)


def test_a_copy_that_fails_is_raised_once_every_other_copy_is_done(low_bar):
    # Frame 1 cannot be cast into uint8 memory: its thread fails, the others finish first.
    found = frames(4)
    found[1] = found[1].astype(np.float64)
    out = np.zeros((4, *FRAME), np.uint8)
    gather = FrameGather(3)
    try:
        with pytest.raises(TypeError, match="Cannot cast"):
            gather.stack(found, out)
        for index in (0, 2, 3):
            assert np.array_equal(out[index], found[index])
    finally:
        gather.close()


def test_no_copy_lands_after_a_thread_fails_to_start(monkeypatch, low_bar, slow_threads):
    # The pool queues a part before starting its thread: a start that fails leaves the
    # part to a running thread, which must be done with it before stack returns; the
    # parts no thread took are copied by the caller.
    starts, start = [], threading.Thread.start

    def failing(thread):
        starts.append(thread.name)
        if len(starts) == 2:
            raise RuntimeError("can't start new thread")
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", failing)
    gather, found = FrameGather(3), frames(3)
    out = np.zeros((3, *FRAME), np.uint8)
    assert np.array_equal(gather.stack(found, out), np.stack(found))
    out[:] = 0
    threading.Event().wait(0.2)  # a copy still running would land meanwhile
    assert not out.any()


def test_the_hold_spans_every_threaded_copy_and_nothing_else(low_bar, slow_threads):
    # The vector env holds Ctrl-C there: when it lets go, every copy must be done.
    found, out, seen = frames(3), np.zeros((3, *FRAME), np.uint8), []

    class Hold:
        def __enter__(self):
            seen.append("enter")

        def __exit__(self, *exc_info):
            seen.append(np.array_equal(out, np.stack(found)))

    gather = FrameGather(2, hold=Hold)
    try:
        gather.stack(found[:1], out[:1])  # one frame: no threads, no hold
        assert seen == []
        gather.stack(found, out)
        assert seen == ["enter", True]
    finally:
        gather.close()

"""The shared-memory vector env stepped as a pool: send() to some sub-envs, recv() the first."""

import hashlib
import os
import signal
import sys
import threading
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import AlreadyPendingCallError, ClosedEnvironmentError, NoAsyncCallError
from gymnasium.vector.utils import concatenate, create_empty_array

from mobileintent_gym.envs.vector import make_vector
from mobileintent_gym.envs.vector_worker import WorkerError
from tests.envs.test_vector import ENV, KWARGS, in_shared_memory


def batched(space, actions):
    return concatenate(space, actions, create_empty_array(space, len(actions)))


def home(envs, count):
    """``count`` HOME presses, batched."""
    press = {"type": 4, "point": np.zeros(2, np.int64), "text": "", "direction": 0, "key": 0}
    return batched(envs.single_action_space, [press] * count)


def sampled(envs, count):
    """``count`` random actions, batched."""
    space = envs.single_action_space
    return batched(space, [space.sample() for _ in range(count)])


def plain(value):
    """An info value, comparable whichever sub-envs shared its batch.

    Gymnasium's info arrays take the type of the batch's first value, so a ``None`` is
    NaN in a float array and ``False`` in a bool one: all three read as ``None`` here.
    """
    value = value.item() if isinstance(value, np.generic) else value
    nan = isinstance(value, float) and np.isnan(value)
    return None if nan or value is False else value


def row(results, k):
    """What sub-env ``k`` of a step's results saw, comparable with ==."""
    obs, rewards, terminations, truncations, infos = results
    info = {key: plain(values[k]) for key, values in infos.items()
            if not key.startswith("_") and key != "env_id" and infos[f"_{key}"][k]}
    return (obs["instruction"][k], hashlib.sha1(obs["screenshot"][k].tobytes()).hexdigest(),
            float(rewards[k]), bool(terminations[k]), bool(truncations[k]), info)


@pytest.mark.parametrize(("envs_per_worker", "in_parent"), [(1, False), (2, False), (1, True),
                                                           (2, True)])
def test_each_sub_env_steps_in_a_pool_as_in_a_sync_vector_env(envs_per_worker, in_parent):
    # With two per worker, a step is often sent to a sub-env whose worker-mate's is out.
    # In the parent, the last worker's steps are taken while recv() waits.
    n, steps = 3, 14
    ours = make_vector(ENV, n, max_episode_steps=4, envs_per_worker=envs_per_worker,
                       worker_in_parent=in_parent, **KWARGS)
    sync = gym.make_vec(ENV, n, vectorization_mode="sync", max_episode_steps=4, **KWARGS)
    space = ours.single_action_space
    space.seed(5)
    plans = [[space.sample() for _ in range(steps)] for _ in range(n)]
    sync.reset(seed=0)
    want = [[] for _ in range(n)]
    for t in range(steps):
        results = sync.step(batched(space, [plan[t] for plan in plans]))
        for i in range(n):
            want[i].append(row(results, i))
    ours.reset(seed=0)
    got, pending, sizes = [[] for _ in range(n)], n, []
    rng = np.random.default_rng(0)
    ours.send(batched(space, [plan[0] for plan in plans]))
    while pending:
        sizes.append(int(rng.integers(1, pending + 1)))
        results = ours.recv(sizes[-1])
        ids = [int(i) for i in results[4]["env_id"]]
        assert ids == sorted(ids) and len(ids) == sizes[-1]
        for k, i in enumerate(ids):
            got[i].append(row(results, k))
        again = [i for i in ids if len(got[i]) < steps]
        pending -= len(ids)
        if again:
            ours.send(batched(space, [plans[i][len(got[i])] for i in again]), np.array(again))
            pending += len(again)
    ours.close()
    sync.close()
    assert got == want
    assert 1 in sizes and max(sizes) > 1
    assert all(sum(r[3] or r[4] for r in rows) >= 2 for rows in got)  # then autoresets


def test_pool_observations_are_views_that_never_change_while_held():
    envs = make_vector(ENV, 2, max_episode_steps=2, **KWARGS)  # new screens at each reset
    try:
        obs, _ = envs.reset(seed=0)
        envs.single_action_space.seed(1)
        envs.send(sampled(envs, 2))
        obs = envs.recv()[0]  # every sub-env, started by one send: a view of one batch
        assert not obs["screenshot"].flags.owndata and len(obs["screenshot"]) == 2
        envs.send(sampled(envs, 2))
        for _ in range(6):  # only the latest kept: views of shared memory, no copy
            obs, *_, info = envs.recv(1)
            assert in_shared_memory(envs, obs)
            assert not obs["screenshot"].flags.writeable
            envs.send(home(envs, 1), info["env_id"])
        held = []
        for _ in range(8):  # every one kept: the batches in use never change under them
            obs, *_, info = envs.recv(1)
            held.append((obs["screenshot"], obs["screenshot"].copy()))
            envs.send(sampled(envs, 1), info["env_id"])
        both = envs.recv()
        assert list(both[4]["env_id"]) == [0, 1]
        assert all(np.array_equal(frame, copy) for frame, copy in held)
        assert len({frame.tobytes() for frame, _ in held}) > 1
    finally:
        envs.close()


def test_pool_misuse_is_refused_naming_it_and_loses_or_repeats_no_step():
    envs = make_vector(ENV, 3, **KWARGS)
    names = [name for batch in envs._batches for name, _, _ in batch.layout.values()]
    envs.reset(seed=0)
    with pytest.raises(NoAsyncCallError, match="no step sent"):
        envs.recv()
    envs.send(home(envs, 2), [0, 2])
    with pytest.raises(AlreadyPendingCallError, match=r"sub-envs \[0\]"):
        envs.send(home(envs, 2), [1, 0])
    for call in (lambda: envs.step(home(envs, 3)), lambda: envs.reset(seed=0), envs.render):
        with pytest.raises(AlreadyPendingCallError, match=r"sub-envs \[0, 2\].*recv\(\)"):
            call()
    for ids in ([3], [1, 1], [], [True], ["1"], 1, [[1]], [{}], [[0], 1], "1"):
        with pytest.raises(ValueError, match=r"env_ids must name distinct sub-envs \(0-2\)"):
            envs.send(home(envs, 1), ids)
    with pytest.raises(ValueError, match="batched for 1 sub-envs, got 2"):
        envs.send(home(envs, 2), [1])
    with pytest.raises(ValueError, match="batched for 1 sub-envs"):
        envs.send({"type": [4]}, [1])
    for size in (0, 3, 1.5):
        with pytest.raises(ValueError, match=f"batch_size must be 1-2.*got {size}"):
            envs.recv(size)
    *_, info = envs.recv()
    assert list(info["env_id"]) == [0, 2] and list(info["steps"]) == [1, 1]
    with pytest.raises(ValueError, match="batched for 3 sub-envs, got 2"):
        envs.step(home(envs, 2))  # refused before anything is sent (it used to hang)
    *_, info = envs.step(home(envs, 3))
    assert list(info["steps"]) == [2, 1, 2]  # sub-env 1 was never sent the refused step
    assert "env_id" not in info
    envs.send(home(envs, 3))
    envs.recv(1)
    envs.close()  # with steps in flight, or received and not returned: all dropped
    with pytest.raises(ClosedEnvironmentError):
        envs.recv()
    assert envs.exit_codes == (0, 0, 0)
    assert not any(Path("/dev/shm", name).exists() for name in names)


def test_a_worker_dying_in_a_pool_is_raised_and_the_others_steps_kept():
    envs = make_vector(ENV, 2, **KWARGS)
    envs.reset(seed=0)
    envs.send(home(envs, 2))
    os.kill(envs._processes[1].pid, signal.SIGKILL)
    envs._processes[1].join(10)
    with pytest.raises(WorkerError, match="worker 1 died"):
        envs.recv()
    obs, *_, info = envs.recv()
    assert list(info["env_id"]) == [0] and obs["screenshot"].shape[0] == 1
    assert list(info["steps"]) == [1]
    with pytest.raises(WorkerError, match="worker 1 died"):
        envs.send(home(envs, 1), [1])
        envs.recv()
    envs.close()
    assert None not in envs.exit_codes


def test_a_worker_dying_fails_each_of_its_sub_envs_and_keeps_the_others_steps():
    envs = make_vector(ENV, 3, envs_per_worker=2, **KWARGS)  # workers: [0, 1] and [2]
    envs.reset(seed=0)
    envs.send(home(envs, 3))
    os.kill(envs._processes[0].pid, signal.SIGKILL)
    envs._processes[0].join(10)
    failed = []
    for _ in range(2):
        with pytest.raises(WorkerError, match="worker 0 died") as caught:
            envs.recv()
        failed.append(caught.value)
    obs, *_, info = envs.recv()
    assert sorted(e.env_id for e in failed) == [0, 1] and list(info["env_id"]) == [2]
    # One error stood for both: the first one raised was renamed, and its notes piled up.
    assert [e.__notes__ for e in failed] == [[f"(raised by sub-env {e.env_id})"]
                                             for e in failed]
    assert list(info["steps"]) == [1] and obs["screenshot"].shape[0] == 1
    envs.close()
    assert None not in envs.exit_codes


def test_without_copy_a_view_changes_only_when_its_own_sub_env_steps_again():
    envs = make_vector(ENV, 2, copy=False, max_episode_steps=2, **KWARGS)
    try:
        envs.reset(seed=0)
        envs.single_action_space.seed(2)
        envs.send(sampled(envs, 2))
        obs, *_, info = envs.recv(1)
        mine, other = int(info["env_id"][0]), 1 - int(info["env_id"][0])
        frame, kept = obs["screenshot"], obs["screenshot"].copy()
        for _ in range(4):  # the other sub-env steps on: this view stays as it was
            envs.recv(1)
            envs.send(sampled(envs, 1), [other])
            assert np.array_equal(frame, kept)
        envs.send(home(envs, 1), [mine])
        now, *_, info = envs.recv()
        assert np.array_equal(frame[0], now["screenshot"][list(info["env_id"]).index(mine)])
        assert np.shares_memory(frame, envs._batches[0].arrays["screenshot"])  # in place
    finally:
        envs.close()


@pytest.mark.parametrize(("copy", "threads"), [(True, 1), (False, 1), (True, 2), (False, 2)])
def test_rows_that_are_not_consecutive_are_copied_into_reused_memory(copy, threads,
                                                                     monkeypatch):
    # Sub-envs 0 and 2 come back together: their frames cannot be a view of one batch.
    # Copies of them land in buffers kept for it, reused once let go of (a new buffer
    # costs a page fault per page), and a buffer still held is never written; with two
    # gather threads each frame is copied by another thread (the bar lowered: two
    # 540x1200 frames are 3.9 MB).
    from mobileintent_gym.envs import vector_gather
    from mobileintent_gym.envs.vector import HANDED_BATCHES

    monkeypatch.setattr(vector_gather, "LEAST_BYTES", 2 << 20)
    copiers, copyto = set(), np.copyto

    def spying(dst, src):
        copiers.add(threading.current_thread().name)
        copyto(dst, src)

    monkeypatch.setattr(vector_gather.np, "copyto", spying)
    envs = make_vector(ENV, 3, copy=copy, max_episode_steps=3, gather_threads=threads,
                       **KWARGS)
    sync = gym.make_vec(ENV, 3, vectorization_mode="sync", max_episode_steps=3, **KWARGS)
    try:
        envs.reset(seed=0)
        sync.reset(seed=0)
        envs.single_action_space.seed(3)
        addresses, held = set(), []
        space = envs.single_action_space
        for t in range(2 * HANDED_BATCHES + 4):
            first, last = space.sample(), space.sample()  # sub-env 1 is not stepped here
            envs.send(batched(space, [first, last]), [0, 2])
            obs, _, _, _, info = envs.recv()
            want = sync.step(batched(space, [first, space.sample(), last]))[0]
            assert info["env_id"].tolist() == [0, 2] and not obs["screenshot"].flags.writeable
            assert np.array_equal(obs["screenshot"], want["screenshot"][[0, 2]])
            assert obs["instruction"] == want["instruction"][::2]
            if t < 4:  # the latest held until the next recv: two buffers take turns
                addresses.add(obs["screenshot"].__array_interface__["data"][0])
            else:
                held.append((obs, obs["screenshot"].copy()))
        assert len(addresses) == 2
        assert all(np.array_equal(kept["screenshot"], copied) for kept, copied in held)
        assert len({copied.tobytes() for _, copied in held}) > 1
        assert any(name.startswith("frame-gather") for name in copiers) == (threads > 1)
    finally:
        envs.close()
        sync.close()


@pytest.mark.parametrize("step_out", [True, False])
def test_close_kills_a_worker_that_does_not_answer(step_out, monkeypatch):
    from mobileintent_gym.envs import vector

    monkeypatch.setattr(vector, "JOIN_SECONDS", 0.5)
    envs = make_vector(ENV, 2, **KWARGS)
    names = [name for batch in envs._batches for name, _, _ in batch.layout.values()]
    envs.reset(seed=0)
    os.kill(envs._processes[1].pid, signal.SIGSTOP)  # as an env stuck in a step
    if step_out:
        envs.send(home(envs, 2))
    envs.close()
    assert envs.exit_codes == (0, -signal.SIGKILL)
    assert not any(Path("/dev/shm", name).exists() for name in names)


def test_frames_drawn_in_place_raise_no_env_checker_warning_in_the_workers(monkeypatch):
    # Spawned workers take this interpreter's -W options: any warning a worker gives is an
    # error that recv raises. Observations the caller drops free their batch, so the
    # first step is drawn over the first reset's row: Gymnasium's env checker (which keeps
    # the first reset's observation to compare with the first step's) would call that a
    # shared buffer, though what the caller is handed never changes (copy=True).
    monkeypatch.setattr(sys, "warnoptions", [*sys.warnoptions, "error"])
    envs = make_vector(ENV, 1, disable_env_checker=False, **KWARGS)
    try:
        envs.reset(seed=0)
        envs.reset(seed=0)
        for _ in range(3):
            envs.send(home(envs, 1))
            obs, rewards, *_ = envs.recv()
        assert obs["screenshot"].shape == (1, 1200, 540, 3) and rewards.tolist() == [0.0]
    finally:
        envs.close()

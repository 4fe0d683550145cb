"""The shared-memory vector env gives what Gymnasium's SyncVectorEnv gives, step by step."""

import dataclasses
import functools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker

from mobileintent_gym.envs.execute import ExecuteEnv
from mobileintent_gym.envs.spaces import _charset_tables
from mobileintent_gym.envs.vector import HANDED_BATCHES, SharedMemoryVectorEnv, make_vector
from mobileintent_gym.envs.vector_in_parent import ParentWorker
from mobileintent_gym.envs.vector_worker import WorkerError
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.users import PairConfig
from tests.helpers import frame_bounds_bytes

ENV = "Act2Intent-Execute-v0"
# The lexical encoder keeps torch out of the workers of these tests.
KWARGS = {"device": "sim:540x1200", "users": ["demo-ana", "demo-ben"],
          "pair": PairConfig(encoder="lexical")}


# A script's env of small frames whose step takes ``pause`` seconds (format it).
FRAMES_ENV = """
import os, signal, sys, time
import gymnasium as gym
import numpy as np
from mobileintent_gym.envs.vector import SharedMemoryVectorEnv

class Frames(gym.Env):
    observation_space = gym.spaces.Box(0, 255, (64, 64, 3), np.uint8)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        return np.zeros((64, 64, 3), np.uint8), {{}}

    def step(self, action):
        time.sleep({pause})
        return np.full((64, 64, 3), action, np.uint8), 0.0, False, False, {{}}
"""


@pytest.fixture(scope="module", params=[(1, False), (2, False), (1, True)],
                ids=["one_env_per_worker", "two_per_worker", "worker_in_parent"])
def pair_of_vectors(request):
    """Our vector env and a SyncVectorEnv of the same three envs.

    Ours has a worker per sub-env; or two workers: sub-envs 0 and 1 in one, 2 in the other;
    or a worker per sub-env, sub-env 2's in this process.
    """
    share, in_parent = request.param
    ours = gym.make_vec(ENV, num_envs=3, vectorization_mode="vector_entry_point",
                        envs_per_worker=share, worker_in_parent=in_parent, **KWARGS)
    assert len(ours._processes) == {1: 3, 2: 2}[share]
    assert [isinstance(p, ParentWorker) for p in ours._processes][-1] is in_parent
    sync = gym.make_vec(ENV, num_envs=3, vectorization_mode="sync", **KWARGS)
    yield ours, sync
    ours.close()
    sync.close()


def plain(infos):
    """Infos as lists, comparable with == (NaN, which Gymnasium puts for None, as "nan")."""
    def value(v):
        v = v.item() if isinstance(v, np.generic) else v
        return "nan" if isinstance(v, float) and np.isnan(v) else v

    return {k: [value(v) for v in values] for k, values in infos.items()}


def assert_same_observations(ours, theirs):
    assert ours["instruction"] == theirs["instruction"]
    assert all(ours["instruction"])  # never blank, unlike AsyncVectorEnv with shared memory
    assert np.array_equal(ours["screenshot"], theirs["screenshot"])


def test_steps_and_autoresets_equal_a_sync_vector_env(pair_of_vectors):
    ours, sync = pair_of_vectors
    assert isinstance(ours, SharedMemoryVectorEnv)
    assert "vector:Act2Intent-Execute-v0" in gym.spec(ENV).to_json()  # specs still serialise
    assert ours.observation_space == sync.observation_space
    assert ours.action_space == sync.action_space
    obs, info = ours.reset(seed=[11, 12, 13])
    expected_obs, expected_info = sync.reset(seed=[11, 12, 13])
    assert_same_observations(obs, expected_obs)
    assert plain(info) == plain(expected_info)
    ours.action_space.seed(3)
    ended = 0
    for _ in range(45):
        actions = ours.action_space.sample()
        got, want = ours.step(actions), sync.step(actions)
        assert_same_observations(got[0], want[0])
        for mine, theirs in zip(got[1:4], want[1:4], strict=True):
            assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)
        assert plain(got[4]) == plain(want[4])
        ended += int(np.sum(got[2] | got[3]))
    assert ended >= 3  # autoresets happened on the way


def test_the_parent_batches_text_without_building_the_charset(pair_of_vectors):
    ours, _ = pair_of_vectors
    _charset_tables.cache_clear()  # 55,506 characters' tables: a stepping parent needs none
    ours.reset(seed=5)
    for _ in range(3):
        observation = ours.step(ours.action_space.sample())[0]
        assert type(observation["instruction"]) is tuple and len(observation["instruction"]) == 3
    assert _charset_tables.cache_info().currsize == 0


def test_a_partial_reset_equals_a_sync_vector_env(pair_of_vectors):
    ours, sync = pair_of_vectors
    ours.reset(seed=0)
    sync.reset(seed=0)
    step = {"type": np.array([4, 4, 4]), "point": np.zeros((3, 2), np.int64),
            "text": ("", "", ""), "direction": np.zeros(3, np.int64), "key": np.ones(3, int)}
    stepped = ours.step(step)[0]  # held: the reset goes to another batch, kept rows with it
    sync.step(step)
    mask = np.array([False, True, False])
    options = {"reset_mask": mask, "task": "G-WCT-01:common:explicit"}
    obs, info = ours.reset(seed=[None, 7, None], options=dict(options))
    expected_obs, expected_info = sync.reset(seed=[None, 7, None], options=dict(options))
    assert_same_observations(obs, expected_obs)
    assert plain(info) == plain(expected_info)
    assert info["task"][1] == "G-WCT-01:common:explicit" and not info["_task"][0]
    assert not np.shares_memory(obs["screenshot"], stepped["screenshot"])
    assert np.array_equal(obs["screenshot"][0], stepped["screenshot"][0])


def test_an_env_error_is_raised_with_its_type_and_the_env_keeps_working(pair_of_vectors):
    ours, _ = pair_of_vectors
    with pytest.raises(MobileIntentError, match="unknown reset options") as caught:
        ours.reset(seed=0, options={"bogus": 1})
    assert isinstance(caught.value.__cause__, WorkerError)
    assert "execute.py" in str(caught.value.__cause__)  # the worker's traceback
    obs, _ = ours.reset(seed=0)
    assert len(obs["instruction"]) == 3
    assert ours.get_attr("users") == (("demo-ana", "demo-ben"),) * 3
    with pytest.raises(ValueError, match="reset_mask"):
        ours.reset(options={"reset_mask": np.zeros(3, bool)})
    with pytest.raises(ValueError, match="a list of 3 such seeds"):
        ours.reset(seed=[1, 2])


def test_a_first_reset_that_failed_leaves_the_sub_env_steppable():
    # Gymnasium 1.4's env checker marked its first reset checked before running it: after
    # a bad task option, the first step raised TypeError (cannot unpack None).
    envs = gym.make_vec(ENV, num_envs=1, vectorization_mode="vector_entry_point",
                        observation=("instruction",), **KWARGS)
    try:
        with pytest.raises(MobileIntentError, match="G-NOPE-01"):
            envs.reset(seed=0, options={"task": "G-NOPE-01:common:explicit"})
        envs.reset(seed=0)
        _, reward, _, _, _ = envs.step(envs.action_space.sample())
        assert reward.shape == (1,)
    finally:
        envs.close()


def test_without_copy_observations_are_read_only_memory_the_next_step_overwrites():
    envs = make_vector(ENV, 1, copy=False, **KWARGS)
    try:
        first, _ = envs.reset(seed=1)
        held = first["screenshot"].copy()
        with pytest.raises(ValueError, match="read-only"):  # the next frame would keep it
            first["screenshot"][0, :10] = 0
        envs.step({"type": np.array([4]), "point": np.zeros((1, 2), np.int64), "text": ("",),
                   "direction": np.zeros(1, np.int64), "key": np.array([0])})  # HOME
        assert not np.array_equal(first["screenshot"], held)  # overwritten in place
        again, _ = envs.reset(seed=1)
        assert again["screenshot"] is first["screenshot"]
        assert np.array_equal(again["screenshot"], held)
    finally:
        envs.close()


def test_copied_observations_never_change_while_held_and_take_no_copy_when_dropped():
    envs = make_vector(ENV, 2, **KWARGS)
    try:
        envs.action_space.seed(0)
        held = [envs.reset(seed=0)[0]]
        for _ in range(7):  # every observation kept: the batches run out, then copies
            held.append(envs.step(envs.action_space.sample())[0])
        kept = [h["screenshot"].copy() for h in held]
        for _ in range(3):
            envs.step(envs.action_space.sample())
        assert all(np.array_equal(h["screenshot"], k) for h, k in zip(held, kept, strict=True))
        assert len(envs._batches) == 1 + HANDED_BATCHES
        assert all(in_shared_memory(envs, h) for h in held[:HANDED_BATCHES])
        assert not any(in_shared_memory(envs, h) for h in held[HANDED_BATCHES:])
        assert not any(h["screenshot"].flags.writeable for h in held)  # copies too
        del held, kept
        latest, seen = None, set()
        for _ in range(6):  # only the latest kept: two batches take turns, nothing copied
            latest = envs.step(envs.action_space.sample())[0]
            seen.add(id(latest["screenshot"].base))
            assert in_shared_memory(envs, latest)  # a copy's buffers also alternate
            assert not latest["screenshot"].flags.writeable
        assert len(seen) == 2
    finally:
        envs.close()


def in_shared_memory(envs, obs):
    """Whether ``obs``'s screenshots are a view of a shared-memory batch (not a copy)."""
    return any(np.shares_memory(obs["screenshot"], batch.arrays["screenshot"])
               for batch in envs._batches)


def _in_small_dev_shm(script, megabytes):
    """Run ``script`` with a /dev/shm of its own of ``megabytes`` (a private tmpfs)."""
    import shutil

    if shutil.which("unshare") is None or subprocess.run(
            ["unshare", "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("needs unshare and user namespaces to mount a small /dev/shm")
    root = str(Path(__file__).resolve().parents[2])
    mount = f"mount -t tmpfs -o size={megabytes}m tmpfs /dev/shm && exec \"$0\" \"$1\""
    return subprocess.run(["unshare", "-rm", "sh", "-c", mount, sys.executable, str(script)],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": root})


def test_a_full_dev_shm_is_named_at_start_and_later_batches_become_copies(tmp_path):
    # A real 6 MiB /dev/shm: one batch of two 540x1200 frames (3.7 MiB) fits, two do not.
    script = tmp_path / "full.py"
    script.write_text(f"""
import numpy as np
from mobileintent_gym.envs.vector import make_vector
from gymnasium.spaces import Box, Dict
from mobileintent_gym.envs.vector_worker import SharedFrames, SharedMemoryFullError
from mobileintent_gym.users import PairConfig

KWARGS = dict(device="sim:540x1200", users=["demo-ana"], pair=PairConfig(encoder="lexical"))

if __name__ == "__main__":
    try:
        make_vector({ENV!r}, 4, **KWARGS)
    except SharedMemoryFullError as err:
        print("refused:", err)
    frame = Box(0, 255, (1200, 540, 3), np.uint8)
    try:  # the first field fits, the second does not: the message counts both
        SharedFrames.create(Dict({{"a": frame, "b": frame}}), 2)
    except SharedMemoryFullError as err:
        print("refused:", err)
    envs = make_vector({ENV!r}, 2, **KWARGS)
    envs.action_space.seed(0)
    held = [envs.reset(seed=0)[0]]
    for _ in range(3):
        held.append(envs.step(envs.action_space.sample())[0])
    kept = [h["screenshot"].copy() for h in held]
    envs.step(envs.action_space.sample())
    assert all(np.array_equal(h["screenshot"], k) for h, k in zip(held, kept))
    shared = [np.shares_memory(h["screenshot"], b.arrays["screenshot"])
              for h in held for b in envs._batches]
    print("batches", len(envs._batches), "copies", len(held) - sum(shared))
    envs.close()
""")
    done = _in_small_dev_shm(script, 6)
    assert done.returncode == 0, done.stderr
    refused, fields, used = done.stdout.splitlines()
    assert refused.startswith("refused: a batch of 4 observations needs 7.4 MiB")
    assert "/dev/shm has 6.0 MiB free" in refused and "--shm-size" in refused
    assert fields.startswith("refused: a batch of 2 observations needs 7.4 MiB")
    assert "/dev/shm has 6.0 MiB free" in fields
    assert used == "batches 1 copies 4"


def test_a_block_already_gone_from_dev_shm_does_not_stop_close():
    # Removed by someone else (systemd's RemoveIPC, a cleanup script): its unlink failed and
    # close stopped there, the other blocks left in /dev/shm and the pipes open.
    envs = make_vector(ENV, 1, **KWARGS)
    envs.reset(seed=0)  # a second batch
    names = [name for batch in envs._batches for name, _, _ in batch.layout.values()]
    assert len(names) == 2
    os.unlink(Path("/dev/shm", names[0]))
    envs.close()
    assert envs.closed and all(pipe.closed for pipe in envs._pipes)
    assert not any(Path("/dev/shm", name).exists() for name in names)


def test_observations_held_after_close_stay_readable(tmp_path):
    # Run in a process of its own: reading unmapped shared memory would kill this one.
    script = tmp_path / "held.py"
    script.write_text(f"""
import atexit, gc, sys
import numpy as np
from mobileintent_gym.envs.vector import make_vector
from mobileintent_gym.users import PairConfig

def observe():
    envs = make_vector({ENV!r}, 1, device="sim:540x1200", users=["demo-ana"],
                       pair=PairConfig(encoder="lexical"))
    obs = envs.reset(seed=0)[0]
    return envs, obs, obs["screenshot"].copy()

def at_exit():  # registered first, so it runs after every later exit hook
    assert np.array_equal(closed["screenshot"], kept)
    print("read at exit", flush=True)

if __name__ == "__main__":
    atexit.register(at_exit)
    envs, closed, kept = observe()
    envs.close()
    dropped = observe()[1:]  # the env itself is dropped and collected
    gc.collect()
    assert np.array_equal(closed["screenshot"], kept)
    assert np.array_equal(dropped[0]["screenshot"], dropped[1])
    print("read", int(kept.sum()))
""")
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": root})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("read ") and done.stdout.endswith("read at exit\n")


def test_an_env_left_open_is_closed_when_collected_or_at_exit(tmp_path):
    # Its workers used to be killed by multiprocessing's exit hook and its blocks left to
    # the resource tracker, which warned of "leaked shared_memory objects".
    script = tmp_path / "left_open.py"
    script.write_text(f"""
import gc, os, sys
from pathlib import Path
import gymnasium as gym
from mobileintent_gym.envs.vector import SharedMemoryVectorEnv
from mobileintent_gym.users import PairConfig

class Marked(gym.Wrapper):
    def close(self):
        Path(sys.argv[1], str(os.getpid())).touch()
        super().close()

def make():
    return Marked(gym.make({ENV!r}, device="sim:540x1200", users=["demo-ana"],
                           pair=PairConfig(encoder="lexical")))

def blocks(envs):
    return [name for batch in envs._batches for name, _, _ in batch.layout.values()]

if __name__ == "__main__":
    dropped = SharedMemoryVectorEnv([make])
    dropped.reset(seed=0)
    print(*blocks(dropped))
    del dropped
    gc.collect()
    print(len(os.listdir(sys.argv[1])))
    kept = SharedMemoryVectorEnv([make, make])
    kept.reset(seed=0)
    print(*blocks(kept))
""")
    marks = tmp_path / "closed"
    marks.mkdir()
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, str(script), str(marks)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": root})
    assert done.returncode == 0, done.stderr
    first, closed_by_then, second = done.stdout.splitlines()
    assert closed_by_then == "1" and len(list(marks.iterdir())) == 3  # each env.close() ran
    assert "resource_tracker" not in done.stderr and "leaked" not in done.stderr
    assert not any(Path("/dev/shm", name).exists() for name in (first + " " + second).split())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_start_with_one_thread_per_library_unless_told(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")
    envs = make_vector(ENV, 1, **KWARGS)
    try:
        (process,) = envs._processes
        environ = dict(item.split("=", 1) for item in
                       Path(f"/proc/{process.pid}/environ").read_text().split("\0") if item)
        assert environ["OMP_NUM_THREADS"] == "1" and environ["OPENBLAS_NUM_THREADS"] == "1"
        assert environ["MKL_NUM_THREADS"] == "3"
        assert "OMP_NUM_THREADS" not in os.environ  # the parent's environment is as it was
    finally:
        envs.close()


class _BlasThreads(gym.Env):
    """Its reset's info says how many threads OpenBLAS runs in the worker."""

    observation_space = gym.spaces.Box(0, 255, (4,), np.uint8)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        return np.zeros(4, np.uint8), {"blas": _openblas_threads()}


def _openblas_threads():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    return next((p["num_threads"] for p in threadpoolctl.threadpool_info()
                 if p["internal_api"] == "openblas"), 0)


def test_forked_workers_hold_the_libraries_they_have_from_the_parent_to_one_thread(
        monkeypatch):
    # The variables count only for libraries loaded after them: a forked worker ran the
    # parent's OpenBLAS with as many threads as the parent's.
    if _openblas_threads() < 2:
        pytest.skip("needs numpy's OpenBLAS running two threads or more in this process")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    envs = SharedMemoryVectorEnv([_BlasThreads], context="fork")
    try:
        assert envs.reset(seed=0)[1]["blas"].tolist() == [1]
    finally:
        envs.close()


def test_forked_workers_leave_the_shared_memory_to_the_parent(tmp_path):
    # Each forked worker started a resource tracker of its own when it attached the
    # batch, which unlinked the blocks when the worker died (the env still open) and
    # warned of "leaked shared_memory objects" at every close.
    script = tmp_path / "forked.py"
    script.write_text(FRAMES_ENV.format(pause=0) + """
envs = SharedMemoryVectorEnv([Frames] * 2, context="fork")
envs.reset(seed=0)
envs.step(np.array([1, 0]))
names = [name for name, _, _ in envs._batches[0].layout.values()]
os.kill(envs._processes[0].pid, signal.SIGKILL)
envs._processes[0].join(10)
time.sleep(1)  # the dead worker's own tracker, if it had one, unlinks now
print(all(os.path.exists(f"/dev/shm/{name}") for name in names))
envs.close()
print(any(os.path.exists(f"/dev/shm/{name}") for name in names))
""")
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": root})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]  # there while open, gone after close
    assert "resource_tracker" not in done.stderr, done.stderr


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="Linux scheduling")
def test_workers_run_as_batch_tasks_pinned_to_the_cpus_asked_for():
    allowed = sorted(os.sched_getaffinity(0))
    cpus = [allowed[-1], allowed[0]]
    envs = make_vector(ENV, 3, cpus=cpus, **KWARGS)
    try:
        pids = [p.pid for p in envs._processes]
        assert [os.sched_getaffinity(pid) for pid in pids] == [{cpus[0]}, {cpus[1]}, {cpus[0]}]
        assert all(os.sched_getscheduler(pid) == os.SCHED_BATCH for pid in pids)
        assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the parent is left as it was
    finally:
        envs.close()
    free = make_vector(ENV, 1, **KWARGS)
    try:
        assert os.sched_getaffinity(free._processes[0].pid) == set(allowed)
    finally:
        free.close()


@pytest.mark.parametrize("cpus", [[], [10_000], [-1], [0.5], [True], "0", 0])
def test_cpus_that_are_no_cpu_numbers_are_refused_before_any_worker_starts(cpus, monkeypatch):
    started = []  # workers that were started and stopped again leave no child behind
    monkeypatch.setattr(SharedMemoryVectorEnv, "_start", lambda *args: started.append(args))
    with pytest.raises(ValueError, match="cpus must list CPU numbers"):
        make_vector(ENV, 1, cpus=cpus, **KWARGS)
    assert started == []


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="Linux scheduling")
def test_cpus_are_checked_against_the_online_ones_whose_numbers_may_have_gaps(
        tmp_path, monkeypatch):
    from mobileintent_gym.envs import vector_args

    started = []
    monkeypatch.setattr(SharedMemoryVectorEnv, "_start", lambda *args: started.append(args))
    monkeypatch.setattr(SharedMemoryVectorEnv, "_setup", lambda self: None)
    listing = tmp_path / "online"
    listing.write_text("0-1,6-7,9\n")  # CPUs 2-5 and 8 offline: 6, 7 and 9 are real
    monkeypatch.setattr(vector_args, "ONLINE_CPUS", listing)
    assert make_vector(ENV, 1, cpus=[9, 6, 0], **KWARGS)._cpus == [9, 6, 0]
    with pytest.raises(ValueError, match=r"CPU numbers of this machine \(0-1,6-7,9\), got \[2\]"):
        make_vector(ENV, 1, cpus=[2], **KWARGS)
    assert len(started) == 1
    monkeypatch.setattr(vector_args, "ONLINE_CPUS", tmp_path / "absent")  # not Linux's /sys
    with pytest.raises(ValueError, match=rf"\(0-{os.cpu_count() - 1}\), got \[{os.cpu_count()}\]"):
        make_vector(ENV, 1, cpus=[os.cpu_count()], **KWARGS)


def test_a_dead_worker_is_named_and_close_still_frees_everything():
    envs = make_vector(ENV, 2, **KWARGS)
    envs.reset(seed=0)
    names = [name for batch in envs._batches for name, _, _ in batch.layout.values()]
    os.kill(envs._processes[1].pid, signal.SIGKILL)
    envs._processes[1].join(10)
    with pytest.raises(WorkerError, match="worker 1 died"):
        envs.reset(seed=0)
    envs.close()
    assert None not in envs.exit_codes and len(envs.exit_codes) == 2
    assert not any(Path("/dev/shm", name).exists() for name in names)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts /proc/self/fd")
def test_a_closed_env_holds_none_of_its_workers_file_descriptors():
    # Each ended worker's process object kept two descriptors while the closed env was
    # referenced: a sweep keeping ~250 closed envs of two workers ran out of them.
    def descriptors():
        return len(os.listdir("/proc/self/fd"))

    make_vector(ENV, 2, **KWARGS).close()  # the resource tracker's pipe, opened once
    before = descriptors()
    kept = [make_vector(ENV, 2, **KWARGS) for _ in range(2)]
    for envs in kept:
        envs.reset(seed=0)
        envs.close()
    assert descriptors() == before and [e.exit_codes for e in kept] == [(0, 0), (0, 0)]


def running(pid):
    """Whether process ``pid`` runs (a zombie that no init reaped has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads /proc")
def test_workers_of_a_parent_killed_mid_step_end_without_a_traceback(tmp_path):
    # The worker's answer went unread, its next recv met a reset connection, and its
    # report of that to the dead parent printed a BrokenPipeError over a ConnectionReset.
    script = tmp_path / "killed.py"
    script.write_text(FRAMES_ENV.format(pause=0.5) + """
if __name__ == "__main__":
    envs = SharedMemoryVectorEnv([Frames, Frames])
    envs.reset(seed=0)
    envs.send(np.array([0, 1]))
    print(*(process.pid for process in envs._processes), flush=True)
    time.sleep(60)
""")
    root = str(Path(__file__).resolve().parents[2])
    with open(tmp_path / "stderr", "w") as stderr:
        parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                                  stderr=stderr, text=True, env={**os.environ, "PYTHONPATH": root})
        workers = [int(pid) for pid in parent.stdout.readline().split()]
        parent.kill()
        parent.wait(30)
        parent.stdout.close()
        deadline = time.monotonic() + 30
        while any(map(running, workers)):
            assert time.monotonic() < deadline, "the workers outlived their parent"
            time.sleep(0.1)
    assert len(workers) == 2 and "Traceback" not in (tmp_path / "stderr").read_text()


def test_a_close_that_leaves_a_worker_running_still_frees_and_says_so(monkeypatch):
    from mobileintent_gym.envs import vector

    # As when Ctrl-C cuts close() short: closing the running worker's process object
    # raised ValueError, and the shared memory was never freed.
    envs = make_vector(ENV, 2, **KWARGS)
    envs.reset(seed=0)
    names = [name for batch in envs._batches for name, _, _ in batch.layout.values()]
    running = envs._processes[1]
    os.kill(running.pid, signal.SIGSTOP)  # it cannot answer close
    monkeypatch.setattr(vector, "JOIN_SECONDS", 0.5)
    monkeypatch.setattr(SharedMemoryVectorEnv, "_join", lambda self, stuck, kill=False: None)
    try:
        envs.close()
        assert envs.exit_codes[1] is None and running.is_alive()
        assert not any(Path("/dev/shm", name).exists() for name in names)
    finally:
        running.kill()
        running.join()


class _Exits(gym.Env):
    """Calls ``sys.exit`` (or raises KeyboardInterrupt) when built or stepped, as told."""

    observation_space = gym.spaces.Box(0, 255, (4,), np.uint8)
    action_space = gym.spaces.Discrete(2)

    def __init__(self, when="step", error=SystemExit):
        self.when, self.error = when, error
        if when == "build":
            raise error("my_env: missing dataset folder /data/x")

    def reset(self, *, seed=None, options=None):
        return np.zeros(4, np.uint8), {}

    def step(self, action):
        if action == 1:
            raise self.error("my_env: stepped into the void")
        return np.zeros(4, np.uint8), 0.0, False, False, {}


@pytest.mark.parametrize("error", [SystemExit, KeyboardInterrupt])
def test_an_env_that_exits_is_an_error_naming_why_and_the_worker_goes_on(error):
    with pytest.raises(WorkerError, match=f"{error.__name__}: my_env: missing dataset"):
        SharedMemoryVectorEnv([functools.partial(_Exits, "build", error)])
    envs = SharedMemoryVectorEnv([functools.partial(_Exits, "step", error)] * 2)
    envs.reset(seed=0)
    with pytest.raises(WorkerError, match=f"{error.__name__}: my_env: stepped into the void"):
        envs.step(np.array([0, 1]))
    envs.reset(seed=0)  # sub-env 0's step is kept for recv() until then
    assert envs.step(np.array([0, 0]))[0].shape == (2, 4)  # both workers still serve
    envs.close()


def test_an_env_that_cannot_be_built_fails_the_constructor_cleanly():
    with pytest.raises(ValueError, match="observation fields"):
        make_vector(ENV, 2, observation=("smell",), **KWARGS)
    with pytest.raises(ValueError, match="at least one"):
        SharedMemoryVectorEnv([])


class _ClosedMark(gym.Env):
    """A tiny env that leaves the file ``tag`` in ``folder`` when closed (``fail``: not built)."""

    observation_space = gym.spaces.Box(0, 255, (4,), np.uint8)
    action_space = gym.spaces.Discrete(2)

    def __init__(self, folder, tag, fail=False):
        if fail:
            raise RuntimeError(f"cannot build sub-env {tag}")
        self.folder, self.tag = folder, tag

    def reset(self, *, seed=None, options=None):
        return np.zeros(4, np.uint8), {}

    def step(self, action):
        return np.zeros(4, np.uint8), 0.0, False, False, {}

    def close(self):
        Path(self.folder, self.tag).touch()


def test_the_sub_envs_built_are_closed_when_another_cannot_be(tmp_path):
    # The constructor killed every worker: the envs built (an adb device, an Appium
    # session) were never closed.
    import functools

    makers = [functools.partial(_ClosedMark, str(tmp_path), "0"),
              functools.partial(_ClosedMark, str(tmp_path), "1", fail=True)]
    with pytest.raises(RuntimeError, match="cannot build sub-env 1"):
        SharedMemoryVectorEnv(makers)
    assert os.listdir(tmp_path) == ["0"]


def test_spaces_travel_light_and_come_back_equal():
    import pickle

    from mobileintent_gym.actions import action_space
    from mobileintent_gym.envs.spaces import UnicodeText, observation_space
    from mobileintent_gym.envs.vector_worker import pack_spaces

    text = UnicodeText(512, min_length=2)
    assert pickle.loads(pickle.dumps(text)) == text and len(pickle.dumps(text)) < 1000
    found = (observation_space(1080, 2400, ("screenshot", "instruction")),
             action_space(1080, 2400))
    packed = pack_spaces(*found)
    assert pickle.loads(packed) == found and len(packed) < 10_000


def test_the_screenshot_space_is_a_box_whose_bounds_take_no_memory():
    from gymnasium import spaces
    from gymnasium.vector.utils import batch_space

    from mobileintent_gym.envs.spaces import FrameBox

    full = FrameBox((2400, 1080, 3))
    bounds = (full.low, full.high, full.bounded_below, full.bounded_above)
    assert all(a.shape == (2400, 1080, 3) and not a.flags.writeable for a in bounds)
    assert frame_bounds_bytes(full) == 4 * 1080 * 3  # one pixel row each
    frames, plain_box = FrameBox((24, 10, 3)), spaces.Box(0, 255, (24, 10, 3), np.uint8)
    assert frames == plain_box and plain_box == frames
    frames.seed(0)
    assert frames.contains(frames.sample()) and not frames.contains(np.zeros((2, 2, 3), np.uint8))
    # As a plain Box judges them (a uint8 frame's pixels are not compared: all are in bounds).
    for x in (np.full((24, 10, 3), 255, np.uint8), np.zeros((24, 10, 3), np.int64),
              np.full((24, 10, 3), 300), np.zeros((24, 10, 3), np.float32), np.zeros((24, 10)),
              np.zeros((24, 10, 3), bool), [[[0] * 3] * 10] * 24):
        assert frames.contains(x) == plain_box.contains(x), x
    batched = batch_space(frames, 4)
    assert isinstance(batched, FrameBox) and batched == batch_space(plain_box, 4)


class _KeepFrames(gym.ObservationWrapper):
    """Keeps every screenshot it passes on, as a frame-stacking wrapper would."""

    def __init__(self, env):
        super().__init__(env)
        self.frames = []

    def observation(self, observation):
        self.frames.append((observation["screenshot"], observation["screenshot"].copy()))
        return observation


def serving(env, batches):
    """The worker's own loop (serve) in a thread of this process, with a real pipe.

    Yields a function that sends one command and returns its reply's payload.
    """
    import multiprocessing
    import threading

    from mobileintent_gym.envs import vector_worker

    ours, theirs = multiprocessing.Pipe()
    worker = threading.Thread(target=vector_worker.serve, args=(0, [env], batches, theirs))
    worker.start()

    def command(name, data):
        ours.send([(0, name, data)])
        ((status, payload),) = ours.recv()
        assert status == "ok", payload
        return payload

    try:
        yield command
    finally:
        ours.send(vector_worker.CLOSE)
        assert ours.recv() == [("ok", None)]
        worker.join()
        for frames in batches.values():
            frames.close(unlink=True)
        env.close()


STEPS = ["SWIPE[UP]", "SWIPE[UP]", "SWIPE[DOWN]", "SWIPE[UP]", "PRESS[HOME]", "PRESS[BACK]"]


def test_a_worker_draws_its_frames_straight_into_shared_memory():
    # Two batches taking turns, as copy=True does while only the latest observation is
    # held: every frame equals a plain env's. Gymnasium's env checker compares the first
    # reset's and first two steps' observations, which are copied; from the third step
    # frames are drawn in the worker's row of the batch they go to, and from the fourth
    # nowhere else: the renderer keeps no buffer of its own.
    from mobileintent_gym.envs.vector_worker import SharedFrames

    env, plain_env = gym.make(ENV, **KWARGS), gym.make(ENV, **KWARGS)
    renderer = env.unwrapped.device._renderer
    batches = {n: SharedFrames.create(env.observation_space, 1) for n in (1, 2)}
    for command in serving(env, batches):
        command("reset", (1, {"seed": 0}))
        plain_env.reset(seed=0)
        for number, action in enumerate(STEPS):
            batch = 1 + number % 2
            command("step", (batch, action))
            expected = plain_env.step(action)[0]["screenshot"]
            assert np.array_equal(batches[batch].arrays["screenshot"][0], expected)
            if number >= 3:
                assert renderer._own.pixels is None
        assert all(np.shares_memory(renderer._canvases[n].pixels, batches[n].arrays["screenshot"])
                   for n in batches)
    plain_env.close()


def test_frames_a_wrapper_in_the_worker_keeps_are_never_drawn_over():
    from mobileintent_gym.envs.vector_worker import SharedFrames

    env = _KeepFrames(gym.make(ENV, **KWARGS))
    batches = {0: SharedFrames.create(env.observation_space, 1)}
    for command in serving(env, batches):
        command("reset", (0, {"seed": 0}))
        for action in STEPS:
            command("step", (0, action))
            assert np.array_equal(batches[0].arrays["screenshot"][0], env.frames[-1][1])
        assert all(np.array_equal(frame, kept) for frame, kept in env.frames)


class _PhoneEnv(gym.Env):
    """A light env showing a simulated phone: its screenshot and a step counter."""

    def __init__(self, keeps=None):
        from mobileintent_gym.phone import SimPhone

        self.device = SimPhone(540, 1200)
        if keeps is not None:
            self.keeps_screenshots = keeps
        self.observation_space = gym.spaces.Dict({
            "screenshot": gym.spaces.Box(0, 255, (1200, 540, 3), np.uint8),
            "count": gym.spaces.Box(0, 1e6, (1,), np.float32)})
        self.action_space = gym.spaces.Discrete(2)
        self.kept, self.count = [], 0

    def _obs(self):
        self.count += 1
        frame = self.device.screenshot(fresh=True)
        if getattr(self, "keeps_screenshots", True) is not False:
            self.kept.append((frame, frame.copy()))
        return {"screenshot": frame, "count": np.array([self.count], np.float32)}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.device.open("music", "music/library/liked")
        return self._obs(), {}

    def step(self, action):
        self.device.act(["SWIPE[UP]", "SWIPE[DOWN]"][action])
        return self._obs(), 0.0, False, False, {}


@pytest.mark.parametrize("keeps", [True, None])
@pytest.mark.parametrize("numbers", [[0, 0, 0, 0, 0], [1, 2, 1, 2, 1]])
def test_frames_an_env_keeps_are_never_drawn_over(keeps, numbers):
    # An env that keeps its screenshots, or does not say that it keeps none, gets them
    # copied into shared memory, never drawn there.
    from mobileintent_gym.envs.vector_worker import SharedFrames

    env = _PhoneEnv(keeps)
    batches = {n: SharedFrames.create(env.observation_space, 1) for n in set(numbers)}
    for command in serving(env, batches):
        command("reset", (numbers[0], {"seed": 0}))
        for number in numbers[1:]:
            command("step", (number, 0))
            assert np.array_equal(batches[number].arrays["screenshot"][0], env.kept[-1][1])
        assert all(np.array_equal(frame, kept) for frame, kept in env.kept)


def test_another_array_field_leaves_the_frames_drawn_in_place():
    from mobileintent_gym.envs.vector_worker import SharedFrames

    env = _PhoneEnv(keeps=False)
    renderer = env.device._renderer
    batches = {0: SharedFrames.create(env.observation_space, 1)}
    for command in serving(env, batches):
        command("reset", (0, {"seed": 0}))
        canvas = renderer._canvases[0]
        for count in range(2, 6):
            command("step", (0, 0))
            assert batches[0].arrays["count"][0, 0] == count
        assert renderer._canvases[0] is canvas and canvas.ops is not None


class _WithGoalImage(ExecuteEnv):
    """One more field of the screenshot's shape and type, sorted before it (a goal image)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        shape = self.observation_space["screenshot"].shape
        self.observation_space = gym.spaces.Dict({
            **self.observation_space.spaces, "goal": gym.spaces.Box(0, 255, shape, np.uint8)})

    def _obs(self):
        obs = super()._obs()
        return {**obs, "goal": np.full_like(obs["screenshot"], 7)}


def test_frames_are_drawn_only_into_the_screenshot_field():
    # The goal image sorts first: drawing into the first field of the frame's shape put
    # the screenshot there, and storing the goal then wrote 7s over both fields.
    from mobileintent_gym.envs.vector_worker import SharedFrames

    env = OrderEnforcing(_WithGoalImage(**KWARGS))
    plain_env = gym.make(ENV, **KWARGS)
    batches = {n: SharedFrames.create(env.observation_space, 1) for n in (1, 2)}
    for command in serving(env, batches):
        command("reset", (1, {"seed": 0}))
        plain_env.reset(seed=0)
        for number, action in enumerate(STEPS):
            command("step", (1 + number % 2, action))
            frames = batches[1 + number % 2].arrays
            assert np.array_equal(frames["screenshot"][0], plain_env.step(action)[0]["screenshot"])
            assert (frames["goal"][0] == 7).all()
        assert np.shares_memory(env.unwrapped.device._renderer._canvases[1].pixels,
                                batches[1].arrays["screenshot"])  # drawn in place
    plain_env.close()


class _ReusesABuffer(ExecuteEnv):
    """Hands out one progress array every step, changed in place: a bug of the env's."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.observation_space = gym.spaces.Dict({
            **self.observation_space.spaces,
            "progress": gym.spaces.Box(0, 1e6, (1,), np.float32)})
        self.progress = np.zeros(1, np.float32)

    def _obs(self):
        self.progress += 1
        return {**super()._obs(), "progress": self.progress}


@pytest.mark.parametrize("reuses", [False, True])
def test_the_env_checker_warns_of_a_reused_buffer_but_not_of_frames_drawn_in_place(reuses):
    # Gymnasium's checker compares the first reset's and first two steps' observations for
    # shared buffers. Frames drawn into a row it keeps would read as one; the env's own
    # reused array must still be named.
    import warnings

    from mobileintent_gym.envs.vector_worker import SharedFrames

    env = PassiveEnvChecker(OrderEnforcing((_ReusesABuffer if reuses else ExecuteEnv)(**KWARGS)))
    batches = {1: SharedFrames.create(env.observation_space, 1)}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for command in serving(env, batches):
            command("reset", (1, {"seed": 0}))
            command("reset", (1, {"seed": 0}))  # the first one's row, drawn over
            for action in STEPS:
                command("step", (1, action))
            assert np.shares_memory(env.unwrapped.device._renderer._canvases[1].pixels,
                                    batches[1].arrays["screenshot"])  # drawn in place
    shared = [str(w.message) for w in caught if "share an object" in str(w.message)]
    assert len(shared) == (2 if reuses else 0), shared


@dataclasses.dataclass(frozen=True)
class _Frozen(Exception):
    """An error type that refuses attributes (``__traceback__`` set from Python too)."""


def test_an_env_error_passes_the_drawing_in_place_untouched():
    # A generator-based context manager sets a re-raised error's __traceback__: for this
    # type that is a FrozenInstanceError in place of the env's own error.
    from mobileintent_gym.envs.vector_worker import SharedFrames, _Canvases

    env = ExecuteEnv(**KWARGS)  # no env checker: frames drawn in place from the first
    frames = SharedFrames.create(env.observation_space, 1)
    canvases = _Canvases(env, 0)
    canvases.add(1, frames)
    with pytest.raises(_Frozen), canvases.drawing_into(1):
        raise _Frozen()
    assert env.device._renderer._canvas is env.device._renderer._own  # drawing there ended
    frames.close(unlink=True)
    env.close()

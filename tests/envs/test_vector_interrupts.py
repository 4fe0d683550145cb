"""Ctrl-C in the middle of a vector env's call, answers the parent cannot read, env errors.

A Ctrl-C is a real SIGINT sent to the main thread (``signal.pthread_kill``) once the main
thread is seen waiting where the test means it to be (``_main_in``), while a worker holds
its command: the light env below waits for a file that the test creates only after the
interrupt, so no timing margin decides what happens, however slow the machine.
"""

import dataclasses
import functools
import os
import re
import signal
import sys
import threading
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

from mobileintent_gym.envs.vector import SharedMemoryVectorEnv
from mobileintent_gym.envs.vector_worker import WorkerError
from tests.envs.test_vector import running


class _Gated(gym.Env):
    """Counts its steps; action 1 (or the reset option ``hold``) waits for the file ``gate``,
    action 2 fails."""

    observation_space = gym.spaces.Box(0, 1000, (1,), np.int64)
    action_space = gym.spaces.Discrete(3)

    def __init__(self, gate):
        self.gate, self.count = Path(gate), 0

    def _wait(self, hold):
        while hold and not self.gate.exists():
            time.sleep(0.01)

    def reset(self, *, seed=None, options=None):
        self._wait((options or {}).get("hold"))
        self.count = 0
        return np.array([0]), {"count": 0}

    def step(self, action):
        if action == 2:
            raise RuntimeError("the step failed")
        self._wait(action == 1)
        self.count += 1
        return np.array([self.count]), float(self.count), False, False, {"count": self.count}

    def unreadable(self):
        """An answer that pickles in the worker and cannot be unpickled in the parent."""
        return _Unreadable()

    def fail(self):
        raise RuntimeError("the env failed")

    def close(self):
        """With ``slow_close`` set, waits for the gate; leaves a mark once done."""
        self._wait(getattr(self, "slow_close", False))
        (self.gate.parent / f"closed-{os.getpid()}").touch()

    def refuse(self):
        raise _Refused()

    def own_env_id(self):
        raise _OwnEnvId()


class _OwnEnvId(Exception):
    """An error whose ``env_id`` is its own (read-only)."""

    @property
    def env_id(self):
        return "its own"


@dataclasses.dataclass(frozen=True)
class _Refused(Exception):
    """An error type that takes no attribute (nor a note, which sets ``__notes__``)."""


def _refuse():
    raise TypeError("cannot be rebuilt here")


class _Unreadable:
    def __reduce__(self):
        return _refuse, ()


def _ctrl_c():
    """A Ctrl-C to the main thread, as a terminal's reaches the foreground process."""
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)


def _until(condition, seconds=60.0):
    """Wait until ``condition()`` holds, for at most ``seconds``; whether it did."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def _main_in(name):
    """Whether the main thread runs a function called ``name`` (or one it called)."""
    frame = sys._current_frames().get(threading.main_thread().ident)
    while frame is not None and frame.f_code.co_name != name:
        frame = frame.f_back
    return frame is not None


def _interrupted(call, also=(), when="_sliced", then=None):
    """Run ``call``, a Ctrl-C arriving once the main thread is in function ``when`` (by
    default, waiting for the workers' answers), to the processes ``also`` as well; then
    ``then()``."""
    reached = []

    def ctrl_c():  # sent all the same when ``when`` is never reached: the call may wait for it
        reached.append(_until(lambda: _main_in(when)))
        for pid in also:
            os.kill(pid, signal.SIGINT)
        _ctrl_c()
        if then is not None:
            then()

    thread = threading.Thread(target=ctrl_c)
    thread.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        thread.join()
    assert reached == [True], f"the main thread never ran {when}() during the call"


@pytest.fixture()
def gated(tmp_path):
    """Two gated envs in a vector env, reset, and the file that opens their gate."""
    gate = tmp_path / "gate"
    envs = SharedMemoryVectorEnv([functools.partial(_Gated, gate)] * 2)
    envs.reset(seed=0)
    yield envs, gate
    envs.close()


def _in_step(envs, counts):
    """Two steps; their frames, rewards and infos agree, and count on from ``counts``."""
    for step in (1, 2):
        obs, rewards, _, _, infos = envs.step(np.array([0, 0]))
        assert list(obs[:, 0]) == list(rewards) == list(infos["count"]) == [
            c + step for c in counts]


@pytest.mark.parametrize("call", ["step", "reset"])
def test_after_a_ctrl_c_the_next_call_returns_its_own_results(gated, call):
    # The workers finish the interrupted command (a terminal's Ctrl-C reaches them too)
    # and its answers are dropped: before, the next step returned the interrupted one's
    # rewards beside its own frames, and the workers died of the Ctrl-C.
    envs, gate = gated
    envs.step(np.array([0, 0]))
    workers = [process.pid for process in envs._processes]
    _interrupted({"step": lambda: envs.step(np.array([1, 1])),
                  "reset": lambda: envs.reset(options={"hold": True})}[call], also=workers)
    gate.touch()
    _in_step(envs, [2, 2] if call == "step" else [0, 0])
    assert all(process.is_alive() for process in envs._processes)


def test_a_second_ctrl_c_while_the_first_calls_answers_are_awaited_sends_nothing(gated):
    # Worker 0 finished the first step, worker 1 is still in it. The next step waits for
    # worker 1's dropped answer before sending anything: interrupted there, worker 0 must
    # not have been sent its step (it would run one step ahead of worker 1 from then on).
    envs, gate = gated
    _interrupted(lambda: envs.step(np.array([0, 1])))
    _interrupted(lambda: envs.step(np.array([0, 0])))
    gate.touch()
    _in_step(envs, [1, 1])


class _Stop(Exception):
    """What a program's own Ctrl-C handler raises (to save its work and stop, say)."""


def _stop(number, frame):
    raise _Stop


@pytest.mark.parametrize("fails", [False, True])
@pytest.mark.parametrize("handler", [signal.default_int_handler, _stop])
def test_a_ctrl_c_while_an_answer_is_read_waits_for_the_whole_answer(gated, monkeypatch,
                                                                    handler, fails):
    # The Ctrl-C lands between the reads of one answer's length and its body; handled
    # there, the body would be read as the next call's answer. Held back, it goes to the
    # handler that was installed once the answer is read, also when that answer is a
    # sub-env's error (it went nowhere then: a loop catching env errors ran through it).
    previous = signal.signal(signal.SIGINT, handler)
    envs, _ = gated
    pipe = envs._pipes[1]
    read = pipe._recv

    def interrupted_read(size, *args):
        if size > 4:  # the body, after the length
            monkeypatch.setattr(pipe, "_recv", read)
            _ctrl_c()
        return read(size, *args)

    monkeypatch.setattr(pipe, "_recv", interrupted_read)
    try:
        with pytest.raises(KeyboardInterrupt if handler is signal.default_int_handler
                           else _Stop):
            envs.call("fail") if fails else envs.step(np.array([0, 0]))
        assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, previous)
    _in_step(envs, [0, 0] if fails else [1, 1])


@pytest.mark.parametrize("call", ["step", "send"])
def test_a_ctrl_c_while_commands_go_out_lets_every_worker_have_its_own(gated, monkeypatch,
                                                                       call):
    # Landing as the first worker is sent its step, it must not leave the second without
    # one (a sub-env a step behind for good), nor a step sent and not recorded (lost).
    envs, _ = gated
    post = envs._post

    def interrupted_post(worker, *message, **options):
        if worker == 0:
            _ctrl_c()
        return post(worker, *message, **options)

    monkeypatch.setattr(envs, "_post", interrupted_post)
    with pytest.raises(KeyboardInterrupt):
        getattr(envs, call)(np.array([0, 0]))
    monkeypatch.setattr(envs, "_post", post)
    if call == "send":
        *_, infos = envs.recv()
        assert list(infos["env_id"]) == [0, 1] and list(infos["count"]) == [1, 1]
    _in_step(envs, [1, 1])


def test_a_pool_recv_interrupted_by_ctrl_c_returns_its_steps_at_the_next_recv(gated):
    envs, gate = gated
    envs.send(np.array([1, 1]))
    _interrupted(envs.recv)
    gate.touch()
    obs, rewards, _, _, infos = envs.recv()
    assert list(infos["env_id"]) == [0, 1] and list(rewards) == [1.0, 1.0]
    assert list(obs[:, 0]) == [1, 1]


def test_an_answer_the_parent_cannot_unpickle_is_an_error_and_the_env_goes_on(gated):
    envs, _ = gated
    with pytest.raises(WorkerError, match=re.escape(
            "worker 0's answer cannot be unpickled here: TypeError('cannot be rebuilt here')")):
        envs.call("unreadable")
    _in_step(envs, [0, 0])


class _Plain(gym.Env):
    """An env whose observations have no array to share: a Discrete, or a Tuple."""

    action_space = gym.spaces.Discrete(2)

    def __init__(self, kind):
        self.count = 0
        self.observation_space = gym.spaces.Discrete(100) if kind == "discrete" else (
            gym.spaces.Tuple((gym.spaces.Discrete(100), gym.spaces.Box(0, 100, (2,), np.int64))))

    def _obs(self):
        if isinstance(self.observation_space, gym.spaces.Discrete):
            return self.count
        return self.count, np.array([self.count, 2 * self.count])

    def reset(self, *, seed=None, options=None):
        self.count = 0
        return self._obs(), {}

    def step(self, action):
        self.count += 1 + action
        return self._obs(), 1.0, self.count >= 4, False, {}


@pytest.mark.parametrize("kind", ["discrete", "tuple"])
def test_observations_with_nothing_to_share_come_through_the_pipes(kind):
    fns = [functools.partial(_Plain, kind)] * 2
    ours, sync = SharedMemoryVectorEnv(fns), gym.vector.SyncVectorEnv(fns)
    for results in zip(*(envs.reset(seed=0) for envs in (ours, sync)), strict=True):
        np.testing.assert_equal(*results)
    for actions in ([0, 1], [1, 1], [0, 0], [1, 0]):  # an episode ends and resets
        for results in zip(*(envs.step(np.array(actions)) for envs in (ours, sync)),
                           strict=True):
            np.testing.assert_equal(*results)
    ours.close()
    sync.close()


def test_an_env_error_names_its_sub_env_and_a_pool_goes_on_without_losing_a_step(gated):
    envs, _ = gated
    with pytest.raises(RuntimeError, match="the env failed") as caught:
        envs.call("fail")
    assert caught.value.env_id == 0 and "sub-env 0's worker" in str(caught.value.__cause__)
    envs.send(np.array([0, 2]))
    with pytest.raises(RuntimeError, match="the step failed") as caught:
        envs.recv()
    assert caught.value.env_id == 1
    if hasattr(caught.value, "add_note"):  # Python 3.11+
        assert caught.value.__notes__ == ["(raised by sub-env 1)"]
    *_, infos = envs.recv()  # sub-env 0's step, kept
    assert list(infos["env_id"]) == [0] and list(infos["count"]) == [1]
    envs.send(np.array([0, 0]))  # both idle again: sub-env 1 can be sent a step
    *_, infos = envs.recv()
    assert list(infos["env_id"]) == [0, 1] and list(infos["count"]) == [2, 1]


def test_an_error_that_takes_no_attribute_is_raised_as_it_is(gated):
    # Naming the sub-env on it failed with FrozenInstanceError, which replaced the env's
    # own error and lost the worker's traceback.
    envs, _ = gated
    with pytest.raises(_Refused) as caught:
        envs.call("refuse")
    assert "sub-env 0's worker" in str(caught.value.__cause__)
    _in_step(envs, [0, 0])


def test_an_error_with_an_env_id_of_its_own_keeps_it_and_is_noted(gated):
    envs, _ = gated
    with pytest.raises(_OwnEnvId) as caught:
        envs.call("own_env_id")
    assert caught.value.env_id == "its own"
    if hasattr(caught.value, "add_note"):  # Python 3.11+
        assert caught.value.__notes__ == ["(raised by sub-env 0)"]


def test_a_handler_that_installs_another_keeps_it_and_the_hold(gated):
    # "First Ctrl-C: stop after this step; press again to stop at once." Run by the wait
    # inside step(), the program's handler installed Python's; the call's end put the
    # program's first handler back, and until then a Ctrl-C was not held back any more.
    envs, gate = gated
    asked, during = [], []

    def graceful(number, frame):
        asked.append(number)
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def ctrl_c_then_open():
        _ctrl_c()
        time.sleep(0.2)
        during.append(signal.getsignal(signal.SIGINT))  # the step still holds Ctrl-C back
        gate.touch()

    previous = signal.signal(signal.SIGINT, graceful)
    timer = threading.Timer(0.2, ctrl_c_then_open)
    try:
        timer.start()
        obs, *_ = envs.step(np.array([1, 1]))
        timer.join()
        assert asked == [signal.SIGINT] and list(obs[:, 0]) == [1, 1]
        assert during[0] not in (graceful, signal.default_int_handler)
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        timer.join()
        signal.signal(signal.SIGINT, previous)


def _all_closed(envs, names):
    """Closed, no worker left, no shared-memory block left in /dev/shm."""
    return (envs.closed and envs.exit_codes and None not in envs.exit_codes
            and not any(Path("/dev/shm", name).exists() for name in names))


@pytest.mark.parametrize("stuck", [0, 1])
def test_a_ctrl_c_while_close_waits_for_a_stuck_worker_closes_everything(gated, stuck):
    # Close waits up to 10 s for the workers' answers; interrupted, it left them running,
    # their shared memory in /dev/shm and the env open (a second close waited again).
    # The worker that answered finishes closing its env (which waits for the gate, opened
    # after the Ctrl-C), its answer read or not (close waits on worker 0 first); the stuck
    # one is killed at once.
    envs, gate = gated
    names = [name for batch in envs._batches for name, _, _ in batch.layout.values()]
    envs.set_attr("slow_close", True)
    envs.send(np.array([1, 0] if stuck == 0 else [0, 1]))  # one waits for the gate
    assert list(envs.recv(1)[4]["env_id"]) == [1 - stuck]
    pids = [process.pid for process in envs._processes]

    def open_once_killed():
        _until(lambda: not running(pids[stuck]))
        gate.touch()

    _interrupted(envs.close, then=open_once_killed)
    assert _all_closed(envs, names)
    codes = envs.exit_codes
    assert codes[stuck] == -signal.SIGKILL and codes[1 - stuck] == 0
    assert (gate.parent / f"closed-{pids[1 - stuck]}").exists()


def test_a_ctrl_c_while_close_waits_for_workers_to_end_closes_everything(gated):
    # Both answered close; their envs' close() never ends. The wait for them to exit was
    # not covered: the env stayed open with its memory in /dev/shm.
    envs, _ = gated
    names = [name for batch in envs._batches for name, _, _ in batch.layout.values()]
    envs.set_attr("slow_close", True)
    _interrupted(envs.close, when="_join")
    assert _all_closed(envs, names)
    assert all(pipe.closed for pipe in envs._pipes)


def test_a_second_ctrl_c_while_the_first_is_handled_is_not_held_back(gated, monkeypatch):
    # The first Ctrl-C lands while worker 0's answer is read (held back), and goes to the
    # program's handler at the next wait, for worker 1; a second one that lands while
    # that handler runs went to it only when the call ended, after worker 1's answer.
    envs, gate = gated
    calls = []

    def handler(number, frame):
        calls.append(gate.exists())
        if len(calls) == 1:
            _ctrl_c()  # the second, while the first is handled
        else:
            gate.touch()

    pipe, read = envs._pipes[0], envs._pipes[0]._recv

    def interrupted_read(size, *args):
        if size > 4:
            monkeypatch.setattr(pipe, "_recv", read)
            _ctrl_c()
        return read(size, *args)

    monkeypatch.setattr(pipe, "_recv", interrupted_read)
    previous = signal.signal(signal.SIGINT, handler)
    timer = threading.Timer(10, gate.touch)  # else the code before hung: no second call
    try:
        timer.start()
        envs.step(np.array([0, 1]))  # worker 1 waits for the gate
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert calls == [False, False]  # both while the call still waited for worker 1


def test_a_ctrl_c_that_the_wait_in_the_os_misses_still_interrupts_it(gated):
    # The Ctrl-C lands where the main thread's wait in poll(2) does not see it: in another
    # thread, as also when it lands between Python's last look at its signals and the
    # wait. Python runs its handler when the main thread next runs Python code, and the
    # wait, for answers that came only after the Ctrl-C, never ended.
    envs, gate = gated
    caught = threading.Event()

    reached = []

    def elsewhere():
        reached.append(_until(lambda: _main_in("_sliced")))
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)  # this thread's own
        if not caught.wait(10):  # the code before waited until the gate opened
            gate.touch()

    thread = threading.Thread(target=elsewhere)
    thread.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            envs.step(np.array([1, 1]))
        opened = gate.exists()
        caught.set()
    finally:
        thread.join()
    assert reached == [True] and not opened  # interrupted while the workers still waited
    gate.touch()
    _in_step(envs, [1, 1])

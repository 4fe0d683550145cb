"""A vector env whose last worker runs in the parent process (``worker_in_parent=True``).

That it steps, resets and pools as a ``SyncVectorEnv`` is checked beside the other layouts
(``pair_of_vectors`` in test_vector.py, the pool test in test_vector_pool.py); here, what
differs in the parent: where its envs run, Ctrl-C, errors, and closing.
"""

import functools
import logging
import os
import re
import time

import numpy as np
import pytest

from mobileintent_gym.envs.vector import SharedMemoryVectorEnv
from mobileintent_gym.envs.vector_in_parent import ParentWorker
from mobileintent_gym.envs.vector_worker import WorkerError
from tests.envs.test_vector_api import _Light, _Locking
from tests.envs.test_vector_interrupts import (
    _ctrl_c,
    _Gated,
    _in_step,
    _interrupted,
    _Unreadable,
)


class _Located(_Gated):
    def pid(self):
        return os.getpid()


@pytest.fixture()
def gated(tmp_path):
    """Two gated envs, sub-env 1 in this process, reset, and the file opening their gate."""
    gate = tmp_path / "gate"
    envs = SharedMemoryVectorEnv([functools.partial(_Located, gate)] * 2, worker_in_parent=True)
    envs.reset(seed=0)
    yield envs, gate
    envs.close()


def test_the_last_worker_runs_in_this_process_and_the_others_in_their_own(gated):
    envs, _ = gated
    pids = envs.call("pid")
    assert pids[1] == os.getpid() and pids[0] == envs._processes[0].pid != os.getpid()
    assert isinstance(envs._processes[1], ParentWorker)
    _in_step(envs, [0, 0])


def test_several_sub_envs_share_the_worker_in_this_process():
    envs = SharedMemoryVectorEnv([_Light] * 5, envs_per_worker=2, worker_in_parent=True)
    try:
        assert [type(p) is ParentWorker for p in envs._processes] == [False, False, True]
        envs.reset(seed=0)
        for step in (1, 2):
            obs = envs.step(np.zeros(5, np.int64))[0]
            assert list(obs[:, 0]) == [step] * 5
        envs.send(np.zeros(2, np.int64), [1, 4])  # one in a worker, one in the parent
        obs, *_, infos = envs.recv()
        assert list(infos["env_id"]) == [1, 4] and list(obs[:, 0]) == [3, 3]
    finally:
        envs.close()


def test_a_ctrl_c_during_its_step_waits_for_the_step_and_the_next_call_returns_its_own(gated):
    # The Ctrl-C lands while the env in this process waits in its step for the gate,
    # opened later: cut there, its step would be half done (an error answer, or an env
    # left mid-step); held back, it comes once both steps are done, and their answers are
    # dropped for the next call's own.
    envs, gate = gated
    _interrupted(lambda: envs.step(np.array([1, 1])), when="_wait", then=gate.touch)
    _in_step(envs, [1, 1])
    assert all(process.is_alive() for process in envs._processes)


def test_its_env_errors_are_raised_naming_the_sub_env_and_a_pool_goes_on(gated):
    envs, _ = gated
    with pytest.raises(RuntimeError, match="the env failed") as caught:
        envs.call("fail")
    assert caught.value.env_id == 0  # the first error of the call; both raised it
    envs.send(np.array([2, 0]), [1, 0])  # sub-env 1's step (in this process) fails
    with pytest.raises(RuntimeError, match="the step failed") as caught:
        envs.recv()
    assert caught.value.env_id == 1 and "sub-env 1's worker" in str(caught.value.__cause__)
    *_, infos = envs.recv()  # sub-env 0's step, kept
    assert list(infos["env_id"]) == [0] and list(infos["count"]) == [1]
    _in_step(envs, [1, 0])


def test_answers_it_cannot_pickle_or_read_are_errors_and_it_goes_on(gated):
    envs, _ = gated
    with pytest.raises(WorkerError, match=re.escape(
            "worker 0's answer cannot be unpickled here: TypeError('cannot be rebuilt here')")):
        envs.call("unreadable")
    locking = SharedMemoryVectorEnv([_Locking] * 2, worker_in_parent=True)
    try:
        locking.reset(seed=0)
        with pytest.raises(TypeError, match="cannot pickle") as caught:
            locking.step(np.array([0, 1]))  # the lock is in sub-env 1's info, in this process
        assert caught.value.env_id == 1 and list(locking.recv()[4]["env_id"]) == [0]
        assert list(locking.step(np.array([0, 0]))[0][:, 0]) == [2, 2]
    finally:
        locking.close()
    _in_step(envs, [0, 0])


def test_a_message_it_cannot_unpickle_ends_it_as_a_worker_process_ends(tmp_path):
    gate = tmp_path / "gate"
    envs = SharedMemoryVectorEnv([functools.partial(_Gated, gate)] * 2, worker_in_parent=True)
    envs.reset(seed=0)
    envs.send(np.array([_Unreadable()], dtype=object), [1])
    with pytest.raises(TypeError, match="cannot be rebuilt here") as caught:
        envs.recv()
    assert caught.value.env_id == 1
    assert (tmp_path / f"closed-{os.getpid()}").exists()  # its env was closed as it ended
    with pytest.raises(WorkerError, match=re.escape("worker 1 (in this process) has ended")):
        envs.step(np.array([0, 0]))
    envs.close()
    assert envs.exit_codes == (0, 0)


def test_close_closes_its_envs_and_every_worker(gated):
    envs, gate = gated
    worker = envs._processes[0].pid
    envs.close()
    assert envs.exit_codes == (0, 0) and all(pipe.closed for pipe in envs._pipes)
    assert (gate.parent / f"closed-{os.getpid()}").exists()
    assert (gate.parent / f"closed-{worker}").exists()
    envs.close()  # again: nothing left to close


class _WideGated(_Gated):
    observation_space = _Light(wide=True).observation_space


def test_its_envs_with_other_spaces_are_named_and_nothing_is_left_open(tmp_path):
    gate = tmp_path / "gate"
    with pytest.raises(WorkerError, match=r"sub-env 1's env has other spaces than sub-env 0's"
                       ) as caught:
        SharedMemoryVectorEnv([functools.partial(_Gated, gate),
                               functools.partial(_WideGated, gate)], worker_in_parent=True)
    # Closed by the constructor: the error's traceback still holds the vector env, so no
    # collection of it (which closes an env left open) has happened yet.
    closed = sorted(path.name for path in tmp_path.glob("closed-*"))
    assert len(closed) == 2 and f"closed-{os.getpid()}" in closed  # the worker's and ours
    del caught


def test_an_env_that_cannot_be_built_in_this_process_fails_the_constructor(tmp_path):
    def broken():
        raise RuntimeError("no phone for this one")

    gate = tmp_path / "gate"
    with pytest.raises(RuntimeError, match="no phone for this one") as caught:
        SharedMemoryVectorEnv([functools.partial(_Gated, gate), broken], worker_in_parent=True)
    assert caught.value.env_id == 1


class _Leaving(_Gated):
    """Its action 2 raises what no env error is: a BaseException (as pytest.fail's)."""

    def step(self, action):
        if action == 2:
            raise GeneratorExit("left mid-step")
        return super().step(action)


def test_what_is_no_exception_ends_it_raised_as_it_is_and_the_rest_closes(tmp_path):
    gate = tmp_path / "gate"
    envs = SharedMemoryVectorEnv([functools.partial(_Leaving, gate)] * 2, worker_in_parent=True)
    envs.reset(seed=0)
    with pytest.raises(GeneratorExit, match="left mid-step"):
        envs.step(np.array([0, 2]))
    assert (tmp_path / f"closed-{os.getpid()}").exists()
    with pytest.raises(WorkerError, match=re.escape("worker 1 (in this process) has ended")):
        envs.step(np.array([0, 0]))  # no wait for an answer that never comes
    envs.close()
    assert envs.exit_codes == (0, 0)


def test_a_ctrl_c_while_its_env_is_built_waits_for_it_and_closes_it(tmp_path):
    gate = tmp_path / "gate"
    built = []

    def interrupted():  # the Ctrl-C lands while this process builds its env
        _ctrl_c()
        built.append(_Gated(gate))
        return built[-1]

    with pytest.raises(KeyboardInterrupt):
        SharedMemoryVectorEnv([functools.partial(_Gated, gate), interrupted],
                              worker_in_parent=True)
    assert len(built) == 1 and (tmp_path / f"closed-{os.getpid()}").exists()


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_a_worker_in_parent_that_is_no_bool_is_named(value):
    with pytest.raises(ValueError, match=f"worker_in_parent must be True or False, got "
                                         f"{re.escape(repr(value))}"):
        SharedMemoryVectorEnv([_Light], worker_in_parent=value)
    # copy="no" was taken, and read as true.
    with pytest.raises(ValueError, match=f"copy must be True or False, got "
                                         f"{re.escape(repr(value))}"):
        SharedMemoryVectorEnv([_Light], copy=value, worker_in_parent=True)


def test_env_functions_from_a_generator_are_taken_once():
    # The check that they are callable spent it: "object of type 'generator' has no len()".
    envs = SharedMemoryVectorEnv((_Light for _ in range(2)), worker_in_parent=True)
    try:
        envs.reset(seed=0)
        assert envs.step(np.array([1, 1]))[0].tolist() == [[1], [1]]
    finally:
        envs.close()


def test_in_a_pool_its_steps_are_taken_in_the_next_recv_however_often_others_answer():
    # Its steps were taken only when recv() found no answer there; an agent receiving one
    # sub-env at a time and thinking before each send always found one, and the sub-env
    # in the parent came back once in 30 receives.
    envs = SharedMemoryVectorEnv([_Light] * 3, worker_in_parent=True)
    try:
        envs.reset(seed=0)
        envs.send(np.zeros(3, np.int64))
        returned = []
        for _ in range(30):
            *_, infos = envs.recv(1)
            returned += [int(i) for i in infos["env_id"]]
            time.sleep(0.02)  # the agent thinks; the worker processes answer meanwhile
            envs.send(np.zeros(1, np.int64), infos["env_id"])
        assert returned.count(2) >= 8 and set(returned) == {0, 1, 2}
    finally:
        envs.recv()
        envs.close()


class _FailingClose(_Gated):
    def close(self):
        super().close()
        raise RuntimeError(f"close failed in {os.getpid()}")


def test_an_env_close_that_fails_is_logged_not_raised_as_a_worker_process_prints_it(
        tmp_path, caplog):
    gate = tmp_path / "gate"
    envs = SharedMemoryVectorEnv([functools.partial(_FailingClose, gate)] * 2,
                                 worker_in_parent=True)
    with caplog.at_level(logging.ERROR, "mobileintent_gym.envs.vector_worker"):
        envs.close()
    assert envs.exit_codes == (1, 1)  # the worker process's close raised there
    assert f"close failed in {os.getpid()}" in caplog.text
    assert (tmp_path / f"closed-{os.getpid()}").exists()


class _LoggedClose(_Light):
    """Writes its name to ``log`` when closed, then raises ``fails`` if given."""

    def __init__(self, log, name, fails=None):
        super().__init__()
        self.log, self.name, self.fails = log, name, fails

    def close(self):
        with open(self.log, "a") as out:
            out.write(self.name)
        if self.fails is not None:
            raise self.fails("in close")


def test_a_ctrl_c_in_one_envs_close_is_raised_once_the_others_are_closed(tmp_path):
    # It stopped the loop: the env after it (a device, a session) was never closed.
    log = tmp_path / "closed"
    envs = SharedMemoryVectorEnv([functools.partial(_LoggedClose, log, "a", KeyboardInterrupt),
                                  functools.partial(_LoggedClose, log, "b")],
                                 envs_per_worker=2, worker_in_parent=True)
    with pytest.raises(KeyboardInterrupt, match="in close"):
        envs.close()
    assert log.read_text() == "ab"
    assert envs.exit_codes == (1,)


def test_a_worker_process_closes_every_env_though_one_close_fails(tmp_path):
    # Its loop stopped at the failing close: the envs after it were never closed.
    log = tmp_path / "closed"
    envs = SharedMemoryVectorEnv([functools.partial(_LoggedClose, log, "a", RuntimeError),
                                  functools.partial(_LoggedClose, log, "b")],
                                 envs_per_worker=2)
    envs.close()
    assert log.read_text() == "ab"
    assert envs.exit_codes == (1,)  # the failed close is said in its exit code


def test_a_constructor_error_is_not_replaced_by_an_env_close_error(tmp_path):
    gate = tmp_path / "gate"

    class Wide(_FailingClose):
        observation_space = _Light(wide=True).observation_space

    with pytest.raises(WorkerError, match="other spaces"):
        SharedMemoryVectorEnv([functools.partial(_FailingClose, gate),
                               functools.partial(Wide, gate)], worker_in_parent=True)


def test_what_is_no_exception_while_its_env_is_built_closes_the_other_workers_envs(tmp_path):
    # Raised as it is, it killed the worker processes: their envs (a device, a session)
    # were never closed.
    gate = tmp_path / "gate"

    def leaving():
        raise GeneratorExit("left while built")

    with pytest.raises(GeneratorExit, match="left while built"):
        SharedMemoryVectorEnv([functools.partial(_Gated, gate), leaving],
                              worker_in_parent=True)
    closed = [path.name for path in tmp_path.glob("closed-*")]
    assert len(closed) == 1 and closed != [f"closed-{os.getpid()}"]

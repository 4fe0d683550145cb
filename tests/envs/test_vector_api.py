"""The shared-memory vector env's Gymnasium API besides stepping: attributes, closing, misuse."""

import functools
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import ClassVar

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.error import AlreadyPendingCallError, ClosedEnvironmentError

from mobileintent_gym.envs.vector import SharedMemoryVectorEnv, make_vector
from mobileintent_gym.envs.vector_worker import WorkerError
from tests.envs.test_vector import ENV, KWARGS
from tests.envs.test_vector_interrupts import _Unreadable


class _Light(gym.Env):
    """A counter with a ``speed`` to set, and (when ``wide``) another observation space."""

    metadata: ClassVar[dict] = {"render_modes": ["rgb_array"], "render_fps": 7}
    action_space = gym.spaces.Discrete(2)

    def __init__(self, wide=False, render_mode=None):
        self.observation_space = gym.spaces.Box(0, 1000, (2 if wide else 1,), np.int64)
        self.render_mode, self.speed, self.count = render_mode, 1, 0

    def reset(self, *, seed=None, options=None):
        self.count = 0
        return np.zeros(self.observation_space.shape, np.int64), {}

    def step(self, action):
        self.count += self.speed
        return np.full(self.observation_space.shape, self.count), 0.0, False, False, {}


class _Echo(gym.Env):
    """Observes the text it was given: an env answered in text, as Predict is."""

    action_space = gym.spaces.Text(8)
    observation_space = gym.spaces.Text(8)

    def reset(self, *, seed=None, options=None):
        return "", {}

    def step(self, action):
        return action, 0.0, False, False, {}


class _Masked(gym.Env):
    """Observes a count and an action mask (a bool Box), as a masking wrapper adds."""

    action_space = gym.spaces.Discrete(4)
    observation_space = gym.spaces.Dict({
        "x": gym.spaces.Box(0.0, 1.0, (3,), np.float32),
        "action_mask": gym.spaces.Box(0, 1, (4,), np.bool_)})

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self._observe(), {}

    def step(self, action):
        return self._observe(), 0.0, False, False, {}

    def _observe(self):
        return {"x": self.np_random.random(3, np.float32),
                "action_mask": self.np_random.random(4) < 0.5}


def test_a_bool_box_is_shared_and_observed_as_in_a_sync_vector_env():
    ours = SharedMemoryVectorEnv([_Masked] * 2)
    sync = gym.vector.SyncVectorEnv([_Masked] * 2)
    assert ours.single_observation_space == sync.single_observation_space
    for got, expected in ((ours.reset(seed=3)[0], sync.reset(seed=3)[0]),
                          (ours.step(np.array([0, 1]))[0], sync.step(np.array([0, 1]))[0])):
        assert got["action_mask"].dtype == np.bool_
        assert all(np.array_equal(got[k], expected[k]) for k in ("x", "action_mask"))
    ours.close()
    sync.close()


def test_render_mode_and_metadata_are_the_sub_envs_as_in_a_sync_vector_env():
    kwargs = {**KWARGS, "users": ["demo-ana"], "render_mode": "rgb_array"}
    ours = make_vector(ENV, 1, **kwargs)
    sync = gym.make_vec(ENV, 1, vectorization_mode="sync", **kwargs)
    assert ours.render_mode == sync.render_mode == "rgb_array"
    assert ours.metadata["render_fps"] == sync.metadata["render_fps"] == 4
    assert ours.metadata["autoreset_mode"] == sync.metadata["autoreset_mode"]
    ours.reset(seed=0)
    sync.reset(seed=0)
    (frame,), (expected,) = ours.render(), sync.render()
    assert np.array_equal(frame, expected) and not expected.flags.writeable
    frame[:8] = 0  # the phone's own frame is read-only; the one that came through a pipe not
    ours.close()
    sync.close()
    light = SharedMemoryVectorEnv([_Light])
    assert light.render_mode is None and light.metadata["render_fps"] == 7
    light.close()


def test_set_attr_sets_one_value_per_sub_env_or_one_for_all():
    envs = SharedMemoryVectorEnv([_Light] * 2)
    envs.reset(seed=0)
    envs.set_attr("speed", [2, 5])
    assert envs.get_attr("speed") == (2, 5)
    assert list(envs.step(np.array([0, 0]))[0][:, 0]) == [2, 5]
    envs.set_attr("speed", 3)
    assert envs.get_attr("speed") == (3, 3)
    with pytest.raises(ValueError, match=r"set_attr\('speed'\) needs one value per sub-env "
                                         r"\(2\), got 3"):
        envs.set_attr("speed", (1, 1, 1))
    assert envs.get_attr("speed") == (3, 3)  # nothing set
    envs.close()


@pytest.mark.parametrize("call", [
    lambda envs: envs.reset(seed=0), lambda envs: envs.step(np.array([0])),
    lambda envs: envs.send(np.array([0])), lambda envs: envs.recv(),
    lambda envs: envs.call("render"), lambda envs: envs.set_attr("speed", 2)])
def test_a_closed_env_refuses_every_call_as_gymnasiums_vector_envs_do(call):
    envs = SharedMemoryVectorEnv([_Light])
    envs.close()
    with pytest.raises(ClosedEnvironmentError, match="after close"):
        call(envs)
    envs.close()  # a second close does nothing


def test_workers_with_other_spaces_are_named_with_both_spaces():
    with pytest.raises(WorkerError, match=r"sub-env 1's env has other spaces than sub-env 0's: "
                                          r"\(Box\(0, 1000, \(2,\), int64\).* against "
                                          r"\(Box\(0, 1000, \(1,\), int64\)"):
        SharedMemoryVectorEnv([_Light, functools.partial(_Light, wide=True)])


class _Refusing(_Light):
    """A counter that refuses action 1 (its step raises) and counts on otherwise; its
    episodes end at the count ``ends_at``."""

    ends_at = 1000

    def step(self, action):
        if action == 1:
            raise ValueError("action 1 refused")
        observation, _, _, truncated, info = super().step(action)
        return observation, float(self.count), self.count >= self.ends_at, truncated, info


def test_a_sub_env_error_keeps_its_worker_mates_steps_for_recv():
    envs = SharedMemoryVectorEnv([_Refusing] * 3, envs_per_worker=2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="action 1 refused") as caught:
        envs.step(np.array([1, 0, 0]))
    assert caught.value.env_id == 0
    with pytest.raises(AlreadyPendingCallError, match=r"sub-envs \[1, 2\]"):
        envs.step(np.array([0, 0, 0]))  # what the others' step gave is not dropped
    obs, rewards, *_, info = envs.recv()
    assert list(info["env_id"]) == [1, 2] and list(obs[:, 0]) == [1, 1]
    assert list(rewards) == [1.0, 1.0] and envs.get_attr("count") == (0, 1, 1)
    envs.send(np.array([0, 1]), [0, 1])  # one message to their worker; recv the error first
    with pytest.raises(ValueError, match="action 1 refused"):
        envs.recv()
    obs, *_, info = envs.recv()
    assert list(info["env_id"]) == [0] and obs[0, 0] == 1
    envs.close()


def test_after_a_failed_step_attributes_work_and_a_reset_drops_the_kept_steps():
    # Wrapped, the env has no recv(): a reset is how a training loop goes on.
    envs = gym.wrappers.vector.RecordEpisodeStatistics(SharedMemoryVectorEnv([_Refusing] * 2))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="action 1 refused"):
        envs.step(np.array([1, 0]))
    assert envs.unwrapped.get_attr("count") == (0, 1)
    with pytest.raises(AlreadyPendingCallError, match=r"\[1\] .*kept from a step\(\) that"):
        envs.step(np.array([0, 0]))
    with pytest.raises(AlreadyPendingCallError, match=r"\[1\] .*or reset\(\) them"):
        envs.reset(options={"reset_mask": np.array([True, False])})  # 1's step stays kept
    obs, _ = envs.reset(seed=0)
    assert list(obs[:, 0]) == [0, 0]
    obs, *_ = envs.step(np.array([0, 0]))
    assert list(obs[:, 0]) == [1, 1] and envs.unwrapped.get_attr("count") == (1, 1)
    envs.close()


def test_a_reset_that_drops_a_second_error_of_a_failed_step_says_so():
    envs = SharedMemoryVectorEnv([_Refusing] * 3)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="action 1 refused") as caught:
        envs.step(np.array([1, 1, 0]))
    assert caught.value.env_id == 0
    with pytest.warns(UserWarning, match=r"drops sub-env 1's error .*action 1 refused"):
        envs.reset(seed=0)
    envs.close()


def test_an_episode_that_ended_beside_an_error_is_seen_ended():
    # Dropped with the error, the end went unseen: the next step reset the sub-env.
    envs = SharedMemoryVectorEnv([_Refusing] * 2)
    envs.set_attr("ends_at", 1)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="action 1 refused"):
        envs.step(np.array([0, 1]))
    _, rewards, terminated, _, info = envs.recv()
    assert list(info["env_id"]) == [0] and list(terminated) == [True] and rewards[0] == 1.0
    envs.close()


class _Misshapen(gym.Env):
    """A counter (``count``) and its double (``twice``) in a Dict space; its step gives
    ``twice`` in the shape ``shape`` (``None``: leaves it out)."""

    action_space = gym.spaces.Discrete(2)
    observation_space = gym.spaces.Dict({
        "count": gym.spaces.Box(0, 1000, (2,), np.int64),
        "twice": gym.spaces.Box(0, 1000, (2,), np.int64)})

    def __init__(self, shape=(2,)):
        self.shape = shape

    def reset(self, *, seed=None, options=None):
        return {"count": np.zeros(2, np.int64), "twice": np.zeros(2, np.int64)}, {}

    def step(self, action):
        observation = {"count": np.full(2, 1)}
        if self.shape is not None:
            observation["twice"] = np.full(self.shape, 2)
        return observation, 0.0, False, False, {}


@pytest.mark.parametrize(("shape", "message"), [
    ((), r"observation field 'twice' has shape \(\), not \(2,\)"),  # numpy broadcast it
    ((1,), r"observation field 'twice' has shape \(1,\), not \(2,\)"),
    ((3,), r"observation field 'twice' has shape \(3,\), not \(2,\)"),
    (None, r"observation field 'twice' is missing")])
def test_an_observation_field_of_another_shape_or_missing_is_named(shape, message):
    envs = SharedMemoryVectorEnv([_Misshapen, functools.partial(_Misshapen, shape)])
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=message) as caught:
        envs.step(np.array([0, 0]))
    assert caught.value.env_id == 1
    obs, *_ = envs.recv()  # sub-env 0's step, kept
    assert obs["count"].tolist() == [[1, 1]] and obs["twice"].tolist() == [[2, 2]]
    obs, _ = envs.reset(seed=0, options={"reset_mask": np.array([False, True])})
    assert obs["count"][1].tolist() == [0, 0]
    envs.close()


def test_a_box_observation_of_another_shape_is_named():
    class _Scalar(_Light):
        def step(self, action):
            return np.int64(7), *super().step(action)[1:]

    envs = SharedMemoryVectorEnv([functools.partial(_Scalar, wide=True)])
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"the observation has shape \(\), not \(2,\)"):
        envs.step(np.array([0]))
    envs.close()


class _Locking(_Light):
    """A counter whose action 1 puts a lock (which cannot be pickled) in its info."""

    def step(self, action):
        observation, *rest, info = super().step(action)
        return observation, *rest, {"lock": threading.Lock()} if action == 1 else info

    def lock(self):
        return threading.Lock()


@pytest.mark.parametrize("share", [1, 2])
def test_an_answer_the_worker_cannot_pickle_is_an_error_and_the_worker_goes_on(share):
    # Sent as one message, it used to end the worker and every sub-env in it.
    envs = SharedMemoryVectorEnv([_Locking] * 2, envs_per_worker=share)
    envs.reset(seed=0)
    with pytest.raises(TypeError, match=r"cannot pickle '_thread\.lock' object"):
        envs.call("lock")
    with pytest.raises(TypeError, match="cannot pickle") as caught:
        envs.step(np.array([1, 0]))
    assert caught.value.env_id == 0 and list(envs.recv()[4]["env_id"]) == [1]
    assert envs.get_attr("count") == (1, 1)
    envs.send(np.array([1]), [0])  # a message naming one sub-env of two
    with pytest.raises(TypeError, match="cannot pickle"):
        envs.recv()
    obs = envs.step(np.array([0, 0]))[0]
    assert list(obs[:, 0]) == [3, 2] and all(p.is_alive() for p in envs._processes)
    envs.close()


def test_a_worker_failing_as_a_whole_fails_each_sub_env_its_message_named():
    # An action that cannot be unpickled in the worker ends it. It answered for all its
    # sub-envs, where the message named one: recv() then failed with an error of its own
    # (zip() arguments of other lengths).
    envs = SharedMemoryVectorEnv([_Light] * 2, envs_per_worker=2)
    envs.reset(seed=0)
    envs.send(np.array([_Unreadable()], dtype=object), [0])
    with pytest.raises(TypeError, match="cannot be rebuilt here") as caught:
        envs.recv()
    assert caught.value.env_id == 0
    with pytest.raises(WorkerError, match="worker 0 died"):  # the worker ended there
        envs.step(np.array([0, 0]))
    envs.close()


@pytest.mark.parametrize("share", [0, -1, 1.5, True, "2"])
def test_an_envs_per_worker_that_is_no_positive_integer_is_named(share):
    with pytest.raises(ValueError, match=f"envs_per_worker must be a positive integer, got "
                                         f"{share!r}"):
        SharedMemoryVectorEnv([_Light], envs_per_worker=share)


def test_workers_of_several_sub_envs_name_the_one_with_other_spaces():
    with pytest.raises(WorkerError, match=r"sub-env 3's env has other spaces than sub-env 0's"):
        SharedMemoryVectorEnv([_Light] * 3 + [functools.partial(_Light, wide=True)],
                              envs_per_worker=2)


@pytest.mark.parametrize("num_envs", [0, -1, 1.0, True])
def test_a_num_envs_that_is_no_positive_integer_is_named(num_envs):
    with pytest.raises(ValueError, match=f"num_envs must be a positive integer, got "
                                         f"{num_envs!r}"):
        gym.make_vec(ENV, num_envs, vectorization_mode="vector_entry_point", **KWARGS)


def test_another_autoreset_mode_is_named_before_workers_start():
    # It went on to gym.make in each worker: "unexpected keyword argument 'autoreset_mode'".
    from gymnasium.vector import AutoresetMode

    with pytest.raises(ValueError, match=r"autoreset_mode AutoresetMode.SAME_STEP is not this "
                                         r"vector env's \(next-step only\): give "
                                         r"vectorization_mode='sync' or 'async'"):
        gym.make_vec(ENV, 2, vectorization_mode="vector_entry_point",
                     autoreset_mode=AutoresetMode.SAME_STEP, **KWARGS)
    envs = gym.make_vec(ENV, 1, vectorization_mode="vector_entry_point",
                        autoreset_mode="NextStep", **KWARGS)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    envs.close()


def test_a_wrong_action_batch_is_named_briefly():
    envs = SharedMemoryVectorEnv([_Light])
    with pytest.raises(ValueError, match="actions must be batched") as caught:
        envs.step(np.arange(5000))
    assert len(str(caught.value)) < 600 and "actions.batch_actions" in str(caught.value)
    envs.close()


def _five():
    return 5


@pytest.mark.parametrize("worker_in_parent", [False, True])
def test_an_env_function_that_makes_no_env_is_named(worker_in_parent, capfd):
    # AttributeError ('int' object has no attribute 'observation_space'), and each worker
    # printed another from closing it.
    with pytest.raises(WorkerError, match=r"an env function made int 5, not an env"):
        SharedMemoryVectorEnv([_five, _five], worker_in_parent=worker_in_parent)
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize(("env_fns", "named"), [
    ("x", "needs a sequence of env functions .*got 'x'"),  # TypeError: 'str' not callable
    ([], "needs a sequence of env functions .*got \\[\\]"),
    ([_Light, 5], "env functions make an env when called, got int 5"),
])
def test_env_functions_that_are_none_are_named_before_workers_start(env_fns, named):
    with pytest.raises(ValueError, match=named):
        SharedMemoryVectorEnv(env_fns)


@pytest.mark.parametrize("text", ["ab", b"ab"])
def test_one_text_for_two_sub_envs_is_named_not_split_into_letters(text):
    # "ab" was iterated: sub-env 0 answered "a", sub-env 1 "b", without an error.
    envs = SharedMemoryVectorEnv([_Echo, _Echo], worker_in_parent=True)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match=r"batched for 2 sub-envs \(a sequence of 2\), got "
                                         r"one text b?'ab'"):
        envs.step(text)
    assert list(envs.step(("ab", "cd"))[0]) == ["ab", "cd"]  # nothing sent: stepped anew
    envs.close()


def test_the_wait_for_answers_returns_the_pipes_that_have_one_or_were_closed():
    from multiprocessing import Pipe

    from mobileintent_gym.envs.vector_calls import ready

    pairs = [Pipe() for _ in range(4)]
    ends = [mine for mine, _ in pairs]
    assert ready(ends, 0.05) == []  # nothing sent: the timeout passes
    pairs[1][1].send_bytes(b"answer")
    pairs[3][1].close()  # a worker that died
    assert sorted(ends.index(pipe) for pipe in ready(ends, None)) == [1, 3]
    assert ends[1].recv_bytes() == b"answer"
    assert ready(ends[:3], 0) == []


def test_seeds_and_generators_are_the_sub_envs_as_in_gymnasiums_vector_envs():
    ours = make_vector(ENV, 2, **KWARGS)
    sync = gym.make_vec(ENV, 2, vectorization_mode="sync", **KWARGS)
    for envs in (ours, sync):
        envs.reset(seed=5)
    assert ours.np_random_seed == sync.np_random_seed == (5, 6)
    assert [g.bit_generator.state for g in ours.np_random] == [
        g.bit_generator.state for g in sync.np_random]
    ours.close()
    sync.close()


@pytest.mark.parametrize("seed", [[-1, 5], [5, "x"], [5, 1.5], [5, True], 1.5, -2, {10: 0, 20: 0},
                                  [1, 2, 3], np.array([[1, 2]]), b"\x01\x02", bytearray(2)])
def test_a_bad_seed_is_named_and_resets_no_sub_env(seed):
    envs = SharedMemoryVectorEnv([_Light] * 2)
    envs.reset(seed=0)
    envs.step(np.array([0, 0]))
    with pytest.raises(ValueError, match="seed must be None, an int >= 0 or a list of 2"):
        envs.reset(seed=seed)
    assert envs.step(np.array([0, 0]))[0].tolist() == [[2], [2]]  # neither sub-env reset
    envs.close()


def test_a_seed_per_sub_env_may_be_a_numpy_array_or_hold_none():
    envs = SharedMemoryVectorEnv([_Masked] * 3)
    envs.reset(seed=np.array([3, 4, 9]))
    assert envs.np_random_seed == (3, 4, 9)
    envs.reset(seed=[np.int64(7), None, 2])
    assert envs.np_random_seed == (7, 4, 2)  # None keeps the sub-env's generator
    envs.reset(seed=range(10, 13))  # any sequence, as Gymnasium's vector envs take
    assert envs.np_random_seed == (10, 11, 12)
    envs.close()


@pytest.mark.parametrize("options", [["x"], "abc", 3])
def test_options_that_are_no_dict_are_named(options):
    envs = SharedMemoryVectorEnv([_Light] * 2)
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="options must be None or a dict"):
        envs.reset(options=options)
    envs.close()


def test_a_script_that_makes_a_vector_env_unguarded_is_told_to_guard_it(tmp_path):
    # Each spawned worker imports the main script, which made a vector env again: the
    # workers died and the error said only "worker 0 died (exit code 1)".
    script = tmp_path / "unguarded.py"
    script.write_text("import gymnasium as gym\n"
                      "from mobileintent_gym.envs.vector import SharedMemoryVectorEnv\n"
                      "SharedMemoryVectorEnv([lambda: gym.make('CartPole-v1')])\n")
    root = str(Path(__file__).resolve().parents[2])
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": root})
    last = done.stderr.strip().splitlines()[-2]
    assert done.returncode == 1 and last.endswith(
        'while starting. A worker starts by importing the main script: if its error above '
        'says so, make vector envs under `if __name__ == "__main__":`'), done.stderr[-2000:]
    assert "if __name__ == '__main__':" in done.stderr  # multiprocessing's own words, above


def test_actions_as_strings_step_gymnasiums_own_vector_env():
    # Gymnasium's SyncVectorEnv took ["SWIPE[UP]", ...] as a batch and failed deep inside
    # ("list indices must be integers"); batch_actions puts them in its action space.
    from mobileintent_gym.actions import batch_actions
    from mobileintent_gym.errors import InvalidActionError

    envs = gym.make_vec(ENV, 2, vectorization_mode="sync", **KWARGS)
    alone = gym.make(ENV, **KWARGS)
    try:
        envs.reset(seed=[3, 4])
        sample = envs.single_action_space.sample()
        batch = batch_actions(["SWIPE[UP]", sample], envs.single_action_space)
        obs = envs.step(batch)[0]
        alone.reset(seed=3)
        expected = alone.step("SWIPE[UP]")[0]
        assert obs["instruction"][0] == expected["instruction"]
        assert np.array_equal(obs["screenshot"][0], expected["screenshot"])
        assert batch["text"][1] == sample["text"]  # a sample is batched as it is
        with pytest.raises(InvalidActionError, match="CLICK\\[oops\\]"):
            batch_actions(["CLICK[oops]", "COMPLETE"], envs.single_action_space)
        # A text was read letter by letter ("not an action: 'C'"); none was numpy's
        # "need at least one array to stack".
        for one in ("CLICK[1,2]", []):
            with pytest.raises(InvalidActionError, match=rf"one action per sub-env, got "
                                                         rf"{re.escape(repr(one))}"):
                batch_actions(one, envs.single_action_space)
        # A sample without a key failed in Gymnasium (KeyError: "'direction'"), and so
        # did a float (TypeError: "Cannot cast array data"); a bool type was batched as
        # 1, a CLICK, where the env alone refuses it.
        for bad, named in (({"type": 9}, "action sample lacks 'direction': {'type': 9}"),
                           ({**sample, "point": [1.5, 2]}, r"point must be two integers, "
                                                           r"got \[1.5, 2\]"),
                           ({**sample, "type": True}, "type must be an integer, got True"),
                           ({**sample, "key": 1.5}, "key must be an integer, got 1.5")):
            with pytest.raises(InvalidActionError, match=named):
                batch_actions(["COMPLETE", bad], envs.single_action_space)
        taken = batch_actions((a for a in ("SWIPE[UP]", "COMPLETE")), envs.single_action_space)
        assert len(taken["type"]) == 2  # any iterable, as before
    finally:
        envs.close()
        alone.close()

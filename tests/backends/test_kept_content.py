"""On a device that keeps its content, each episode starts from the user's content again.

The device is the virtual adb device (real Debian adb server, adbutils) serving a user's
phone, as `serve-adb --user` does; the env is told the device holds the content.
"""

import contextlib
from pathlib import Path

import gymnasium as gym
import pytest

import mobileintent_gym.users  # (also registers the envs)
from mobileintent_gym.agents import OracleAgent
from mobileintent_gym.backends.adb import AdbConfig, AdbDevice
from mobileintent_gym.envs import execute as execute_module
from mobileintent_gym.errors import DeviceError
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.rollouts import evaluate
from mobileintent_gym.tasks import task_ids
from mobileintent_gym.users import PairConfig, load_user_content
from tests.helpers import served_over_adb

STATE = ("cmd", "mobileintent", "state")


@pytest.fixture(scope="module")
def anas_phone(tmp_path_factory):
    """demo-ana's phone served with its user, on a private adb server."""
    phone = SimPhone()
    phone.reset(load_user_content("demo-ana").state)
    with served_over_adb(phone, tmp_path_factory.mktemp("adbhome"), "demo-ana") as adb:
        yield adb


def env_on(local, users, **kwargs):
    device = AdbDevice(AdbConfig(local.serial, server_port=local.server_port))
    return gym.make("Act2Intent-Execute-v0", device=device, observation=("instruction",),
                    users=users, load_state=False, **kwargs)


@contextlib.contextmanager
def played(local, users, **kwargs):
    """An env on ``local``'s phone; env and device let go of it after, whatever happened."""
    env = env_on(local, users, **kwargs)
    try:
        yield env
    finally:
        env.close()
        env.unwrapped.device.close()


def test_every_recently_played_task_succeeds_in_a_row(anas_phone):
    """Playing a track moves it to the top of "Recently played"; without the restore the
    next episode found its target already playing and 2 of the 4 tasks failed."""
    env = env_on(anas_phone, ["demo-ana"])
    runs = evaluate(env, lambda e, seed: OracleAgent(e), ["demo-ana"], task_ids(("G-SPT-02",)))
    assert [r.success for r, _ in runs] == [True] * 4
    assert anas_phone.device.history.count(("cmd", "mobileintent", "restore-state")) >= 4


def test_a_reset_leaves_the_served_phone_where_the_simulated_one_is(anas_phone):
    # Restored, the phone shows its launcher: a HOME press on top would be an action,
    # and its clock would run 4 s ahead of the simulated phone's for the whole episode.
    task = {"task": "G-SPT-03:common:explicit"}
    sim = gym.make("Act2Intent-Execute-v0", observation=("instruction",), users=["demo-ana"])
    sim.reset(options=task)
    env_on(anas_phone, ["demo-ana"]).reset(options=task)
    served = anas_phone.device.phone
    assert anas_phone.thread.call(lambda: served.clock) == sim.unwrapped.device.clock
    assert anas_phone.thread.call(served.route) == sim.unwrapped.device.route()


def no_build(monkeypatch):
    """Content the env would build now fails the test: the device must be refused first."""
    def build(profile, *args, **kwargs):
        raise AssertionError(f"{profile.user_id}'s content was built for a device holding "
                             "another's")

    monkeypatch.setattr(execute_module, "build_user_content", build)


def test_another_users_episode_on_this_phone_is_refused_and_the_last_one_goes_on(
        anas_phone, monkeypatch):
    # The refusal came after the env built demo-ben's content (a minute uncached) and after
    # the phone was restored: the episode on it could no longer be stepped.
    with played(anas_phone, ["demo-ana", "demo-ben"]) as env:
        env.reset(options={"user": "demo-ana", "task": "G-SPT-03:common:explicit"})
        no_build(monkeypatch)
        with pytest.raises(DeviceError,
                           match="the content of 'demo-ana', the episode is for 'demo-ben'"):
            env.reset(options={"user": "demo-ben", "task": "G-SPT-03:common:explicit"})
        observation, *_ = env.step({"action_type": "PRESS", "key": "BACK"})
        assert observation["instruction"] == env.unwrapped.task.instruction
        assert env.unwrapped.task.user == "demo-ana"


def test_content_built_with_another_pair_seed_is_refused(anas_phone, monkeypatch):
    # The phone holds demo-ana's content shuffled with seed 0: the env's tasks, built with
    # seed 5, would name what is not where the device shows it.
    no_build(monkeypatch)
    refused = pytest.raises(DeviceError, match=r"other PAIR settings than the env's: seed 0 "
                            r"\(env: 5\); serve-adb --seed 5")
    with played(anas_phone, ["demo-ana"], pair=PairConfig(seed=5)) as env, refused:
        env.reset(options={"task": "G-SPT-03:common:explicit"})


def test_a_user_given_by_a_profiles_path_plays_on_the_phone_served_with_it(anas_phone,
                                                                          tmp_path):
    # The device names the profile's user id: a path, or a file named otherwise, was
    # compared as given and refused ("the content of 'demo-ana', the episode is for
    # '/…/ana.json'").
    profile = tmp_path / "ana.json"
    profile.write_bytes((Path(mobileintent_gym.users.__file__).parent / "profiles"
                         / "demo-ana.json").read_bytes())
    with played(anas_phone, [str(profile)]) as env:
        _, info = env.reset(options={"task": "G-SPT-03:common:explicit"})
        assert info["task"] == "G-SPT-03:common:explicit"
        assert env.unwrapped.task.user == "demo-ana"


def test_the_device_is_asked_what_it_holds_once_per_user(anas_phone):
    with played(anas_phone, ["demo-ana"]) as env:
        asked = anas_phone.device.history.count(STATE)
        for seed in range(3):
            env.reset(seed=seed)
    assert anas_phone.device.history.count(STATE) == asked + 1


def test_a_device_served_without_a_user_says_so(tmp_path):
    # It answers that it holds no user's content; that was read as a real phone's silence,
    # and runs on serve-adb without --user were scored on the built-in content without a
    # word (2 of 4 of demo-ana's G-SPT-02 tasks failed).
    with served_over_adb(SimPhone(), tmp_path) as nobodys:
        env = env_on(nobodys, ["demo-ana"])
        with pytest.warns(UserWarning, match=r"holds no user's content \(served without "
                          r"--user\): episodes run on what it shows.*serve-adb --user USER"):
            env.reset(options={"task": "G-SPT-03:common:explicit"})
        env.close()


def test_loading_a_state_into_an_adb_device_names_the_real_fix(anas_phone):
    device = AdbDevice(AdbConfig(anas_phone.serial, server_port=anas_phone.server_port))
    with pytest.raises(DeviceError) as caught:
        device.reset(load_user_content("demo-ana").state)
    assert "serve-adb --user USER" in str(caught.value)
    assert "--device-has-state" in str(caught.value)

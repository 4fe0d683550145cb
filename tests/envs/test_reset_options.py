"""Reset options of Act2Intent-Execute: empty, wrong-typed or unknown ones are named errors."""

import os
import subprocess
import sys

import gymnasium as gym
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.errors import InvalidOptionsError, InvalidProfileError, MobileIntentError
from mobileintent_gym.users import USER_SETS, UnknownProfileError

TASK = "G-SPT-01:common:explicit"


@pytest.fixture(scope="module")
def env():
    env = gym.make("Act2Intent-Execute-v0", observation=("instruction",))
    yield env
    env.close()


@pytest.mark.parametrize(("options", "named"), [
    ({"user": ""}, "reset option 'user' must be a non-empty name or path, got ''"),
    ({"user": "  "}, "reset option 'user' must be a non-empty name or path"),
    ({"task": ""}, "reset option 'task' must be a non-empty task id, got ''"),
    ({"task": 3}, "reset option 'task' must be a non-empty task id, got 3"),
    ({"user": 123}, "reset option 'user' must be a non-empty name or path, got 123"),
    (["user", "demo-ana"], "reset options must be a dict, got list"),
    ("user=demo-ana", "reset options must be a dict, got str"),
    ({1: "x", "user": "demo-ana"}, "unknown reset options ['1']"),
])
def test_bad_options_are_named_and_leave_the_episode_as_it_was(env, options, named):
    env.reset(seed=0, options={"user": "demo-ana", "task": TASK})
    before = env.unwrapped.task
    with pytest.raises(InvalidOptionsError) as err:  # unfixed: a random user, or a raw error
        env.reset(options=options)
    assert named in str(err.value)
    assert env.unwrapped.task is before


def test_none_values_draw_and_a_non_string_user_in_the_list_is_the_profile_error(env):
    _, info = env.reset(seed=0, options={"user": None, "task": TASK})
    assert info["task"] == TASK and info["user"] in USER_SETS["test"]  # the default users
    with pytest.raises(InvalidProfileError, match="a user must be a profile name or path"):
        gym.make("Act2Intent-Execute-v0", observation=("instruction",), users=[7])


def test_a_set_named_by_the_user_option_draws_one_of_its_users_by_seed(env):
    def user(seed):
        return env.reset(seed=seed, options={"user": "val", "task": TASK})[1]["user"]

    assert {user(seed) for seed in range(8)} == set(USER_SETS["val"])  # not the env's users
    assert [user(3) for _ in range(3)] == [user(3)] * 3
    with pytest.raises(UnknownProfileError, match=r"'vla'.*nor is it a user set: train"):
        env.reset(options={"user": "vla"})


@pytest.mark.parametrize("seed", [None, 5])
@pytest.mark.parametrize("options", [{"task": "G-ZZZ-01:common:explicit"},
                                     {"user": "nobody-here"}, {"turn": 2}])
def test_a_refused_reset_changes_no_later_episode(options, seed):
    # A refused reset that named a seed reseeded the env all the same: the episodes after
    # it were seed 5's.
    made = [gym.make("Act2Intent-Execute-v0", observation=("instruction",)) for _ in range(2)]
    for env in made:
        env.reset(seed=0)
    with pytest.raises((InvalidOptionsError, UnknownProfileError, MobileIntentError)):
        made[0].reset(seed=seed, options=options)
    assert made[0].unwrapped.np_random_seed == made[1].unwrapped.np_random_seed == 0
    drawn = [(info["user"], info["task"]) for env in made
             for info in (env.reset()[1] for _ in range(4))]
    assert drawn[:4] == drawn[4:]


def test_users_given_as_a_set_draw_alike_in_every_process():
    code = ("import gymnasium as gym, mobileintent_gym\n"
            "env = gym.make('Act2Intent-Execute-v0', observation=('instruction',), "
            "users={'demo-ana', 'demo-ben', 'demo-chen', 'demo-dara'})\n"
            "print([env.reset(seed=s)[1]['user'] for s in range(6)])")
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": str(seed)},
                           check=True).stdout for seed in (1, 2, 3)}
    assert len(runs) == 1

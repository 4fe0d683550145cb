"""What the intention envs make of odd answers, options and arguments: named, never half-done."""

import json

import gymnasium as gym
import numpy as np
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.envs import session as session_module
from mobileintent_gym.errors import InvalidArgumentError, InvalidOptionsError, MobileIntentError
from mobileintent_gym.intents.generator import GeneratorConfig
from mobileintent_gym.phone import SimPhone

USERS = ["demo-ana"]


@pytest.fixture(scope="module")
def understand():
    env = gym.make("Act2Intent-Understand-v0", users=USERS, days=2).unwrapped
    yield env
    env.close()


@pytest.fixture(scope="module")
def predict():
    env = gym.make("Act2Intent-Predict-v0", users=USERS, history_days=2, predict_days=1)
    yield env.unwrapped
    env.close()


ENV_IDS = [f"Act2Intent-{name}-v0"
           for name in ("Execute", "Understand", "Predict", "Session", "Proactive", "Assist")]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_env_takes_render_mode_none_and_names_a_bad_one(env_id):
    # Understand, Predict and Proactive took no render_mode at all (a TypeError from
    # gym.make), and Assist refused a bad one with an error that was no ValueError.
    env = gym.make(env_id, users=USERS, render_mode=None)
    assert env.unwrapped.render_mode is None
    # Understand's and Predict's render() was gym.Env's: NotImplementedError.
    assert env.unwrapped.render() is None
    env.close()
    with pytest.raises(InvalidOptionsError) as caught:  # Gymnasium warns, then makes it
        gym.make(env_id, users=USERS, render_mode="ansi")
    assert isinstance(caught.value, ValueError)
    assert str(caught.value).startswith("render_mode must be None")
    assert str(caught.value).endswith("got 'ansi'")
    with pytest.raises(InvalidOptionsError, match=r"got array\(\['rgb_array'"):
        type(env.unwrapped)(users=USERS, render_mode=np.array(["rgb_array", "x"]))


def test_session_refuses_a_bad_render_mode_before_opening_its_device(monkeypatch):
    # A spy in place of the device loader: a refusal after it would have connected to a
    # real phone (an adb device) first.
    opened = []
    monkeypatch.setattr(session_module, "load_device", opened.append)
    with pytest.raises(InvalidOptionsError, match="got 'ansi'"):
        session_module.SessionEnv("adb:emulator-5554", users=USERS, render_mode="ansi")
    assert opened == []


@pytest.mark.parametrize("env_id", ["Act2Intent-Understand-v0", "Act2Intent-Predict-v0"])
def test_the_envs_without_screens_say_they_render_nothing(env_id):
    with pytest.raises(InvalidOptionsError, match="this env renders nothing"):
        gym.make(env_id, users=USERS, render_mode="rgb_array")


def test_answers_holding_a_lone_surrogate_are_scored_not_raised(understand, predict):
    # The tokenizer refused them: a TypeError out of step(), and Understand's episode was
    # over without a result.
    understand.reset(seed=0)
    *_, terminated, _, info = understand.step('{"\\ud800 open the chat": [1]}')
    assert terminated and info["malformed"] is None and 0 <= info["acc_s"] < 1
    predict.reset(seed=0)
    reward, *_ = predict.step('{"Event": "Chatting", "Behaviour": "\\udfff reply", '
                              '"Confidence": 0.9}')[1:]
    assert 0 <= reward <= 1


def test_an_error_while_scoring_leaves_the_understand_episode_to_step_again(understand,
                                                                            monkeypatch):
    understand.reset(seed=0)
    answer = json.dumps({f"a new intention {i}": indices
                         for i, (_, indices) in enumerate(understand.truth)})
    monkeypatch.setattr(understand.encoder, "encode", lambda texts: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        understand.step(answer)
    monkeypatch.undo()
    assert understand.step(answer)[2]  # scored now


@pytest.mark.parametrize(("options", "named"), [
    ({"day": 1.0}, "reset option day must be an integer, got 1.0"),
    ({"day": True}, "reset option day must be an integer, got True"),
    ({"start": True}, "reset option start must be an integer, got True"),
    ("x", "reset options must be a dict, got str"),
    ([("user", "demo-ana")], "reset options must be a dict, got list"),
    # It named the constructor's argument: "users must be a set name ...; got int 5".
    ({"user": 5}, "reset option 'user' must be a profile or set name, or a profile's path; "
                  "got int 5"),
    ({"user": ["demo-ana"]}, "reset option 'user' must be .* got list"),
])
def test_odd_understand_options_are_named(understand, options, named):
    # {"day": 1.0} was a TypeError deep inside, True was day 1, a list of pairs was taken.
    understand.reset(seed=3)
    truth = understand.truth
    with pytest.raises(InvalidOptionsError, match=named):
        understand.reset(options=options)
    assert understand.truth == truth


@pytest.mark.parametrize("day", [-1, 99])
def test_a_day_out_of_range_is_refused_before_the_users_days_are_made(understand, predict,
                                                                      monkeypatch, day):
    # It was named once the user's content was built and the days generated (a minute for
    # a user not built before): "must be one of [...]".
    from mobileintent_gym.envs import days
    from mobileintent_gym.envs import understand as understand_module

    for module in (days, understand_module):
        monkeypatch.setattr(module, "cached_sessions", lambda *a: pytest.fail("days made"))
    for env, count in ((understand, understand.unwrapped.days),
                       (predict, predict.unwrapped.predict_days)):
        with pytest.raises(InvalidOptionsError, match=f"reset option day must be in "
                                                      f"0..{count - 1}, got {day}"):
            env.reset(options={"user": "demo-ana", "day": day})


def test_numpy_option_values_come_back_as_python_ints(understand):
    _, info = understand.reset(options={"day": np.int64(0), "start": np.int64(0)})
    assert (type(info["day"]), type(info["start"])) == (int, int)


@pytest.mark.parametrize("options", ["x", [("day", 0)], ""])
def test_options_that_are_no_dict_are_named_by_the_drawn_day_envs(predict, options):
    with pytest.raises(InvalidOptionsError, match="reset options must be a dict, got"):
        predict.reset(options=options)


@pytest.mark.parametrize(("size", "named"), [
    ((0, 480), r"screenshot_size\[0\]=0: must be integers >= 1"),
    ((216.5, 480), r"screenshot_size\[0\]=216.5"),
    ("ab", "screenshot_size must be \\(width, height\\), got 'ab'"),
    (None, "screenshot_size must be \\(width, height\\), got None"),
    ((10**6, 10**6), "screenshot_size must be at most 3840 pixels a side"),  # drawn until
])                                                                          # memory ran out
def test_a_bad_screenshot_size_is_named_when_the_env_is_made(size, named):
    # Each failed at the first reset, deep inside Pillow or NumPy, and left the env half-reset.
    with pytest.raises(MobileIntentError, match=named):
        gym.make("Act2Intent-Understand-v0", users=USERS, days=2, screenshots=True,
                 screenshot_size=size)


INTENTION_ENVS = ("Understand", "Predict", "Session", "Proactive", "Assist")


@pytest.mark.parametrize("env_id", INTENTION_ENVS)
@pytest.mark.parametrize(("kwargs", "named"), [
    ({"config": 5}, "config must be a GeneratorConfig or None, got int 5"),
    ({"encoder": 5}, "encoder must be an Encoder"),
])
def test_an_argument_of_the_wrong_kind_is_named_when_the_env_is_made(env_id, kwargs, named):
    # Each raised an AttributeError from deep inside ('int' object has no attribute
    # 'profiles_dir'), or at the first reset.
    with pytest.raises(InvalidArgumentError, match=named):
        gym.make(f"Act2Intent-{env_id}-v0", users=USERS, **kwargs)


def test_a_count_out_of_range_is_the_envs_own_line_without_the_phones_password():
    # Raised as a TypeError, which gym.make re-raises with every keyword argument of the
    # env in its message: the Appium URL's password too.
    with pytest.raises(MobileIntentError) as err:
        gym.make("Act2Intent-Session-v0", users=USERS, history_days=0,
                 device="appium:http://bob:secretkey@127.0.0.1:9/wd/hub")
    assert str(err.value) == "history_days=0: must be integers >= 1"


@pytest.mark.parametrize(("env_id", "days"), [
    ("Understand", {"days": 10**6}), ("Predict", {"history_days": 3000, "predict_days": 661}),
    ("Session", {"history_days": 1, "play_days": 10**6}),
    ("Proactive", {"history_days": 10**6}), ("Assist", {"history_days": 1, "play_days": 3660})])
def test_days_past_ten_years_are_named_when_the_env_is_made(env_id, days):
    # Taken, and the first reset generated every day: 10**6 days, a day and more of work.
    with pytest.raises(MobileIntentError, match=r"days=\d+(?: \+ \w+=\d+ = \d+ days)?: "
                       r"at most 3660 \(ten years\) in all"):
        gym.make(f"Act2Intent-{env_id}-v0", users=USERS, **days)


@pytest.mark.parametrize("env_id", INTENTION_ENVS)
@pytest.mark.parametrize("seed", ["x", -1, 1.5, True])
def test_a_bad_data_seed_is_named_when_the_env_is_made(env_id, seed):
    # Taken, then refused at the first reset (the day's generator checked it).
    with pytest.raises(InvalidArgumentError, match=f"seed must be an integer of at least 0, "
                                                   f"got {seed!r}"):
        gym.make(f"Act2Intent-{env_id}-v0", users=USERS, seed=seed)


@pytest.mark.parametrize(("env_id", "flag"), [
    ("Execute", "load_state"), ("Execute", "carries_state"), ("Understand", "screenshots"),
    ("Session", "guidance"), ("Proactive", "hierarchy"), ("Proactive", "candidates"),
    ("Assist", "hierarchy")])
def test_a_flag_given_as_text_is_named_not_read_as_true(env_id, flag):
    # load_state="no" loaded the user's content: any non-empty text read as True.
    with pytest.raises(InvalidArgumentError, match=f"{flag}='no': must be True or False"):
        gym.make(f"Act2Intent-{env_id}-v0", users=USERS, **{flag: "no"})
    env = gym.make(f"Act2Intent-{env_id}-v0", users=USERS, **{flag: np.bool_(False)})
    env.close()


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"pair": 5}, "pair must be a PairConfig or None, got int 5"),
    ({"device": None}, "device must be a Device or a config text such as 'sim', got NoneType"),
    ({"device": 1}, "device must be a Device or a config text"),
    ({"require_encoder": ""}, "require_encoder must be a model's name or None, got ''"),
])
def test_an_execute_argument_of_the_wrong_kind_is_named_when_the_env_is_made(kwargs, named):
    with pytest.raises(InvalidArgumentError, match=named):
        gym.make("Act2Intent-Execute-v0", users=USERS, **kwargs)


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"observation": 5}, r"observation fields must be .* got \(5,\)"),
    ({"observation": b"screenshot"}, r"got \(b'screenshot',\)"),
    ({"tasks": b"G-SPT-02:common:explicit"}, r"got b'G-SPT-02:common:explicit'"),
])
def test_observations_and_tasks_given_as_bytes_or_numbers_are_named(kwargs, named):
    # A TypeError ('int' object is not iterable), or the bytes read as numbers ("got 71").
    with pytest.raises((ValueError, MobileIntentError), match=named):
        gym.make("Act2Intent-Execute-v0", users=USERS, **kwargs)


def test_a_failed_understand_reset_changes_nothing(monkeypatch):
    env = gym.make("Act2Intent-Understand-v0", users=USERS, days=2, screenshots=True,
                   screenshot_size=(54, 120)).unwrapped
    env.reset(seed=0)
    env.step("{}")
    monkeypatch.setattr(env, "_frames", lambda *args: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        env.reset(seed=1)
    with pytest.raises(MobileIntentError, match="call reset"):
        env.step("{}")  # still over: the failed reset began no episode


@pytest.fixture
def opened(monkeypatch):
    """The phones the Session env's device loader opens (540x1200 simulated ones)."""
    phones = []
    monkeypatch.setattr(session_module, "load_device",
                        lambda spec: phones.append(SimPhone(540, 1200)) or phones[-1])
    return phones


def test_a_session_env_names_an_unknown_user_before_opening_a_device(opened):
    with pytest.raises(MobileIntentError, match="nobody-at-all"):
        gym.make("Act2Intent-Session-v0", device="sim:540x1200", users=["nobody-at-all"])
    assert opened == []


def test_a_session_env_names_a_bad_observation_before_opening_a_device(opened):
    # It was named by the Execute env inside, once the device (an adb phone) was open.
    with pytest.raises(ValueError, match="observation fields"):
        gym.make("Act2Intent-Session-v0", device="sim:540x1200", users=USERS,
                 observation=("bogus",))
    assert opened == []


def test_a_session_env_refused_for_its_screen_size_closes_the_device_it_opened(opened):
    with pytest.raises(MobileIntentError, match="1080"):
        gym.make("Act2Intent-Session-v0", device="sim:540x1200", users=USERS,
                 config=GeneratorConfig(1080, 2400))
    (phone,) = opened
    with pytest.raises(MobileIntentError, match="closed"):
        phone.route()

"""Act2Intent-Understand: windows of a generated session, scored answers, baselines."""

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents.understand import (
    AppSwitchSegmenter,
    OracleSegmenter,
    RandomSegmenter,
    answer,
)
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.metrics.text import bleu4
from tests.helpers import frame_bounds_bytes

USERS = ["demo-ana"]


@pytest.fixture(scope="module")
def env():
    env = gym.make("Act2Intent-Understand-v0", users=USERS, days=7)
    yield env
    env.close()


def test_the_env_passes_the_gymnasium_checker(env):
    check_env(env.unwrapped, skip_render_check=True)
    assert env.spec.max_episode_steps is None  # one step, then terminated


def test_the_env_with_screenshots_passes_the_gymnasium_checker_too():
    # Reset and step returned the same (read-only) frames, which the checker forbids.
    env = gym.make("Act2Intent-Understand-v0", users=USERS, days=2, screenshots=True,
                   screenshot_size=(108, 240))
    check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("kwargs", [{"window": 0}, {"window": -1}, {"days": 0}])
def test_counts_below_one_are_refused(kwargs):
    # window=0 gave an empty "steps" text, outside the observation space.
    with pytest.raises(MobileIntentError, match="must be integers >= 1"):
        gym.make("Act2Intent-Understand-v0", users=USERS, **kwargs)


def test_a_refused_reset_changes_no_later_episode():
    a, b = (gym.make("Act2Intent-Understand-v0", users="demo", days=2).unwrapped
            for _ in range(2))
    a.reset(seed=0)
    b.reset(seed=0)
    with pytest.raises(MobileIntentError):
        a.reset(options={"start": 10**6})
    with pytest.raises(MobileIntentError):
        a.reset(seed=7, options={"start": 10**6})  # reseeded the env all the same
    assert a.reset()[1] == b.reset()[1]


def test_the_observation_numbers_the_window_steps_and_the_truth_indexes_them(env):
    obs, info = env.reset(seed=4)
    lines = obs["steps"].splitlines()
    truth = env.unwrapped.truth
    assert info["segments"] == len(truth) == 5
    indices = [i for _, group in truth for i in group]
    assert indices == list(range(1, len(lines) + 1))
    assert all(line.startswith(f"{i}. ") for i, line in enumerate(lines, 1))
    first = env.unwrapped.segments[0]
    assert truth[0][0] == first.intention
    assert lines[0] == f"1. {first.steps[0].description}"


def test_the_truth_scores_one_and_a_shifted_answer_less(env):
    _obs, info = env.reset(seed=4)
    _, reward, terminated, truncated, info = env.step(OracleSegmenter(env).act(_obs, info))
    assert terminated and not truncated and info["malformed"] is None
    assert info["acc_g"] == 1.0 and info["bleu4"] == 1.0
    assert reward == pytest.approx(1.0, abs=1e-6)
    env.reset(seed=4)
    texts, groups = zip(*env.unwrapped.truth, strict=True)
    shifted = [groups[0] + groups[1][:1], groups[1][1:] or [99], *groups[2:]]
    _, reward, _, _, info = env.step(answer(zip(texts, shifted, strict=True)))
    assert info["acc_g"] == 0.6 and reward < 1.0


@pytest.mark.parametrize("wrap", [
    lambda text, _: text, lambda text, _: f"```json\n{text}\n```",
    lambda text, _: f"Here is the segmentation: {text} Hope it helps.",
    lambda text, _: text[:-1] + ",}",
    lambda _, truth: "{" + "".join(f"{text!r}: {steps!r}, " for text, steps in truth) + "}",
])
def test_the_truth_is_read_as_model_output_is_written(env, wrap):
    # The Predict/Proactive/Assist envs read answers so; this env read strict JSON only.
    obs, info = env.reset(seed=4)
    written = wrap(OracleSegmenter(env).act(obs, info), env.unwrapped.truth)
    _, reward, _, _, info = env.step(written)
    assert info["malformed"] is None and reward == pytest.approx(1.0, abs=1e-6)


def test_indices_written_as_numeric_strings_are_read_as_numbers(env):
    env.reset(seed=4)
    texts, groups = zip(*env.unwrapped.truth, strict=True)
    written = [[str(i) for i in group] for group in groups]
    _, reward, _, _, info = env.step(answer(zip(texts, written, strict=True)))
    assert info["malformed"] is None and reward == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize(("answer", "why"), [
    ("not json", "no JSON object in the answer: "), ("[1, 2]", "no JSON object in the answer"),
    ("{}", "first JSON object is empty"), ('{} {"a": [1]}', "first JSON object is empty"),
    ('{"a": 3}', "needs a list"), ('{"a": [0, 1]}', "indices >= 1"),
    ('{"a": ["x"]}', "indices >= 1"), (None, "must be text"), ("", "no JSON object"),
    ('{"a": ' + "[" * 990 + "]" * 990 + "}",  # a RecursionError: one is there, unreadable
     "no JSON object in the answer can be read (malformed, or nested too deeply)"),
    ('{"a": [1, ' + "7" * 4400 + "]}", "needs step indices >= 1, got [1, inf]"),
])
def test_malformed_answers_are_scored_zero_and_named(env, answer, why):
    env.reset(seed=1)
    _, reward, terminated, _, info = env.step(answer)
    assert terminated and reward == 0.0 and why in info["malformed"]
    assert (info["acc_g"], info["acc_s"], info["bleu4"]) == (0.0, 0.0, 0.0)


def test_repeated_intentions_are_told_apart_in_answers_too(env):
    env.reset(seed=1)
    truth = env.unwrapped.truth
    text = answer(("same", indices) for _, indices in truth)
    _, _, _, _, info = env.step(text)
    assert info["acc_g"] == 1.0 and info["malformed"] is None  # five spans, one text


def test_a_text_that_comes_twice_is_scored_as_itself_both_times(env):
    # Scores compare the i-th predicted text with the i-th true one, as they are.
    seed = next(s for s in range(60) if _repeats(env, s))
    obs, info = env.reset(seed=seed)
    texts, groups = zip(*env.unwrapped.truth, strict=True)
    assert len(set(texts)) < len(texts) and info["segments"] == len(texts)
    _, reward, _, _, info = env.step(OracleSegmenter(env).act(obs, info))
    assert info["bleu4"] == 1.0 and reward == pytest.approx(1.0, abs=1e-6)
    assert [text for text, _ in info["truth"]] == list(texts)
    first = texts.index(next(t for t in texts if texts.count(t) > 1))
    worded = [*texts[:first], texts[first] + " now", *texts[first + 1:]]
    env.reset(seed=seed)
    _, _, _, _, info = env.step(answer(zip(worded, groups, strict=True)))
    expected = (bleu4(texts[first] + " now", texts[first]) + len(texts) - 1) / len(texts)
    assert info["bleu4"] == pytest.approx(expected)


def _repeats(env, seed):
    env.reset(seed=seed)
    texts = [text for text, _ in env.unwrapped.truth]
    return len(set(texts)) < len(texts)


def test_step_without_reset_and_bad_options_raise(env):
    env.reset(seed=0)
    env.step("{}")
    with pytest.raises(MobileIntentError, match="reset"):
        env.step("{}")
    with pytest.raises(MobileIntentError, match="unknown reset options"):
        env.reset(options={"window": 3})
    with pytest.raises(MobileIntentError, match="start must be in"):
        env.reset(options={"user": USERS[0], "day": 0, "start": 999})


def test_cutting_at_app_switches_beats_random_cuts_and_the_oracle_is_perfect(env):
    scores = {}
    for name, make in (("random", RandomSegmenter), ("switches", AppSwitchSegmenter),
                       ("oracle", OracleSegmenter)):
        rewards = []
        for seed in range(6):
            obs, info = env.reset(seed=seed)
            _, reward, *_, info = env.step(make(env, seed).act(obs, info))
            # The reward is the mean of the three scores (an imperfect answer tells).
            assert reward == pytest.approx((info["acc_g"] + info["acc_s"] + info["bleu4"]) / 3)
            rewards.append(reward)
        scores[name] = np.mean(rewards)
    assert scores["random"] < scores["switches"] < scores["oracle"]
    assert scores["oracle"] == pytest.approx(1.0, abs=1e-6)


def test_screenshots_show_the_screen_of_each_step():
    env = gym.make("Act2Intent-Understand-v0", users=USERS, days=7, screenshots=True,
                   screenshot_size=(108, 240))
    obs, _ = env.reset(seed=2)
    frames = obs["screenshots"]
    assert len(frames) == len(obs["steps"].splitlines())
    assert all(f.shape == (240, 108, 3) and f.dtype == np.uint8 for f in frames)
    assert env.observation_space.contains(obs)
    assert frame_bounds_bytes(env.observation_space["screenshots"].feature_space) == 4 * 108 * 3
    assert not all(np.array_equal(frames[0], f) for f in frames[1:])
    again, _ = env.reset(seed=2)
    assert all(np.array_equal(a, b) for a, b in zip(frames, again["screenshots"], strict=True))


def test_an_app_opened_from_the_home_screen_continues_the_intention_it_began():
    steps = ['On the home screen, tap "Pay", to open Pay',
             'In Pay, tap "Messages", to open Messages',
             'In Pay, tap "Send", to reply',
             'On the home screen, tap "Meeting", to open Meeting',
             'In Meeting, tap "11:00", to open the scheduled meeting',
             'In Chat, tap "Li Wei", to open the chat']  # another app without the home screen
    observation = {"steps": "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))}
    answer = json.loads(AppSwitchSegmenter().act(observation, {}))
    assert list(answer.values()) == [[1, 2, 3], [4, 5], [6]]
    assert list(answer) == ["In Pay, reply.", "In Meeting, open the scheduled meeting.",
                            "In Chat, open the chat."]


def test_backing_out_to_the_home_screen_then_opening_another_app_cuts_there():
    steps = ['In Pay, tap "Bills", to open Bills',
             'In Pay, press Back, to go back',
             'On the home screen, swipe up, to see more apps',  # still Pay's intention
             'In Chat, tap "Li Wei", to open the chat']
    observation = {"steps": "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))}
    answer = json.loads(AppSwitchSegmenter().act(observation, {}))
    assert list(answer.values()) == [[1, 2, 3], [4]]


def test_a_drawn_user_without_a_whole_window_is_passed_over_not_refused():
    # The user was drawn first and refused after: with days=1, seeds 0, 2, 3 and 7 failed
    # (demo-dara's one day holds fewer than 5 intentions) while others of the set fit.
    env = gym.make("Act2Intent-Understand-v0", users="demo", days=1).unwrapped
    short = [u for u in env.users if not env._days(u)[1]]  # no whole window
    assert short and len(short) < len(env.users)  # the case this test is about
    drawn = [env.reset(seed=seed)[1]["user"] for seed in range(8)]
    assert not set(drawn) & set(short) and len(set(drawn)) > 1
    assert [env.reset(seed=seed)[1]["user"] for seed in range(8)] == drawn  # reproducible
    with pytest.raises(MobileIntentError, match=f"no day of '{short[0]}' has 5 intentions"):
        env.reset(options={"user": short[0]})  # named: refused as before
    assert env.reset(seed=0, options={"user": "demo"})[1]["user"] not in short  # a set
    too_long = gym.make("Act2Intent-Understand-v0", users="demo", days=1, window=40)
    with pytest.raises(MobileIntentError, match=r"no user to draw from .*has 40 intentions"
                                                r" \(and 3 more users alike\)"):
        too_long.reset(seed=0)


def test_an_intention_is_named_by_the_purpose_after_its_last_steps_last_to():
    steps = ['In Chat, tap "Li Wei", to open the chat',
             'In Chat, type "Off, to the park", to reply']  # typed text holds ", to "
    observation = {"steps": "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))}
    answer = json.loads(AppSwitchSegmenter().act(observation, {}))
    assert answer == {"In Chat, reply.": [1, 2]}


def test_indices_written_as_whole_floats_or_numeric_strings_are_read_as_integers(env):
    # 2.0 (JSON that a model wrote with a point) was malformed, losing the whole window.
    env.reset(seed=4)
    texts, groups = zip(*env.unwrapped.truth, strict=True)
    written = [[float(i) if n % 2 else str(i) for n, i in enumerate(group)] for group in groups]
    assert any(isinstance(i, float) for group in written for i in group)
    _, reward, _, _, info = env.step(answer(zip(texts, written, strict=True)))
    assert info["malformed"] is None and info["acc_g"] == 1.0 and reward == pytest.approx(1.0)


@pytest.mark.parametrize("bad", [[], [0], [2.5]])
def test_one_segment_without_valid_indices_makes_the_whole_answer_malformed(env, bad):
    # As documented: the other segments, written exactly as the truth, are not scored apart.
    env.reset(seed=4)
    texts, groups = zip(*env.unwrapped.truth, strict=True)
    written = [*groups[:-1], bad]
    _, reward, _, _, info = env.step(answer(zip(texts, written, strict=True)))
    assert reward == 0.0 and f"segment {texts[-1]!r} needs step indices >= 1" in info["malformed"]

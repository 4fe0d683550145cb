"""Act2Intent-Predict: history and persona in, the next intention out, with the fallback."""

import json

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents.predict import (
    LastIntentionPredictor,
    MostFrequentPredictor,
    OraclePredictor,
    RandomPredictor,
    history_entries,
    near_hour,
)
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.metrics.act2intent import parse_prediction
from tests.helpers import history

USERS = ["demo-ana"]


@pytest.fixture(scope="module")
def env():
    env = gym.make("Act2Intent-Predict-v0", users=USERS, history_days=5, predict_days=2)
    yield env
    env.close()


def _episode(env, make, seed):
    obs, info = env.reset(seed=seed)
    agent, done = make(env, seed), False
    while not done:
        obs, _, done, truncated, info = env.step(agent.act(obs, info))
        assert not truncated
    return info["day_scores"]


def test_the_env_passes_the_gymnasium_checker(env):
    check_env(env.unwrapped, skip_render_check=True)


def test_the_observation_shows_the_last_n_intentions_persona_and_time():
    env = gym.make("Act2Intent-Predict-v0", users=USERS, history_days=5, predict_days=2,
                   history=30)
    obs, info = env.reset(seed=0, options={"user": USERS[0], "day": 0})
    lines = obs["history"].splitlines()
    past = env.unwrapped.past
    assert len(past) > 30 and len(lines) == 30
    assert lines[-1] == (f"{past[-1].time:%Y-%m-%d %H:%M} | {past[-1].app} | "
                         f"{past[-1].intention} | {past[-1].event}")
    assert obs["persona"].startswith("Over 5 days the user had")
    first = env.unwrapped.targets[0]
    assert obs["time"].startswith(f"{first.time:%Y-%m-%d %H:%M %A}")
    assert info["intentions"] == len(env.unwrapped.targets)


def test_the_truth_is_revealed_and_joins_the_history(env):
    obs, _ = env.reset(seed=0)
    truth = env.unwrapped.truth()
    obs, reward, _, _, info = env.step(json.dumps({"Event": "Take notes", "Behaviour": "x"}))
    assert reward == 0.0 and info["acc_c"] == 0.0
    assert info["truth"] == {"Event": truth.event, "Behaviour": truth.behaviour}
    assert obs["history"].splitlines()[-1].endswith(f"| {truth.behaviour} | {truth.event}")


def test_the_oracle_scores_one_and_the_fallback_reports_push_rates(env):
    episode = _episode(env, OraclePredictor, 0)
    scores = episode["all"]
    assert scores == pytest.approx({"push_rate": 1, "acc_c": 1, "acc_s": 1, "bleu4": 1,
                                    "pushed": scores["pushed"], "unreadable": 0})
    assert scores["pushed"] > 0
    assert episode["0.80"]["push_rate"] == 1.0
    env.reset(seed=0)
    done = False
    while not done:  # right class, pushed only at 0.60
        truth = env.unwrapped.truth()
        answer = {"Event": truth.event, "Behaviour": truth.behaviour, "Confidence": 0.7}
        _, reward, done, _, info = env.step(json.dumps(answer))
        assert reward == 1.0
    assert info["day_scores"]["0.60"]["push_rate"] == 1.0
    assert info["day_scores"]["0.80"] == {"push_rate": 0.0, "pushed": 0, "unreadable": 0,
                                       "acc_c": None, "acc_s": None, "bleu4": None}


@pytest.mark.parametrize(("answer", "why"), [
    ("nope", "no JSON object"), ('{"Event": "Take photo"}', "no Behaviour"),
    ('{"Event": "Take photo", "Behaviour": "x", "Confidence": 2}', "[0, 1]"),
    ('{"Event": "Take photo", "Behaviour": "x", "Confidence": true}', "[0, 1]"),
    # Said "no JSON object in the answer" of a dict the agent gave in place of its text.
    (7, "the answer must be text, got int: 7"),
    ({"Event": "Take photo", "Behaviour": "x"}, "the answer must be text, got dict: {'Event'"),
    ("nope", "no JSON object in the answer: 'nope'"), ("{'Event': }", "can be read (malformed"),
    ('{"Event": ' + "[" * 990 + "]" * 990 + "}",  # was a RecursionError
     "no JSON object in the answer can be read (malformed, or nested too deeply)"),
    ('{"Event": ' + "9" * 5000 + "}", "Event is inf, not text"),  # 4,300+ digits: no int()
])
def test_malformed_answers_are_wrong_and_named(env, answer, why):
    env.reset(seed=1)
    _, reward, _, _, info = env.step(answer)
    assert reward == 0.0 and why in info["malformed"] and info["acc_c"] == 0.0


def test_a_number_past_ints_digit_limit_loses_only_its_own_part(env):
    # It made the whole answer unreadable ("no JSON object in the answer"), its right
    # event and behaviour scored as wrong.
    env.reset(seed=1)
    truth = env.unwrapped.truth()
    _, reward, _, _, info = env.step(json.dumps({"Event": truth.event, "Behaviour":
                                                 truth.behaviour})[:-1] + ', "Confidence": '
                                     + "1" * 4400 + "}")
    assert reward == 1.0 and info["acc_s"] == pytest.approx(1.0)
    assert info["malformed"] == '"Confidence" must be a number in [0, 1], got inf'


@pytest.mark.parametrize(("answer", "confidence"), [
    ("nope", 0.0),  # unreadable: pushed only when every prediction is
    ('{"Event": "Take photo", "Behaviour": "x", "Confidence": 2}', 0.0),
    ('{"Event": "Take photo", "Behaviour": "x"}', 1.0),
    ('{"event": "Take photo", "behaviour": "x", "confidence": 0.3}', 0.3),  # keys in any case
    ('{"Event": "Take photo", "CONFIDENCE": 0.7}', 0.7),  # a missing part keeps it
])
def test_an_answers_confidence_decides_where_it_is_pushed(answer, confidence):
    assert parse_prediction(answer).confidence == confidence


def test_the_habitual_predictor_beats_random_and_last_on_acc_c(env):
    acc = {name: np.mean([_episode(env, make, seed)["all"]["acc_c"] for seed in range(4)])
           for name, make in (("random", RandomPredictor), ("last", LastIntentionPredictor),
                              ("frequent", MostFrequentPredictor))}
    assert acc["random"] < acc["last"] < acc["frequent"]
    assert acc["frequent"] >= 0.25 and acc["random"] < 0.15, acc


def test_reset_options_and_stepping_past_the_end(env):
    with pytest.raises(MobileIntentError, match="unknown reset options"):
        env.reset(options={"days": 2})
    with pytest.raises(MobileIntentError, match=r"reset option day must be in 0\.\."):
        env.reset(options={"user": USERS[0], "day": 5})
    _episode(env, LastIntentionPredictor, 0)
    # "call reset() before step()" alone, to one who had.
    with pytest.raises(MobileIntentError, match=r"the day's last intention was predicted "
                       r"\(the episode has ended\): call reset\(\) before step\(\)"):
        env.step("{}")


def test_the_predicted_days_before_the_one_played_join_the_history(env):
    from mobileintent_gym.intents.generator import GeneratorConfig, cached_sessions

    # The history runs up to the predicted day: day 1's history ends with day 0's last
    # intention, and its persona counts six days.
    obs, _ = env.reset(seed=0, options={"user": USERS[0], "day": 1})
    sessions = cached_sessions(USERS[0], 7, 0, GeneratorConfig())
    last = sessions[5].done()[-1]
    assert obs["history"].splitlines()[-1] == (f"{last.time:%Y-%m-%d %H:%M} | {last.app} | "
                                               f"{last.intention} | {last.event}")
    assert obs["persona"].startswith("Over 6 days the user had")
    assert env.unwrapped.targets == sessions[6].done()


def test_an_interrupted_intention_is_asked_for_once_where_it_was_finished():
    # Its first part was a target of its own: the next target repeated the intention just
    # revealed, and answering that again scored Acc-C 1 for free.
    from mobileintent_gym.intents.generator import GeneratorConfig, cached_sessions

    config = GeneratorConfig(interleave=0.5)
    env = gym.make("Act2Intent-Predict-v0", users=USERS, history_days=2, predict_days=1,
                   config=config)
    env.reset(seed=0)
    sessions = cached_sessions(USERS[0], 3, 0, config)
    assert any(s.part == 1 for day in sessions for s in day.segments)
    assert env.unwrapped.targets == sessions[2].done()
    assert env.unwrapped.past == [s for day in sessions[:2] for s in day.done()]
    env.close()


@pytest.mark.parametrize("day", [1.0, True, "1"])
def test_a_day_option_that_is_no_integer_is_named(env, day):
    with pytest.raises(MobileIntentError, match=f"day must be an integer, got {day!r}"):
        env.reset(options={"user": USERS[0], "day": day})


def test_a_refused_reset_draws_nothing():
    made = [gym.make("Act2Intent-Predict-v0", users="test", history_days=2, predict_days=1)
            for _ in range(2)]
    for env in made:
        env.reset(seed=0)
    with pytest.raises(MobileIntentError, match=r"reset option day must be in 0\.\."):
        made[0].reset(options={"day": 7})
    with pytest.raises(MobileIntentError, match=r"reset option day must be in 0\.\."):
        made[0].reset(seed=5, options={"day": 7})  # reseeded the env all the same
    drawn = [env.reset()[1]["user"] for env in made for _ in range(3)]
    assert drawn[:3] == drawn[3:]


@pytest.mark.parametrize(("kwargs", "named"), [
    ({"history_days": 2.5}, "history_days=2.5"), ({"predict_days": 0}, "predict_days=0"),
    ({"history": 1.5}, "history=1.5"),
])
def test_bad_counts_are_named(kwargs, named):
    with pytest.raises(MobileIntentError, match=named):
        gym.make("Act2Intent-Predict-v0", users=USERS, **kwargs)


def test_the_truth_outside_a_day_is_named():
    # It raised a bare IndexError before reset() and after the day's last prediction.
    env = gym.make("Act2Intent-Predict-v0", users=USERS, history_days=1, predict_days=1)
    with pytest.raises(MobileIntentError, match="call reset"):
        env.unwrapped.truth()
    env.reset(seed=0)
    done = False
    while not done:
        truth = env.unwrapped.truth()
        done = env.step(json.dumps({"Event": truth.event, "Behaviour": truth.behaviour}))[2]
    with pytest.raises(MobileIntentError, match="no intention is under way"):
        env.unwrapped.truth()
    env.close()


def test_the_habitual_predictor_answers_the_leading_class_and_its_own_intention():
    past = history(("2024-05-01 07:10", "music", "Play jazz", "Listen music"),
                   ("2024-05-01 08:00", "pay", "Pay the bill", "Listen music"),
                   ("2024-05-01 08:30", "pay", "Pay the bill", "Listen music"),
                   ("2024-05-01 08:40", "maps", "Find a cafe", "Listen music"),
                   ("2024-05-01 09:00", "chat", "Reply to Li", "Chatting"),
                   ("2024-05-01 09:05", "chat", "Reply to Li", "Chatting"),
                   ("2024-05-01 09:06", "chat", "Reply to Li", "Chatting"),
                   ("2024-05-01 20:00", "video", "Watch a film", "Watch news"))
    said = json.loads(MostFrequentPredictor().act(
        {"history": past, "time": "2024-05-02 08:50"}, {}))
    # Near 08:50 (two hours either side): four of one class, three of another. Its
    # intention is the most frequent of that class, not of all ("Reply to Li"); the
    # confidence is the class's share of the seven entries near the hour, not of all eight.
    assert said == {"Event": "Listen music", "Behaviour": "Pay the bill",
                    "Confidence": round(4 / 7, 4)}


def test_the_hours_around_wrap_over_midnight():
    entries = history_entries({"history": history(
        ("2024-05-01 23:30", "music", "Sleep sounds", "Listen music"),
        ("2024-05-01 12:00", "chat", "Lunch", "Chatting"))})
    assert [h.hour for h in entries] == [23, 12]
    assert [h.intention for h in near_hour(entries, 1)] == ["Sleep sounds"]


def test_the_last_intention_predictor_repeats_the_newest_entry():
    past = history(("2024-05-01 08:10", "music", "Play jazz", "Listen music"),
                   ("2024-05-01 09:00", "chat", "Reply to Li", "Chatting"))
    said = json.loads(LastIntentionPredictor().act({"history": past}, {}))
    assert said == {"Event": "Chatting", "Behaviour": "Reply to Li", "Confidence": 0.5}

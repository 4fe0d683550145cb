"""The day-long envs' end-of-day scores beside Gymnasium's and SB3's episode statistics.

Both wrappers write ``info["episode"]``: the scores had that key, so Gymnasium's
``RecordEpisodeStatistics`` failed at the end of every day and SB3's ``Monitor`` replaced
the scores with its own without a word.
"""

import gymnasium as gym
import pytest

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.intents.generator import GeneratorConfig

SMALL = GeneratorConfig(width=540, height=1200, noise=0.8)
DAY_ENVS = {"Act2Intent-Predict-v0": {"history_days": 5, "predict_days": 2},
            "Act2Intent-Proactive-v0": {}, "Act2Intent-Assist-v0": {"config": SMALL}}
SCORE = {"Act2Intent-Predict-v0": "all", "Act2Intent-Proactive-v0": "s_final",
         "Act2Intent-Assist-v0": "false_alarm_rate"}


def play_day(env):
    env.reset(seed=0)
    steps, done = 0, False
    while not done:
        *_, terminated, truncated, info = env.step("no action")
        steps, done = steps + 1, terminated or truncated
    return info, steps


@pytest.mark.parametrize("env_id", sorted(DAY_ENVS))
def test_day_scores_and_episode_statistics_are_both_reported(env_id):
    env = gym.wrappers.RecordEpisodeStatistics(
        gym.make(env_id, users=["demo-ana"], **DAY_ENVS[env_id]))
    info, steps = play_day(env)
    assert info["episode"]["l"] == steps and info["episode"]["r"] == 0.0
    assert SCORE[env_id] in info["day_scores"]
    env.close()


def test_sb3_monitor_keeps_the_day_scores():
    monitor = pytest.importorskip("stable_baselines3.common.monitor",
                                  reason="stable-baselines3 is a test extra")
    env = monitor.Monitor(gym.make("Act2Intent-Predict-v0", users=["demo-ana"],
                                   **DAY_ENVS["Act2Intent-Predict-v0"]))
    info, steps = play_day(env)
    assert info["episode"]["l"] == steps
    assert set(info["day_scores"]) == {"all", "0.60", "0.80"}
    env.close()

"""Observation spaces print as one short line."""

import gymnasium as gym

import mobileintent_gym  # noqa: F401  (registers the envs)


def test_the_observation_space_prints_short():
    env = gym.make("Act2Intent-Execute-v0", device="sim:540x1200",
                   observation=("screenshot", "instruction", "hierarchy"))
    text = str(env.observation_space)
    assert text == ("Dict('hierarchy': UnicodeText(1, 1048576), 'instruction': "
                    "UnicodeText(1, 512), 'screenshot': Box(0, 255, (1200, 540, 3), uint8))")
    assert repr(env.observation_space["instruction"]) == "UnicodeText(1, 512)"

"""The random agent: uniform samples of the action space (a floor for every score)."""

from __future__ import annotations

import copy
from typing import Any

import gymnasium as gym

from mobileintent_gym.checks import check_seed


class RandomAgent:
    """Samples the env's action space with its own seeded generator.

    Args:
        env: The environment.
        seed: Seed of the action space's sampler.
    """

    def __init__(self, env: gym.Env, seed: int = 0) -> None:
        self.space = copy.deepcopy(env.action_space)  # seeding the env's own would leak
        self.space.seed(check_seed(seed))

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        """A uniform sample of the action space.

        The env flags samples that make no action, such as TYPE with empty text.
        """
        return self.space.sample()

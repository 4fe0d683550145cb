"""``ScreenObservation``: the screenshot alone, downscaled, as a Box for image policies."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from mobileintent_gym.checks import positive_integer
from mobileintent_gym.envs.spaces import FrameBox


class ScreenObservation(gym.ObservationWrapper, gym.utils.RecordConstructorArgs):
    """Keep only the screenshot, taking every ``factor``-th pixel in both directions.

    Striding is exact and costs no interpolation; a 1080×2400 screen with ``factor=8``
    becomes 135×300. Text fields are dropped, so SB3's ``CnnPolicy`` takes the result.

    Args:
        env: An environment whose observation has a ``screenshot`` field.
        factor: Downscaling factor (1 keeps the full frame).

    Raises:
        ValueError: When ``factor`` is not a positive integer or the env has no screenshot.
    """

    def __init__(self, env: gym.Env, factor: int = 8) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, factor=factor)
        gym.ObservationWrapper.__init__(self, env)
        positive_integer("factor", factor)
        screen = env.observation_space.spaces.get("screenshot") if isinstance(
            env.observation_space, spaces.Dict) else None
        if screen is None:
            raise ValueError("ScreenObservation needs an env observing 'screenshot', got "
                             f"{env.observation_space}")
        self.factor = factor
        height, width, _ = screen.shape
        shape = (-(-height // factor), -(-width // factor), 3)
        self.observation_space = FrameBox(shape)

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        """The strided screenshot: a new contiguous array, or at factor 1 the frame itself.

        The frame is read-only (the device's own buffer), as every screenshot is.
        """
        return np.ascontiguousarray(observation["screenshot"][::self.factor, ::self.factor])

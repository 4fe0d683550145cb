"""The oracle agent: completes each task with the task's scripted planner."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from mobileintent_gym.actions import Action
from mobileintent_gym.tasks import Oracle


class OracleAgent:
    """Follows :class:`~mobileintent_gym.tasks.Oracle` on the env's device.

    It reads the device's route and hierarchy (what any device exposes), not the
    observation, so it works whatever observation fields the env returns.

    Args:
        env: The environment (wrappers are looked through).
        seed: Taken so that the class is a ``make_agent(env, seed)``; the oracle draws
            nothing.
    """

    def __init__(self, env: gym.Env, seed: int | None = None) -> None:
        self.env = env.unwrapped

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Action:
        """The oracle's next action for the env's current task."""
        device = self.env.device
        return Oracle(self.env.task).act(device.route(), device.hierarchy())

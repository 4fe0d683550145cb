"""What an agent is to the evaluation loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import gymnasium as gym

from mobileintent_gym.actions import Action


class Agent(Protocol):
    """Chooses an action from the observation and info of the previous step."""

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Action | str | dict:
        """The next action: an Action, its string form or a sample of the action space."""


# Builds a fresh agent for one rollout: ``make_agent(env, seed)``.
AgentFactory = Callable[[gym.Env, int], Agent]

"""What an agent is to the evaluation loop."""

from __future__ import annotations

from typing import Any, Protocol

from mobileintent_gym.actions import Action


class Agent(Protocol):
    """Chooses an action from the observation and info of the previous step."""

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Action | str | dict:
        """The next action: an Action, its string form or a sample of the action space."""

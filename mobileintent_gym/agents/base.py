"""What an agent is to the evaluation loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import gymnasium as gym

from mobileintent_gym.actions import Action
from mobileintent_gym.errors import InvalidArgumentError, brief


class Agent(Protocol):
    """Chooses an action from the observation and info of the previous step.

    An agent that keeps a history of its actions may also define
    ``teacher_force(observation, info, action)``: teacher-forced scoring
    (:func:`~mobileintent_gym.rollouts.teacher_forced`) calls it for each reference step it
    replays for the agent, so that the agent is then asked with the history it would have,
    had it taken those steps itself.
    """

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Action | str | dict:
        """The next action: an Action, its string form or a sample of the action space."""


# Builds a fresh agent for one rollout: ``make_agent(env, seed)``.
AgentFactory = Callable[[gym.Env, int], Agent]


def checked_agent(agent: object, maker: str, error: type[Exception] = InvalidArgumentError
                  ) -> Agent:
    """``agent``, which ``maker`` (its name in the message) made, when it has ``act``.

    Raises:
        error: Naming the maker and what it made, when that has no ``act`` method.
    """
    if not callable(getattr(agent, "act", None)):
        raise error(f"{maker} made {brief(agent)}, which has no act(observation, info) method")
    return agent

"""``ElementActions``: a Discrete action space over the screen's touch targets.

Pixel actions make a huge space for value-based or policy-gradient learners such as SB3's
PPO and DQN. This wrapper numbers what can be touched on the current screen — the targets
of the hierarchy dump, in tree order, by the same rule the phone applies to touches
(:mod:`mobileintent_gym.phone.touch`) — and adds a few fixed actions after them.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium import spaces

from mobileintent_gym.actions import Action
from mobileintent_gym.phone import hierarchy
from mobileintent_gym.phone.elements import reachable
from mobileintent_gym.phone.ui import center

FIXED = ("BACK", "SWIPE_UP", "SWIPE_DOWN", "TYPE_TASK_TEXT", "ENTER", "COMPLETE")


def touchable_points(xml: str) -> list[tuple[int, int]]:
    """Centres of the elements a touch reaches on the screen of dump ``xml``, in tree order.

    An element counts when it takes touches and a touch at its centre lands on it (not on
    a dialog, sheet or scrim drawn over it): :func:`~mobileintent_gym.phone.elements.reachable`.
    """
    return [center(node.bounds) for node in reachable(hierarchy.parse(xml))]


class ElementActions(gym.ActionWrapper):
    """Action i < ``max_elements`` clicks the i-th of the screen's :func:`touchable_points`.

    Then come the fixed actions of :data:`FIXED`: ``PRESS[BACK]``, ``SWIPE[UP]``,
    ``SWIPE[DOWN]``, ``TYPE`` of the text the task asks for (``Rainy Night``,
    ``Understood``; a space when it asks for none), ``PRESS[ENTER]`` and ``COMPLETE``. An
    index past the screen's targets is sent as an off-screen click, which the env flags
    as invalid and ignores.

    Args:
        env: An environment of this package (its device gives the hierarchy).
        max_elements: Targets addressable per screen (screens list far fewer).
    """

    def __init__(self, env: gym.Env, max_elements: int = 64) -> None:
        super().__init__(env)
        self.max_elements = max_elements
        self.action_space = spaces.Discrete(max_elements + len(FIXED))

    def action(self, action: Any) -> Action:
        """The pixel action behind index ``action``."""
        index = int(action)
        if index >= self.max_elements:
            return self._fixed(FIXED[index - self.max_elements])
        device = self.env.unwrapped.device
        points = touchable_points(device.hierarchy())
        if index >= len(points):
            return Action.click(device.width, 0)  # off screen: flagged, changes nothing
        return Action.click(*points[index])

    def _fixed(self, name: str) -> Action:
        if name.startswith("SWIPE_"):
            return Action.swipe(name.removeprefix("SWIPE_"))
        if name == "TYPE_TASK_TEXT":
            return Action.type_text(self.env.unwrapped.task.template.text_to_type() or " ")
        if name == "COMPLETE":
            return Action.complete()
        return Action.press(name)

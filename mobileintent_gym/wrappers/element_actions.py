"""``ElementActions``: a Discrete action space over the screen's touch targets.

Pixel actions make a huge space for value-based or policy-gradient learners such as SB3's
PPO and DQN. This wrapper numbers what can be touched on the current screen — the targets
of the hierarchy dump, in tree order, by the same rule the phone applies to touches
(:mod:`mobileintent_gym.phone.touch`) — and adds a few fixed actions after them.
:meth:`ElementActions.action_masks` says which actions reach something on the current
screen, as sb3-contrib's ``MaskablePPO`` asks of an env.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import logger, spaces

from mobileintent_gym.actions import Action
from mobileintent_gym.checks import positive_integer
from mobileintent_gym.errors import InvalidActionError, MobileIntentError, brief
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


def check_screen_task_env(env: gym.Env, wrapper: str) -> None:
    """Raise unless ``env`` takes screen actions on a device for a task (Execute, Session).

    The element wrappers read the task and the device's screen; an env of text actions
    (Understand, Predict, Proactive, Assist) has no element to act on.

    Raises:
        ValueError: Naming the wrapper and the env.
    """
    base = env.unwrapped
    space = base.action_space
    if not (hasattr(base, "device") and hasattr(base, "task") and hasattr(base, "screen_dump")
            and isinstance(space, spaces.Dict) and "point" in space.spaces):
        name = base.spec.id if base.spec is not None else type(base).__name__
        raise ValueError(f"{wrapper} needs an env of screen actions on a device for a task "
                         f"(Act2Intent-Execute-v0, Act2Intent-Session-v0), got {name} with "
                         f"action space {space}")


def warn_past_slots(wrapper: Any, count: int) -> None:
    """Warn once per ``wrapper`` when a screen lists ``count`` > its ``max_elements`` targets.

    The wrapper has ``max_elements`` and a ``warned`` flag, which this sets.
    """
    if count > wrapper.max_elements and not wrapper.warned:
        wrapper.warned = True
        logger.warn(f"a screen ({wrapper.env.unwrapped.device.route()}) lists {count} touch "
                    f"targets, more than max_elements={wrapper.max_elements}: "
                    f"{type(wrapper).__name__} leaves the rest out (raise max_elements)")


class ElementActions(gym.ActionWrapper, gym.utils.RecordConstructorArgs):
    """Action i < ``max_elements`` clicks the i-th of the screen's :func:`touchable_points`.

    Then come the fixed actions of :data:`FIXED`: ``PRESS[BACK]``, ``SWIPE[UP]``,
    ``SWIPE[DOWN]``, ``TYPE`` of the text the task asks for (``Rainy Night``,
    ``Understood``; a space when it asks for none), ``PRESS[ENTER]`` and ``COMPLETE``. An
    index past the screen's targets is sent as an off-screen click, which the env flags
    as invalid and ignores; :meth:`action_masks` leaves such indices out.

    Args:
        env: An Execute or Session env of this package (its device gives the hierarchy).
        max_elements: Targets addressable per screen. The oracle's paths of every task
            meet at most 46 on a screen, random walks 42 (``benchmarks/element_slots.py``);
            fewer slots leave the rest unreachable, which a warning says once per wrapper
            the first time a screen has more.

    Raises:
        ValueError: When ``max_elements`` is not a positive integer, or ``env`` takes no
            screen actions for a task (see :func:`check_screen_task_env`).
    """

    def __init__(self, env: gym.Env, max_elements: int = 64) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, max_elements=max_elements)
        gym.ActionWrapper.__init__(self, env)
        check_screen_task_env(env, "ElementActions")
        self.max_elements = positive_integer("max_elements", max_elements)
        self.action_space = spaces.Discrete(max_elements + len(FIXED))
        self.warned = False

    def action(self, action: Any) -> Action:
        """The pixel action behind index ``action``.

        Raises:
            InvalidActionError: When ``action`` is not in the action space: an integer
                (Python or NumPy, not bool) from 0 to ``action_space.n - 1``; nothing is sent.
            MobileIntentError: Before the env's first ``reset()`` (there is no task).
        """
        if isinstance(action, bool | np.bool_) or not self.action_space.contains(action):
            raise InvalidActionError(f"element action must be an integer in "
                                     f"[0, {self.action_space.n}), got {brief(action)}")
        if self.env.unwrapped.task is None:
            raise MobileIntentError("call reset() before step()")
        index = int(action)
        if index >= self.max_elements:
            return self._fixed(FIXED[index - self.max_elements])
        device = self.env.unwrapped.device
        points = touchable_points(self.env.unwrapped.screen_dump())
        warn_past_slots(self, len(points))
        if index >= len(points):
            return Action.click(device.width, 0)  # off screen: flagged, changes nothing
        return Action.click(*points[index])

    def action_masks(self) -> np.ndarray:
        """Which actions reach something now: the screen's listed elements and every fixed one.

        Returns:
            A bool array of ``action_space.n`` entries. sb3-contrib's ``MaskablePPO``
            finds it under other wrappers; Gymnasium's wrappers do not pass attributes on,
            so beneath one call ``env.get_wrapper_attr("action_masks")()``.
        """
        mask = np.zeros(self.action_space.n, dtype=bool)
        count = len(touchable_points(self.env.unwrapped.screen_dump()))
        warn_past_slots(self, count)
        mask[: min(count, self.max_elements)] = True
        mask[self.max_elements :] = True
        return mask

    def _fixed(self, name: str) -> Action:
        if name.startswith("SWIPE_"):
            return Action.swipe(name.removeprefix("SWIPE_"))
        if name == "TYPE_TASK_TEXT":
            return Action.type_text(self.env.unwrapped.task.template.text_to_type() or " ")
        if name == "COMPLETE":
            return Action.complete()
        return Action.press(name)

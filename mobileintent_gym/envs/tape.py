"""A simulated phone that keeps what was done to it since its last reset, to redo elsewhere.

The Assist env shows a user's actions on one phone while the user's life runs a segment
ahead on another. When the assistant takes over in the middle of a segment, the life's
phone is brought to the screen and data the shown phone has by loading the same state and
taking the same actions at the same pace: the simulated phone is deterministic.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mobileintent_gym.actions import Action, ActionLike, to_action
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.state import PhoneState


class TapedPhone:
    """A :class:`~mobileintent_gym.phone.SimPhone` that records its resets, opens and actions.

    It fulfils the device contract, so an env can act through it.

    Args:
        phone: The phone to drive.
    """

    def __init__(self, phone: SimPhone) -> None:
        self.phone, self.width, self.height = phone, phone.width, phone.height
        self._loaded = phone.state.copy()
        self._tape: list[tuple[Action | str, float]] = []  # (action or app id, pace)

    def reset(self, state: PhoneState | None = None, seed: int | None = None) -> None:
        """Load ``state`` (see :meth:`SimPhone.reset`); the tape starts again from it."""
        self.phone.reset(state, seed)
        self._loaded, self._tape = self.phone.state.copy(), []

    def open(self, app_id: str) -> None:
        """Bring ``app_id`` to the front at its home screen."""
        self.phone.open(app_id)
        self._tape.append((app_id, 0.0))

    def act(self, action: ActionLike) -> Any:
        """Carry out one action (a refused one is not recorded: it changed nothing)."""
        action = to_action(action)
        result = self.phone.act(action)
        self._tape.append((action, self.phone.seconds_per_action))
        return result

    def copy_to(self, other: SimPhone) -> None:
        """Bring ``other`` (of the same size) to this phone's screen, data and clock."""
        other.reset(self._loaded)
        for step, pace in self._tape:
            if isinstance(step, str):
                other.open(step)
            else:
                other.seconds_per_action = pace
                other.act(step)

    @property
    def seconds_per_action(self) -> float:
        """How far the clock advances per action."""
        return self.phone.seconds_per_action

    @seconds_per_action.setter
    def seconds_per_action(self, seconds: float) -> None:
        self.phone.seconds_per_action = seconds

    @property
    def state(self) -> PhoneState:
        """The phone's live state."""
        return self.phone.state

    @property
    def clock(self) -> str:
        """The simulated time, ``YYYY-MM-DD HH:MM:SS``."""
        return self.phone.clock

    def screenshot(self, fresh: bool = False) -> np.ndarray:
        """The screen (see :meth:`SimPhone.screenshot`)."""
        return self.phone.screenshot(fresh)

    def hierarchy(self) -> str:
        """The view hierarchy."""
        return self.phone.hierarchy()

    def route(self) -> str:
        """The route on top."""
        return self.phone.route()

    def close(self) -> None:
        """Release the phone."""
        self.phone.close()

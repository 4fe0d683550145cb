"""The Device contract shared by the simulated phone and real-device backends."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from mobileintent_gym.actions import ActionLike


@runtime_checkable
class Device(Protocol):
    """What an environment needs from a phone; it never asks which kind it holds.

    Attributes:
        width: Screen width in pixels.
        height: Screen height in pixels.
    """

    width: int
    height: int

    def reset(self, state: Any = None, seed: int | None = None) -> None:
        """Bring the device to ``state`` (or its default state) and the home screen."""

    def screenshot(self, fresh: bool = False) -> np.ndarray:
        """The current screen as a read-only H×W×3 uint8 array, never changed once returned.

        A device may return the same array while the screen is unchanged; with ``fresh``
        the result shares no memory with any earlier frame that a caller still holds.
        """

    def hierarchy(self) -> str:
        """The current view hierarchy in uiautomator dump XML."""

    def route(self) -> str:
        """The current screen's route: ``launcher`` or ``<app>/<screen>…``."""

    def open(self, app_id: str) -> None:
        """Bring the app ``app_id`` (an id of the app registry) to the front at its home screen."""

    def act(self, action: ActionLike) -> Any:
        """Carry out one action and return what happened (an ``ActResult``).

        ``action`` is an ``Action``, its string form or an action-space sample
        (:func:`~mobileintent_gym.actions.to_action` reads each).
        """

    def close(self) -> None:
        """Release the device."""

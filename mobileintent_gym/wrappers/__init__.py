"""Wrappers, one per module: element actions and screen-only observations for SB3-style RL."""

from mobileintent_gym.wrappers.element_actions import ElementActions
from mobileintent_gym.wrappers.screen import ScreenObservation

__all__ = ["ElementActions", "ScreenObservation"]

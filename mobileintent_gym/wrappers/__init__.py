"""Wrappers, one per module: element actions and observations for SB3-style RL."""

from mobileintent_gym.wrappers.element_actions import ElementActions
from mobileintent_gym.wrappers.element_features import ElementFeatures
from mobileintent_gym.wrappers.screen import ScreenObservation

__all__ = ["ElementActions", "ElementFeatures", "ScreenObservation"]

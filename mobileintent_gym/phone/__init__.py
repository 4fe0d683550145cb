"""The simulated device: SimPhone and its UI toolkit, renderer and hierarchy dump."""

from mobileintent_gym.phone.events import ActResult, Hit, StepEvent
from mobileintent_gym.phone.phone import SimPhone
from mobileintent_gym.phone.state import PhoneState

__all__ = ["ActResult", "Hit", "PhoneState", "SimPhone", "StepEvent"]

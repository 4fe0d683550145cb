"""Device backends: the protocol every device satisfies, and real-device drivers."""

from mobileintent_gym.backends.base import Device

__all__ = ["Device"]

"""Build a device from a config string, so environments never branch on device types.

``sim`` (or ``sim:WIDTHxHEIGHT``) is the embedded simulated phone; ``adb:<serial>`` a
device or emulator the local adb server knows (``adb:127.0.0.1:15555`` for
``mobileintent-gym serve-adb``); ``appium:<url>`` an Appium server driving a device with
UiAutomator2 (``appium:http://127.0.0.1:4723``).
"""

from __future__ import annotations

from mobileintent_gym.backends.base import Device
from mobileintent_gym.errors import DeviceError


class DeviceConfigError(DeviceError, ValueError):
    """A device config string that names no known backend; the message quotes it."""


def load_device(spec: str) -> Device:
    """Build the device that ``spec`` names.

    Args:
        spec: ``sim``, ``sim:1080x2400``, ``adb:<serial>`` or ``appium:<url>``.

    Returns:
        A device satisfying :class:`Device`.

    Raises:
        DeviceConfigError: For an unknown backend or a malformed argument.
        DependencyNotInstalled: When the backend's extra is not installed.
    """
    kind, _, argument = spec.strip().partition(":")
    if kind == "sim":
        from mobileintent_gym.phone import SimPhone

        if not argument:
            return SimPhone()
        width, sep, height = argument.partition("x")
        if not (sep and width.isdigit() and height.isdigit()):
            raise DeviceConfigError(f"sim size must be WIDTHxHEIGHT, got {spec!r}")
        return SimPhone(int(width), int(height))
    if kind == "adb" and argument:
        from mobileintent_gym.backends.adb import AdbDevice

        return AdbDevice(argument)
    if kind == "appium" and argument.startswith(("http://", "https://")):
        from mobileintent_gym.backends.appium import AppiumDevice

        return AppiumDevice(argument)
    raise DeviceConfigError(
        f"unknown device {spec!r}; use 'sim', 'adb:<serial>' or 'appium:<http url>'")

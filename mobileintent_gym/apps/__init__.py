"""The simulated apps, one module each."""

from __future__ import annotations

from mobileintent_gym.apps.base import App
from mobileintent_gym.errors import UnknownRouteError


def default_apps() -> list[App]:
    """One instance of every built-in app, in launcher order."""
    from mobileintent_gym.apps.chat import ChatApp
    from mobileintent_gym.apps.music import MusicApp

    return [MusicApp(), ChatApp()]


def app_package(app_id: str) -> str:
    """The Android package of the built-in app ``app_id`` (what a device launches).

    Raises:
        UnknownRouteError: Naming the unknown app and the known ones.
    """
    packages = {app.id: app.package for app in default_apps()}
    if app_id not in packages:
        raise UnknownRouteError(f"no app {app_id!r}; apps: {sorted(packages)}")
    return packages[app_id]


__all__ = ["App", "app_package", "default_apps"]

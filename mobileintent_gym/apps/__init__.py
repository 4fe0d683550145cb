"""The simulated apps, one module each."""

from __future__ import annotations

from mobileintent_gym.apps.base import App


def default_apps() -> list[App]:
    """One instance of every built-in app, in launcher order."""
    from mobileintent_gym.apps.chat import ChatApp
    from mobileintent_gym.apps.music import MusicApp

    return [MusicApp(), ChatApp()]


__all__ = ["App", "default_apps"]

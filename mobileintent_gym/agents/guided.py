"""A baseline of ``Act2Intent-Session-v0``: replay the guidance (a similar past intention)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from mobileintent_gym.actions import Action, parse_action

_HOME = "On the home screen"


class GuidanceAgent:
    """Replays the in-app actions of the guidance, then declares the intention complete.

    The guidance is the action list of the most similar past intention of the same class;
    the env opens the app itself, so the guidance's steps on the home screen and its HOME
    presses are skipped.

    Args:
        env: The environment (made with ``guidance=True``).
        seed: Unused.
    """

    def __init__(self, env: gym.Env, seed: int = 0) -> None:
        self._segment: int | None = None
        self._queue: list[Action] = []

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> Action:
        """The next guidance action of the current intention, or COMPLETE."""
        if info.get("segment") != self._segment:
            self._segment = info.get("segment")
            self._queue = [parse_action(action) for action, _, description in
                           (line.partition(" | ") for line in observation["guidance"].splitlines())
                           if not description.startswith(_HOME) and action != "PRESS[HOME]"]
        return self._queue.pop(0) if self._queue else Action.complete()

"""A baseline of ``Act2Intent-Session-v0``: replay the guidance (a similar past intention)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from mobileintent_gym.actions import Action, parse_action
from mobileintent_gym.errors import InvalidActionError
from mobileintent_gym.intents.describe import HOME_SCREEN

_PRESS_HOME = Action.press("HOME")


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
        """The next guidance action of the current intention, or COMPLETE.

        A new intention (another segment, or a new episode: no step taken yet) starts
        its guidance afresh, whatever the last one left.
        """
        if info.get("segment") != self._segment or info.get("steps") == 0:
            self._segment = info.get("segment")
            steps = (_step(line) for line in observation["guidance"].splitlines())
            self._queue = [action for action, description in steps
                           if not description.startswith(HOME_SCREEN) and action != _PRESS_HOME]
        return self._queue.pop(0) if self._queue else Action.complete()


def _step(line: str) -> tuple[Action, str]:
    """A guidance line's action and description (``<action> | <description>``).

    Typed text may hold " | " too (``TYPE[Tom | Jerry]``): the action is the shortest
    start of the line, up to a " | ", that is an action.

    Raises:
        InvalidActionError: For a line without an action before a " | ".
    """
    cut = line.find(" | ")
    while cut != -1:
        try:
            return parse_action(line[:cut]), line[cut + 3:]
        except InvalidActionError:
            cut = line.find(" | ", cut + 1)
    return parse_action(line.partition(" | ")[0]), ""

"""Baselines of ``Act2Intent-Understand-v0``: random cuts, cuts at app switches, the truth."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from mobileintent_gym.checks import check_seed
from mobileintent_gym.intents.describe import HOME_SCREEN

_LINE = re.compile(r"^(\d+)\. (.*)$")


def numbered_steps(observation: dict[str, Any]) -> list[str]:
    """The step descriptions of an Understand observation, in order."""
    return [m.group(2) for m in map(_LINE.match, observation["steps"].splitlines()) if m]


def answer(segments: Iterable[tuple[str, Sequence[int]]]) -> str:
    """The JSON answer for ``(text, step indices)`` segments, in order.

    A text may come twice (two intentions with one text): the object then repeats the key.
    """
    return "{" + ", ".join(f"{json.dumps(text)}: {json.dumps(list(group))}"
                           for text, group in segments) + "}"


class RandomSegmenter:
    """Cuts the steps at random points; each segment is named by one of its descriptions.

    Args:
        env: The environment.
        seed: Seed of the cuts.
    """

    def __init__(self, env: gym.Env, seed: int = 0) -> None:
        self.rng = np.random.default_rng(check_seed(seed))

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """A random segmentation."""
        steps = numbered_steps(observation)
        count = int(self.rng.integers(1, len(steps) + 1))
        cuts = sorted(self.rng.choice(np.arange(1, len(steps)), count - 1, replace=False))
        bounds = [0, *map(int, cuts), len(steps)]
        groups = [list(range(a + 1, b + 1)) for a, b in itertools.pairwise(bounds)]
        return answer([(steps[int(self.rng.choice(g)) - 1], g) for g in groups])


def _app(description: str) -> str:
    return "" if description.startswith(HOME_SCREEN) else description.split(",", 1)[0][3:]


class AppSwitchSegmenter:
    """Cuts where the user opens an app from the home screen or the app changes.

    A step on the home screen starts a new intention, which the app it opens continues,
    unless the user had just backed out of an app (that is one intention going back to its
    start). Each intention is named
    ``In <App>, <purpose of its last step>.`` — the step that usually completes it.

    Args:
        env: The environment (unused).
        seed: Unused.
    """

    def __init__(self, env: gym.Env | None = None, seed: int = 0) -> None:
        del env, seed

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """The segmentation at app switches."""
        steps = numbered_steps(observation)
        groups: list[list[int]] = []
        app = None
        began_at_home = False  # the last step began an intention on the home screen
        for i, step in enumerate(steps, 1):
            backed_out = i > 1 and "press Back" in steps[i - 2]
            # An app opened by a home-screen step that began an intention continues it.
            new_app = _app(step) not in ("", app) and not began_at_home
            home_cut = step.startswith(HOME_SCREEN) and not backed_out
            if not groups or home_cut or new_app:
                groups.append([])
            groups[-1].append(i)
            began_at_home = home_cut
            app = _app(step) or app
        texts = []
        for group in groups:
            last = steps[group[-1] - 1]
            where = next((_app(steps[i - 1]) for i in group if _app(steps[i - 1])), "the phone")
            texts.append(f"In {where}, {last.rpartition(', to ')[2]}.")
        return answer(zip(texts, groups, strict=True))


class OracleSegmenter:
    """Answers the truth of the env's window.

    Args:
        env: The environment (wrappers are looked through).
        seed: Unused.
    """

    def __init__(self, env: gym.Env, seed: int = 0) -> None:
        self.env = env.unwrapped

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """The true segmentation."""
        return answer(self.env.truth)

"""Baselines of ``Act2Intent-Predict-v0``: random, most frequent at this hour, last, truth."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np

from mobileintent_gym.agents.intent_prompts import history_intentions
from mobileintent_gym.checks import check_seed
from mobileintent_gym.metrics.act2intent import EVENT_CLASSES

HOURS_AROUND = 2  # the most-frequent baseline looks at intentions this close in time of day


class HistoryEntry(NamedTuple):
    """One line of an observation's history: ``time | app | intention | class``."""

    hour: int
    app: str
    intention: str
    event: str


def history_entries(observation: dict[str, Any]) -> list[HistoryEntry]:
    """The entries of an observation's ``history``, one per line (Predict's and Assist's)."""
    return [HistoryEntry(int(time[11:13]), app, text, event)
            for time, app, text, event in history_intentions(observation["history"])]


def near_hour(history: list[HistoryEntry], hour: int) -> list[HistoryEntry]:
    """The entries within :data:`HOURS_AROUND` hours of ``hour`` in the time of day."""
    return [h for h in history
            if min(abs(h.hour - hour), 24 - abs(h.hour - hour)) <= HOURS_AROUND]


def guess(event: str, behaviour: str, confidence: float) -> str:
    """The JSON answer."""
    return json.dumps({"Event": event, "Behaviour": behaviour,
                       "Confidence": round(float(confidence), 4)})


class RandomPredictor:
    """A uniformly drawn event class and a past intention, at a random confidence.

    Args:
        env: The environment.
        seed: Seed of the draws.
    """

    def __init__(self, env: gym.Env, seed: int = 0) -> None:
        self.rng = np.random.default_rng(check_seed(seed))

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """A random prediction."""
        history = history_entries(observation)
        said = history[int(self.rng.integers(len(history)))].intention if history else ""
        event = EVENT_CLASSES[int(self.rng.integers(len(EVENT_CLASSES)))]
        return guess(event, said, self.rng.random())


class MostFrequentPredictor:
    """The most frequent class (and its most frequent intention) at this time of day.

    Looks at the history within :data:`HOURS_AROUND` hours of the current time (all of it
    when there is none); the confidence is that class's share there.

    Args:
        env: The environment (unused).
        seed: Unused.
    """

    def __init__(self, env: gym.Env | None = None, seed: int = 0) -> None:
        del env, seed

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """The habitual prediction."""
        history = history_entries(observation)
        hour = int(observation["time"][11:13])
        near = near_hour(history, hour) or history
        if not near:
            return guess(EVENT_CLASSES[0], "", 0.0)
        (event, count), = Counter(h.event for h in near).most_common(1)
        said = Counter(h.intention for h in near if h.event == event).most_common(1)[0][0]
        return guess(event, said, count / len(near))


class LastIntentionPredictor:
    """Predicts the last intention again, at confidence 0.5.

    Args:
        env: The environment (unused).
        seed: Unused.
    """

    def __init__(self, env: gym.Env | None = None, seed: int = 0) -> None:
        del env, seed

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """The last intention."""
        history = history_entries(observation)
        if not history:
            return guess(EVENT_CLASSES[0], "", 0.0)
        return guess(history[-1].event, history[-1].intention, 0.5)


class OraclePredictor:
    """Answers the intention that comes next, at confidence 1.

    Args:
        env: The environment (wrappers are looked through).
        seed: Unused.
    """

    def __init__(self, env: gym.Env, seed: int = 0) -> None:
        self.env = env.unwrapped

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """The truth."""
        truth = self.env.truth()
        return guess(truth.event, truth.behaviour, 1.0)

"""Baselines of ``Act2Intent-Proactive-v0``: never propose, always propose, the truth.

Always proposing the user's most frequent intention is the over-proactive extreme: it never
misses a turn with an intention (recall 1 whenever it is right once) and pushes on every
noise turn, which S_final punishes.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import gymnasium as gym

from mobileintent_gym.agents.predict import history_entries
from mobileintent_gym.envs.proposals import NO_ACTION, answer


class NeverPropose:
    """Answers "no action" every turn (works in both proactive envs).

    Args:
        env: The environment (unused).
        seed: Unused.
    """

    def __init__(self, env: gym.Env | None = None, seed: int = 0) -> None:
        del env, seed

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """No proposal."""
        return NO_ACTION


class MostFrequentProposer:
    """Proposes the most frequent intention of the user's history, every turn.

    Args:
        env: The environment (unused).
        seed: Unused.
    """

    def __init__(self, env: gym.Env | None = None, seed: int = 0) -> None:
        del env, seed

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """The habitual intention (no action when the history is empty)."""
        texts = Counter(entry.intention for entry in history_entries(observation))
        return answer(texts.most_common(1)[0][0], "UPDATE") if texts else NO_ACTION


class OracleProposer:
    """Answers each turn's gold intent and memory operation.

    Args:
        env: The environment (wrappers are looked through).
        seed: Unused.
    """

    def __init__(self, env: gym.Env, seed: int = 0) -> None:
        self.env = env.unwrapped

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> str:
        """The truth."""
        truth = self.env.truth()
        return answer(truth.intent, truth.memory)

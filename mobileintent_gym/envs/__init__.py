"""The Gymnasium environments, registered from one table (HOUSE_STYLE 4)."""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium


@dataclass(frozen=True, slots=True)
class EnvSpec:
    """One registered environment.

    Attributes:
        id: Gymnasium id.
        entry_point: ``module:Class``.
        max_episode_steps: Longest episode (the longest task's step limit).
    """

    id: str
    entry_point: str
    max_episode_steps: int


ENV_SPECS: tuple[EnvSpec, ...] = (
    EnvSpec("Act2Intent-Execute-v0", "mobileintent_gym.envs.execute:ExecuteEnv", 30),
)


def register_envs() -> None:
    """Register every env of :data:`ENV_SPECS` with Gymnasium (once).

    Each id's ``vector_entry_point`` is ``mobileintent_gym.envs.vector:<id>``, a
    :class:`~mobileintent_gym.envs.vector.SharedMemoryVectorEnv` of that env (a string, so
    that specs still serialise to JSON).
    """
    for spec in ENV_SPECS:
        if spec.id not in gymnasium.registry:
            gymnasium.register(spec.id, entry_point=spec.entry_point,
                               vector_entry_point=f"mobileintent_gym.envs.vector:{spec.id}",
                               max_episode_steps=spec.max_episode_steps)


__all__ = ["ENV_SPECS", "EnvSpec", "register_envs"]

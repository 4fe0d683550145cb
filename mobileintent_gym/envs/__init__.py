"""The Gymnasium environments, registered from one table."""

from __future__ import annotations

from dataclasses import dataclass

import gymnasium


@dataclass(frozen=True, slots=True)
class EnvSpec:
    """One registered environment.

    Attributes:
        id: Gymnasium id.
        entry_point: ``module:Class``.
        max_episode_steps: Longest episode (Execute: the longest task's step limit;
            Predict: intentions in a day; Session: steps in a day of intentions;
            Proactive: turns in a day; Assist: user and assistant actions in a day), or
            ``None`` for an env whose episodes always end by themselves (Understand's
            single step).
    """

    id: str
    entry_point: str
    max_episode_steps: int | None


ENV_SPECS: tuple[EnvSpec, ...] = (
    EnvSpec("Act2Intent-Execute-v0", "mobileintent_gym.envs.execute:ExecuteEnv", 30),
    EnvSpec("Act2Intent-Understand-v0", "mobileintent_gym.envs.understand:UnderstandEnv",
            None),
    EnvSpec("Act2Intent-Predict-v0", "mobileintent_gym.envs.predict:PredictEnv", 200),
    EnvSpec("Act2Intent-Session-v0", "mobileintent_gym.envs.session:SessionEnv", 2000),
    EnvSpec("Act2Intent-Proactive-v0", "mobileintent_gym.envs.proactive:ProactiveEnv", 4000),
    EnvSpec("Act2Intent-Assist-v0", "mobileintent_gym.envs.assist:AssistEnv", 4000),
)


def register_envs() -> None:
    """Register every env of :data:`ENV_SPECS` with Gymnasium (once).

    Each id's ``vector_entry_point`` is ``mobileintent_gym.envs.vector:<id>``, a
    :class:`~mobileintent_gym.envs.vector.SharedMemoryVectorEnv` of that env (a string, so
    that specs still serialise to JSON). ``gym.make`` leaves Gymnasium's passive env
    checker out (``disable_env_checker=False`` puts it in): Gymnasium 1.4's marks its
    first reset checked before running it, so after a refused first reset (a mistyped
    task id) every step raises ``TypeError``; the package's tests run Gymnasium's
    ``check_env`` on each env instead.
    """
    for spec in ENV_SPECS:
        if spec.id not in gymnasium.registry:
            gymnasium.register(spec.id, entry_point=spec.entry_point,
                               vector_entry_point=f"mobileintent_gym.envs.vector:{spec.id}",
                               max_episode_steps=spec.max_episode_steps,
                               disable_env_checker=True)


__all__ = ["ENV_SPECS", "EnvSpec", "register_envs"]

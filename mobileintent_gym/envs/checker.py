"""Gymnasium's passive env checker around an env whose first reset was refused.

Gymnasium 1.4's ``PassiveEnvChecker`` marks its first reset checked before running it: when
that reset raises (a mistyped task id, an unknown user), the first step later compares with
an observation never kept and raises ``TypeError`` from an env that is otherwise fine, for
good. :func:`reset` resets an env and, when the reset raises, lets the checker check the
next one, so that a caller that catches the error goes on with the same env.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym
from gymnasium.wrappers import PassiveEnvChecker


def reset(env: gym.Env, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
    """``env.reset(**kwargs)``; after one that raises, the env stays usable."""
    try:
        return env.reset(**kwargs)
    except BaseException:
        rearm_checker(env)
        raise


def rearm_checker(env: gym.Env) -> None:
    """Let Gymnasium's env checker around ``env`` check the reset after a failed first one."""
    for wrapper in wrappers(env):
        if (isinstance(wrapper, PassiveEnvChecker) and not wrapper.checked_step
                and getattr(wrapper, "_previous_data", ()) is None):
            wrapper.checked_reset = False


def wrappers(env: gym.Env) -> Iterator[gym.Wrapper]:
    """The wrappers around ``env``'s core, outermost first."""
    while isinstance(env, gym.Wrapper):
        yield env
        env = env.env

"""Running envs in several processes: worker thread limits, rollouts and evaluation on Ray.

The Ray parts need the ``[distributed]`` extra. They load on first use, so that importing
the package (as every env worker does) stays light.

Example:
    >>> from mobileintent_gym.agents import AGENTS
    >>> from mobileintent_gym.distributed import evaluate_ray
    >>> runs = evaluate_ray({"observation": ("instruction",)}, AGENTS["oracle"],
    ...                     ["demo-ana"], ["G-SPT-03:common:explicit"], num_actors=2)
"""

from __future__ import annotations

import importlib
from typing import Any

from mobileintent_gym.distributed.threads import (
    THREAD_VARIABLES,
    WORKER_THREADS_ENV,
    worker_environment,
    worker_thread_env,
)

_LAZY = {"evaluate_ray": "evaluation", "RolloutGroup": "groups", "group_episodes": "groups",
         "rollout_groups": "groups", "RolloutError": "pool", "ActorsLostError": "pool",
         "RolloutPool": "pool", "check_address": "pool"}

__all__ = ["THREAD_VARIABLES", "WORKER_THREADS_ENV", "worker_environment",
           "worker_thread_env", *_LAZY]


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)

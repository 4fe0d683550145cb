"""``evaluate`` on Ray: the rollouts of :func:`mobileintent_gym.rollouts.evaluate` on actors."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from mobileintent_gym.distributed.pool import EXECUTE_ENV, RolloutPool
from mobileintent_gym.rollouts import AgentFactory, EpisodeRecord, episodes
from mobileintent_gym.users.sets import UserSpec, env_users


def evaluate_ray(env_kwargs: Mapping[str, Any], make_agent: AgentFactory,
                 users: UserSpec, tasks: str | Iterable[str] | None, seed: int = 0, *,
                 num_actors: int = 2, address: str | None = None,
                 env_id: str = EXECUTE_ENV, progress: bool = True) -> list[EpisodeRecord]:
    """Every task for every user, one rollout each, on ``num_actors`` Ray actors.

    The same rollouts as :func:`~mobileintent_gym.rollouts.evaluate` on
    ``gym.make(env_id, **env_kwargs)``, with the same seeds and the same records as
    :func:`~mobileintent_gym.rollouts.run_episodes`: one per rollout, user by user.

    Args:
        env_kwargs: Passed to ``gym.make`` in each actor.
        make_agent: ``make_agent(env, seed)`` builds each rollout's agent.
        users: Anything :func:`~mobileintent_gym.users.resolve_users` takes (``"test"``,
            names, paths), looked up in ``env_kwargs['profiles_dir']`` first; two that are
            one user are refused, as :func:`~mobileintent_gym.rollouts.run_episodes` does.
        tasks: The task ids (one, several, or ``None`` for every task).
        seed: Seed of the evaluation (each rollout gets ``episode_seed`` of it).
        num_actors: Actors to start (one CPU each).
        address: A Ray cluster's address; default a local cluster (or the running session).
        env_id: The registered env id.
        progress: Show a progress bar on stderr.
    """
    profiles_dir = env_kwargs.get("profiles_dir")
    names = env_users(users, profiles_dir)
    with RolloutPool(num_actors, env_id, env_kwargs, address=address,
                     progress=progress) as pool:
        return pool.run(episodes(names, tasks, seed, profiles_dir=profiles_dir), make_agent)

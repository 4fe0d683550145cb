"""RePAIR's rollout groups, run on a :class:`~mobileintent_gym.distributed.pool.RolloutPool`.

A group is several rollouts of one task specification by different users (the study: two
by user p, two by user q); :func:`mobileintent_gym.rl.group_advantages` turns its subgoal
rewards into one advantage per rollout. A trainer keeps one pool for all its iterations
and asks it for groups with a new ``seed`` (and a ``make_agent`` holding the current
policy) each time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mobileintent_gym.distributed.pool import RolloutPool
from mobileintent_gym.metrics.pair import EpisodeResult
from mobileintent_gym.rl.repair import group_advantages
from mobileintent_gym.rollouts import AgentFactory, Episode, EpisodeRecord, episode_seed


@dataclass(frozen=True)
class RolloutGroup:
    """The rollouts of one task by several users.

    Attributes:
        task: The task id.
        records: One record per rollout, user by user.
    """

    task: str
    records: tuple[EpisodeRecord, ...]

    @property
    def results(self) -> tuple[EpisodeResult, ...]:
        """Each rollout's result (what its subgoal rewards and scores need)."""
        return tuple(r.result for r in self.records)

    @property
    def users(self) -> tuple[str, ...]:
        """The user of each rollout."""
        return tuple(r.user for r in self.results)

    def advantages(self) -> np.ndarray:
        """RePAIR's advantage of each rollout (normalised over the UC subgoals)."""
        return group_advantages([r.rewards for r in self.results], self.results[0].contexts)


def group_episodes(task: str, users: Sequence[str], per_user: int = 2, seed: int = 0
                   ) -> list[Episode]:
    """The episodes of one group: ``per_user`` rollouts of ``task`` by each user.

    Raises:
        ValueError: For ``per_user`` below 1 or fewer than two users.
    """
    if per_user < 1 or len(set(users)) < 2:
        raise ValueError(f"a group needs two users or more and one rollout each at least, "
                         f"got users {list(users)} and per_user {per_user}")
    return [Episode(user, task, episode_seed(seed, user, f"{task}#{k}")) for user in users
            for k in range(per_user)]


def rollout_groups(pool: RolloutPool, specs: Sequence[tuple[str, Sequence[str]]],
                   make_agent: AgentFactory, per_user: int = 2, seed: int = 0
                   ) -> list[RolloutGroup]:
    """Run the groups of ``specs`` on the pool, all their episodes at once.

    Args:
        pool: The actors.
        specs: ``(task, users)`` per group, e.g. ``("G-SPT-02:personal:implicit",
            ("user3", "user7"))``.
        make_agent: ``make_agent(env, seed)`` builds each rollout's agent.
        per_user: Rollouts per user (the study: 2).
        seed: Seed of this round; each rollout gets its own seed from it.

    Returns:
        One group per spec, in order.
    """
    planned = [group_episodes(task, users, per_user, seed) for task, users in specs]
    runs = iter(pool.run([e for group in planned for e in group], make_agent))
    return [RolloutGroup(task, tuple(next(runs) for _ in group))
            for (task, _), group in zip(specs, planned, strict=True)]

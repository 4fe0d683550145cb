"""RePAIR's rollout groups: one task specification, two users, two rollouts each.

The study compares users on the same specification, so a group holds rollouts of one task
id (a template with its target and instruction types) by two users, ``per_user`` each
(the study: 2 + 2); the users' instances have the same subgoal structure (names and UC/UA
contexts), each with their own target and screens.
:func:`mobileintent_gym.rl.group_advantages` turns a group's subgoal rewards into one
advantage per rollout.

Every rollout is an :class:`~mobileintent_gym.rollouts.Episode` (user, task, seed), so a
group is the same wherever it runs: ``run`` is anything that turns episodes into records,
in order — a :class:`~mobileintent_gym.distributed.pool.RolloutPool`
(``functools.partial(pool.run, make_agent=...)``) or the RePAIR trainer's lockstep runner
(:func:`mobileintent_gym.rl.lockstep.run_lockstep`). A trainer asks for groups with a new
``seed`` (and an agent holding the current policy) each update.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mobileintent_gym.checks import positive_integer
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.metrics.pair import EpisodeResult
from mobileintent_gym.rl.repair import group_advantages
from mobileintent_gym.rollouts import Episode, EpisodeRecord, seed_of
from mobileintent_gym.users.profile import seed_name

# Runs episodes and returns their records in the same order.
Runner = Callable[[Sequence[Episode]], Sequence[EpisodeRecord]]
GroupSpec = tuple[str, Sequence[str]]  # (task id, the group's users)


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


def draw_group(rng: np.random.Generator, tasks: Sequence[str], users: Sequence[str]
               ) -> tuple[str, tuple[str, str]]:
    """A task id and two different users for a group, drawn from ``rng``.

    Raises:
        MobileIntentError: When fewer than two different users are given.
    """
    if len(set(users)) < 2:
        raise MobileIntentError(f"a RePAIR group needs two different users, got {list(users)}")
    task = tasks[int(rng.integers(len(tasks)))]
    p, q = rng.choice(sorted(set(users)), size=2, replace=False)
    return task, (str(p), str(q))


def group_episodes(task: str, users: Sequence[str], per_user: int = 2, seed: int = 0,
                   profiles_dir: str | os.PathLike[str] | None = None) -> list[Episode]:
    """The episodes of one group: ``per_user`` rollouts of ``task`` by each user.

    Rollout k of a user is seeded by :func:`~mobileintent_gym.rollouts.episode_seed` of
    ``seed``, the user and ``<task>#k``, so a user's rollouts differ and a rerun repeats
    (user names looked up in ``profiles_dir`` first).

    Raises:
        ValueError: For a ``per_user`` that is no integer of at least 1, fewer than two
            users or one user given twice, also as a name and its profile's path (whose
            rollouts would repeat the same seeds, counted twice in the advantages).
        UnknownProfileError: For a user that names no profile.
    """
    positive_integer("per_user", per_user)
    ids = [seed_name(user, profiles_dir) for user in users]
    if len(set(ids)) < 2 or len(set(ids)) != len(ids):
        known = "" if ids == list(users) else f" (user ids {ids})"
        raise ValueError(f"a group needs two different users or more, each named once, got "
                         f"users {list(users)}{known}")
    return [Episode(user, task, seed_of(seed, user_id, f"{task}#{k}"))
            for user, user_id in zip(users, ids, strict=True) for k in range(per_user)]


def rollout_groups(run: Runner, specs: Sequence[GroupSpec], per_user: int = 2,
                   seed: int = 0, profiles_dir: str | os.PathLike[str] | None = None
                   ) -> list[RolloutGroup]:
    """Run the groups of ``specs``, all their episodes in one call of ``run``.

    Args:
        run: Turns episodes into their records, in order (see the module notes).
        specs: ``(task, users)`` per group, e.g. ``("G-SPT-02:personal:implicit",
            ("user3", "user7"))``.
        per_user: Rollouts per user (the study: 2).
        seed: Seed of this round; each rollout gets its own seed from it.
        profiles_dir: Where the users' names are looked up first (their seeds are drawn
            from their profiles' user ids).

    Returns:
        One group per spec, in order.

    Raises:
        MobileIntentError: When ``run`` returns other records than those of the episodes
            in order (its first mismatch named), or a group's rollouts differ in subgoal
            structure (they share the task id, hence the template: a broken template).
        UnknownProfileError: For a user that names no profile, before ``run`` runs.
    """
    planned = [group_episodes(task, users, per_user, seed, profiles_dir)
               for task, users in specs]
    flat = [e for group in planned for e in group]
    records = iter(_in_order(list(run(flat)), flat))
    groups = [RolloutGroup(task, tuple(next(records) for _ in group))
              for (task, _), group in zip(specs, planned, strict=True)]
    for group in groups:
        if len({r.contexts for r in group.results}) != 1:
            raise MobileIntentError(f"users {sorted(set(group.users))} differ in the subgoal "
                                    f"structure of {group.task!r}; a group compares "
                                    "compatible rollouts only")
    return groups


def _in_order(records: list[EpisodeRecord], episodes: list[Episode]) -> list[EpisodeRecord]:
    """``records``, when they are those of ``episodes`` in order.

    Raises:
        MobileIntentError: Naming the counts, or the first record of another episode (a
            runner returning records as they finish would put them in other groups).
    """
    if len(records) != len(episodes):
        raise MobileIntentError(f"the runner returned {len(records)} records for "
                                f"{len(episodes)} episodes")
    for index, (record, episode) in enumerate(zip(records, episodes, strict=True)):
        got = Episode(record.result.user, record.result.task, record.seed)
        if got != episode:
            raise MobileIntentError(f"record {index} is of {tuple(got)}, not of the episode "
                                    f"run there, {tuple(episode)}: a runner returns the "
                                    "records in the episodes' order")
    return records

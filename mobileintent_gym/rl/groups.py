"""RePAIR's rollout groups: one task specification, two users, two rollouts each.

The study compares users on the same specification, so a group holds rollouts of one task
id (a template with its target and instruction types) from two users whose instances have
the same subgoal structure (names and UC/UA contexts); each user's target and screens are
their own. The rollouts run in lockstep, one batched generation per step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import gymnasium as gym
import numpy as np

from mobileintent_gym.agents.lm import Generation
from mobileintent_gym.agents.transformers_agent import TransformersAgent
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.metrics.pair import EpisodeResult
from mobileintent_gym.rollouts import episode_result, episode_seed


@dataclass(slots=True)
class Rollout:
    """One episode of the policy: what it generated and the rewards it earned.

    Attributes:
        user: The user whose phone it ran on.
        task: The task id.
        turns: The generation of each step (prompt and response token ids).
        result: Success and per-subgoal rewards (``None`` until the episode ends).
        unparsed: Answers that held no action.
    """

    user: str
    task: str
    turns: list[Generation] = field(default_factory=list)
    result: EpisodeResult | None = None
    unparsed: int = 0


def draw_group(rng: np.random.Generator, tasks: Sequence[str], users: Sequence[str],
               per_user: int = 2) -> tuple[str, tuple[str, ...]]:
    """A task id and the users of its group: ``per_user`` rollouts from each of two users.

    Raises:
        MobileIntentError: When fewer than two users are given.
    """
    if len(set(users)) < 2:
        raise MobileIntentError(f"a RePAIR group needs two different users, got {list(users)}")
    task = tasks[rng.integers(len(tasks))]
    p, q = rng.choice(sorted(set(users)), size=2, replace=False)
    return task, (str(p),) * per_user + (str(q),) * per_user


def run_episodes(envs: Sequence[gym.Env], agent: TransformersAgent,
                 episodes: Sequence[tuple[str, str]], seed: int,
                 max_steps: int | None = None) -> list[Rollout]:
    """Run one episode per (user, task) entry, all in lockstep, each in its own env.

    Args:
        envs: At least ``len(episodes)`` Execute envs observing ``instruction`` and
            ``hierarchy``.
        agent: The policy; it answers every live episode in one batched generation.
        episodes: (user, task id) of each episode.
        seed: Seed of the episodes: entry i gets :func:`episode_seed` of it, the user and
            ``<task>#i``.
        max_steps: Ends episodes earlier than the task's step limit.
    """
    if len(episodes) > len(envs):
        raise MobileIntentError(f"{len(episodes)} episodes need as many envs, got {len(envs)}")
    rollouts = [Rollout(user, task) for user, task in episodes]
    obs, infos = [], []
    for i, (env, (user, task)) in enumerate(zip(envs, episodes, strict=False)):
        o, info = env.reset(seed=episode_seed(seed, user, f"{task}#{i}"),
                            options={"user": user, "task": task})
        obs.append(o)
        infos.append(info)
    live = list(range(len(episodes)))
    while live:
        actions = agent.act_batch([obs[i] for i in live], [infos[i] for i in live], live)
        for i, action, generation in zip(live, actions, agent.last, strict=True):
            rollout = rollouts[i]
            rollout.turns.append(generation)
            rollout.unparsed += isinstance(action, str)
            obs[i], _, terminated, truncated, infos[i] = envs[i].step(action)
            if terminated or truncated or len(rollout.turns) == max_steps:
                rollout.result = episode_result(rollout.user, rollout.task, infos[i])
        live = [i for i in live if rollouts[i].result is None]
    return rollouts


def run_group(envs: Sequence[gym.Env], agent: TransformersAgent, task: str,
              users: Sequence[str], seed: int, max_steps: int | None = None
              ) -> list[Rollout]:
    """The rollouts of one group: ``task`` for each entry of ``users`` (:func:`draw_group`).

    Raises:
        MobileIntentError: When the users' instances differ in subgoal structure (they
            share the task id, hence the template, so this means a broken template).
    """
    rollouts = run_episodes(envs, agent, [(user, task) for user in users], seed, max_steps)
    if len({r.result.contexts for r in rollouts}) != 1:
        raise MobileIntentError(f"users {sorted(set(users))} differ in the subgoal structure "
                                f"of {task!r}; a group compares compatible rollouts only")
    return rollouts

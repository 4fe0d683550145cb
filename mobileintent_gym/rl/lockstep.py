"""Episodes of one language agent in lockstep: one batched generation per step.

The RePAIR trainer's local runner (without ``--ray``). Each env runs one episode at a
time; at every step the agent answers all live episodes in one batched ``generate``. The
records are those :func:`mobileintent_gym.rollouts.run` gives for the same episodes with
an agent per episode (the same steps, and the agent's turns); with greedy decoding they
are equal, as a batch gives the answers one prompt at a time gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import gymnasium as gym

from mobileintent_gym.agents.lm import LanguageModel
from mobileintent_gym.agents.transformers_agent import TransformersAgent
from mobileintent_gym.envs.checker import reset as checked_reset
from mobileintent_gym.rollouts import (
    Episode,
    EpisodeRecord,
    StepRecord,
    episode_record,
    step_record,
)


def run_lockstep(envs: Sequence[gym.Env], agent: TransformersAgent,
                 episodes: Sequence[Episode]) -> list[EpisodeRecord]:
    """The record of each episode, run ``len(envs)`` at a time in lockstep.

    Args:
        envs: Execute envs observing ``instruction`` and ``hierarchy``.
        agent: The policy; it answers every live episode in one batched generation.
        episodes: What to run; each env is reset with its episode's seed, user and task.
    """
    records: list[EpisodeRecord] = []
    for start in range(0, len(episodes), len(envs)):
        records += _chunk(envs, agent, episodes[start:start + len(envs)])
    return records


def _chunk(envs: Sequence[gym.Env], agent: TransformersAgent, episodes: Sequence[Episode]
           ) -> list[EpisodeRecord]:
    obs, infos = [], []
    for env, episode in zip(envs, episodes, strict=False):
        o, info = checked_reset(env, seed=episode.seed,
                                options={"user": episode.user, "task": episode.task})
        obs.append(o)
        infos.append(info)
    steps: list[list[StepRecord]] = [[] for _ in episodes]
    records: list[EpisodeRecord | None] = [None] * len(episodes)
    live = list(range(len(episodes)))
    while live:
        actions = agent.act_batch([obs[i] for i in live], [infos[i] for i in live], live)
        for i, action in zip(live, actions, strict=True):
            obs[i], reward, terminated, truncated, infos[i] = envs[i].step(action)
            steps[i].append(step_record(action, float(reward), infos[i], steps[i],
                                        envs[i].unwrapped.device))
            if terminated or truncated:
                records[i] = episode_record(episodes[i], infos[i], steps[i],
                                            agent.episode_turns(i))
        live = [i for i in live if records[i] is None]
    return records


@dataclass(frozen=True)
class PolicyAgents:
    """``make_agent(env, seed)`` of a language policy, for rollouts on other processes.

    Pickled (with the model's weights) to Ray actors, where each episode gets its own
    :class:`TransformersAgent` seeded by the episode.

    Attributes:
        lm: The policy (its weights on the CPU: actors have no GPU).
        temperature: Sampling temperature (0: greedy).
        max_new_tokens: Longest answer per step.
        max_elements: Screen elements listed per prompt.
    """

    lm: LanguageModel
    temperature: float
    max_new_tokens: int
    max_elements: int

    def __call__(self, env: gym.Env, seed: int) -> TransformersAgent:
        """A fresh agent for one episode."""
        return TransformersAgent(env, self.lm, seed=seed, temperature=self.temperature,
                                 max_new_tokens=self.max_new_tokens,
                                 max_elements=self.max_elements)

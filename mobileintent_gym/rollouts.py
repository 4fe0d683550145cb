"""Rollout loops: one episode, every user × task, and teacher-forced steps for SSR.

An agent is anything with ``act(observation, info)`` (:class:`~mobileintent_gym.agents.Agent`);
``make_agent(env, seed)`` builds a fresh one per rollout (or per teacher-forced step) with
its own seed, so rollouts differ and reruns repeat.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import gymnasium as gym

from mobileintent_gym.actions import Action, ActionLike, to_action
from mobileintent_gym.agents import Agent, OracleAgent
from mobileintent_gym.errors import InvalidActionError, MobileIntentError
from mobileintent_gym.metrics.act2intent import action_matches
from mobileintent_gym.metrics.pair import EpisodeResult
from mobileintent_gym.phone.events import StepEvent
from mobileintent_gym.phone.touch import ScreenDump

AgentFactory = Callable[[gym.Env, int], Agent]


class ReplayDivergedError(MobileIntentError):
    """A teacher-forced replay did not reach the reference trajectory's screen."""


def episode_seed(seed: int, user: str, task: str) -> int:
    """A seed for one rollout of ``task`` for ``user``, stable in every process."""
    return zlib.crc32(f"{seed}:{user}:{task}".encode())


def rollout(env: gym.Env, agent: Agent, options: dict | None = None, seed: int = 0
            ) -> Iterator[tuple[ActionLike, dict]]:
    """Each action of one episode of ``agent`` with the info of its step.

    The env is reset with ``seed`` and ``options`` first; the episode ends when the env
    terminates or truncates it.
    """
    obs, info = env.reset(seed=seed, options=options)
    done = False
    while not done:
        action = agent.act(obs, info)
        obs, _, terminated, truncated, info = env.step(action)
        yield action, info
        done = terminated or truncated


def episode_result(user: str, task: str, info: dict) -> EpisodeResult:
    """What the scores need of an episode, from the ``info`` of its last step."""
    return EpisodeResult(task, user, info["success"], info["subgoal_rewards"], info["contexts"])


def run_episode(env: gym.Env, agent: Agent, user: str, task: str, seed: int = 0
                ) -> tuple[EpisodeResult, list[str]]:
    """One rollout of ``agent`` on ``task`` for ``user``.

    Returns:
        The episode's result and the actions taken, in their string form.
    """
    actions: list[str] = []
    for action, info in rollout(env, agent, {"user": user, "task": task}, seed):
        event = info["event"]
        actions.append(event.action if event is not None else f"invalid: {action!r}")
    return episode_result(user, task, info), actions


def evaluate(env: gym.Env, make_agent: AgentFactory, users: Sequence[str],
             tasks: Sequence[str], seed: int = 0) -> list[tuple[EpisodeResult, list[str]]]:
    """Every task for every user, one rollout each, with a fresh agent per rollout.

    Each rollout's env and agent get :func:`episode_seed` of ``seed``, user and task.
    """
    runs = []
    for user in users:
        for task in tasks:
            episode = episode_seed(seed, user, task)
            runs.append(run_episode(env, make_agent(env, episode), user, task, episode))
    return runs


@dataclass(frozen=True, slots=True)
class ReferenceStep:
    """One step of the oracle's trajectory: its action and the event it produced."""

    action: Action
    event: StepEvent


def reference_steps(env: gym.Env, user: str, task: str) -> list[ReferenceStep]:
    """The oracle's trajectory on ``task`` for ``user``."""
    steps = rollout(env, OracleAgent(env), {"user": user, "task": task})
    return [ReferenceStep(action, info["event"]) for action, info in steps]


def _same_step(replayed: StepEvent, reference: StepEvent) -> bool:
    return ((replayed.route_before, replayed.route_after, replayed.hit, replayed.visible)
            == (reference.route_before, reference.route_after, reference.hit,
                reference.visible))


def teacher_forced(env: gym.Env, make_agent: AgentFactory, user: str, task: str,
                   seed: int = 0) -> list[bool]:
    """Per step of the oracle's trajectory, whether the agent's action from there matches.

    Step t starts a fresh episode, replays the reference's first t actions (checking each
    reaches the reference's screens and elements), and asks a new agent, seeded per step,
    for one action; :func:`~mobileintent_gym.metrics.act2intent.action_matches` compares
    it with the reference action on that screen. Something that is no action is a mismatch.

    Raises:
        ReplayDivergedError: When a replayed step leads elsewhere than the reference did
            (a device that keeps its content between episodes cannot be teacher-forced).
    """
    device = env.unwrapped.device
    reference = reference_steps(env, user, task)
    matches = []
    for t, step in enumerate(reference):
        obs, info = env.reset(seed=seed, options={"user": user, "task": task})
        for k, past in enumerate(reference[:t]):
            obs, _, _, _, info = env.step(past.action)
            if not _same_step(info["event"], past.event):
                raise ReplayDivergedError(
                    f"replaying {task!r} for {user!r}: step {k + 1} ({past.action}) led to "
                    f"{info['event'].route_after!r} hitting {info['event'].hit}, the "
                    f"reference to {past.event.route_after!r} hitting {past.event.hit}")
        agent = make_agent(env, episode_seed(seed, user, f"{task}#{t}"))
        try:
            proposed = to_action(agent.act(obs, info))
        except InvalidActionError:
            matches.append(False)
            continue
        matches.append(action_matches(proposed, step.action, ScreenDump(device.hierarchy()),
                                      (device.width, device.height)))
    return matches

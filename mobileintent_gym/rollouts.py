"""Rollout loops: one episode, every user × task, and teacher-forced steps for SSR.

An agent is anything with ``act(observation, info)`` (:class:`~mobileintent_gym.agents.Agent`);
``make_agent(env, seed)`` builds a fresh one per rollout (or per teacher-forced step) with
its own seed, so rollouts differ and reruns repeat.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np

from mobileintent_gym.actions import Action, ActionLike, to_action
from mobileintent_gym.agents import Agent, OracleAgent
from mobileintent_gym.agents.base import AgentFactory, checked_agent
from mobileintent_gym.checks import check_items, is_integer
from mobileintent_gym.envs.checker import reset as checked_reset
from mobileintent_gym.errors import (
    InvalidActionError,
    InvalidArgumentError,
    MobileIntentError,
    brief,
)
from mobileintent_gym.metrics.execution import action_matches
from mobileintent_gym.metrics.pair import EpisodeResult
from mobileintent_gym.phone.events import StepEvent
from mobileintent_gym.phone.touch import ScreenDump
from mobileintent_gym.tasks import chosen_tasks
from mobileintent_gym.users.profile import seed_name
from mobileintent_gym.users.sets import UserSpec, env_users

__all__ = ["AgentFactory", "Episode", "EpisodeRecord", "ReferenceStep", "ReplayDivergedError",
           "StepRecord", "Transition", "episode_record", "episode_result", "episode_seed",
           "episodes", "evaluate", "record_episode", "reference_steps", "rollout", "run",
           "run_episode", "run_episodes", "step_record", "teacher_forced"]

# Called with each screen of an episode: before the first step, then after every step.
FrameHook = Callable[[np.ndarray], None]


class ReplayDivergedError(MobileIntentError):
    """A teacher-forced replay did not reach the reference trajectory's screen."""


class Transition(NamedTuple):
    """One step of a rollout: the agent's action, the env's reward and info."""

    action: ActionLike
    reward: float
    info: dict[str, Any]


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One step as the record of a run keeps it.

    Attributes:
        action: The action in its canonical string form, or ``repr`` of what the agent
            gave when the env refused it (no action, or one off the screen).
        route_before: Route of the screen the action was taken on.
        route_after: Route after it.
        reward: The step's reward (subgoals newly achieved).
        invalid: Why the env refused the action (nothing changed), else ``None``.
    """

    action: str
    route_before: str
    route_after: str
    reward: float
    invalid: str | None = None


@dataclass(frozen=True)
class EpisodeRecord:
    """One rollout: its scores' record, what the agent was told, and every step.

    Attributes:
        result: What the scores need (:class:`EpisodeResult`).
        seed: The seed of the env's reset and of the agent.
        instruction: The instruction the agent was given.
        target: Id of the task's target record.
        subgoals: Names of the task's subgoals, in order.
        steps: The steps, in order.
        turns: What the agent kept of its steps, for training: its ``episode_turns()``
            when it has that method (a language agent: each step's prompt and answer
            tokens and whether the answer was read), else empty.
    """

    result: EpisodeResult
    seed: int
    instruction: str
    target: str
    subgoals: tuple[str, ...]
    steps: tuple[StepRecord, ...]
    turns: tuple[Any, ...] = ()

    @property
    def actions(self) -> list[str]:
        """The actions in their string form (``invalid: …`` for those that were none)."""
        return [s.action if s.invalid is None else f"invalid: {s.action}" for s in self.steps]


def episode_seed(seed: int, user: str, task: str,
                 profiles_dir: str | os.PathLike[str] | None = None) -> int:
    """A seed for one rollout of ``task`` for ``user``, stable in every process.

    A user counts by its profile's user id (``users.profile.seed_name``, names looked up
    in ``profiles_dir`` first), so a name and its profile's path give the same rollouts,
    and a profile file gives them wherever it lies.

    Raises:
        UnknownProfileError: When ``user`` names no profile.
    """
    return seed_of(seed, seed_name(user, profiles_dir), task)


def seed_of(seed: int, user_id: str, task: str) -> int:
    """:func:`episode_seed` of a user known by its profile's id."""
    return zlib.crc32(f"{seed}:{user_id}:{task}".encode("utf-8", "surrogatepass"))


def rollout(env: gym.Env, agent: Agent, options: dict | None = None, seed: int = 0
            ) -> Iterator[Transition]:
    """Each step of one episode of ``agent``: its action, reward and info.

    The env is reset with ``seed`` and ``options`` first (a reset it refuses leaves it
    usable for the next episode); the episode ends when the env terminates or truncates it.
    """
    obs, info = checked_reset(env, seed=seed, options=options)
    done = False
    while not done:
        action = agent.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        yield Transition(action, float(reward), info)
        done = terminated or truncated


def episode_result(user: str, task: str, info: dict) -> EpisodeResult:
    """What the scores need of an episode, from the ``info`` of its last step."""
    return EpisodeResult(task, user, info["success"], info["subgoal_rewards"], info["contexts"],
                         info["subgoals_reached"])


def record_episode(env: gym.Env, agent: Agent, user: str, task: str, seed: int = 0,
                   frames: FrameHook | None = None) -> EpisodeRecord:
    """One rollout of ``agent`` on ``task`` for ``user``, recorded step by step.

    Args:
        env: An ``Act2Intent-Execute`` env (wrappers are looked through for the device).
        agent: The agent.
        user: The user whose phone it runs on.
        task: The task id.
        seed: Seed of the env's reset.
        frames: Called with the screen before the first step and after each step (for a
            device whose screens cannot be re-rendered later).
    """
    device = env.unwrapped.device
    acting = agent if frames is None else _Filmed(agent, device, frames)
    steps: list[StepRecord] = []
    for action, reward, info in rollout(env, acting, {"user": user, "task": task}, seed):
        steps.append(step_record(action, reward, info, steps, device))
    if frames is not None:
        frames(device.screenshot())
    turns = agent.episode_turns() if hasattr(agent, "episode_turns") else ()
    return episode_record(Episode(user, task, seed), info, steps, turns)


def step_record(action: ActionLike, reward: float, info: dict[str, Any],
                earlier: Sequence[StepRecord], device: Any) -> StepRecord:
    """One step as a record keeps it.

    Args:
        action: What the agent gave.
        reward: The step's reward.
        info: The step's info.
        earlier: The episode's steps before it (an action that was none stays on the
            route the last one reached).
        device: The env's device (read for the route of a first step that was no action).
    """
    event = info["event"]
    if event is None:
        route = earlier[-1].route_after if earlier else device.route()
        return StepRecord(repr(action), route, route, reward, info["invalid_action"])
    return StepRecord(event.action, event.route_before, event.route_after, reward)


def episode_record(episode: Episode, info: dict[str, Any], steps: Sequence[StepRecord],
                   turns: Sequence[Any] = ()) -> EpisodeRecord:
    """The record of ``episode``: the info of its last step, its steps, the agent's turns."""
    return EpisodeRecord(episode_result(episode.user, episode.task, info), episode.seed,
                         info["instruction"], info["target"], info["subgoals"], tuple(steps),
                         tuple(turns))


class _Filmed:
    """An agent that hands the screen it is asked on to a frame hook first."""

    def __init__(self, agent: Agent, device: Any, frames: FrameHook) -> None:
        self.agent, self.device, self.frames = agent, device, frames

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> ActionLike:
        self.frames(self.device.screenshot())
        return self.agent.act(observation, info)


def run_episode(env: gym.Env, agent: Agent, user: str, task: str, seed: int = 0
                ) -> tuple[EpisodeResult, list[str]]:
    """One rollout of ``agent`` on ``task`` for ``user``.

    Returns:
        The episode's result and the actions taken, in their string form.
    """
    record = record_episode(env, agent, user, task, seed)
    return record.result, record.actions


class Episode(NamedTuple):
    """One rollout to run: the user, the task and the seed of the env and agent."""

    user: str
    task: str
    seed: int


def episodes(users: Sequence[str], tasks: str | Iterable[str] | None, seed: int = 0,
             skip: Collection[tuple[str, str]] = (),
             profiles_dir: str | os.PathLike[str] | None = None) -> list[Episode]:
    """Every task for every user, each with its :func:`episode_seed`.

    User by user. Each rollout's seed depends on ``seed``, user and task only, so an
    episode does not depend on which others ran before it (a resumed run equals a whole
    one, and Ray actors give what one process gives). Pairs ``(user, task)`` in ``skip``
    are left out. ``tasks`` is what :func:`~mobileintent_gym.tasks.chosen_tasks` takes: one
    id, several (a task given twice runs once), or ``None`` for every task. User names are
    looked up in ``profiles_dir`` first, as the env running them does.

    Raises:
        InvalidArgumentError: For a ``seed`` that is no integer, ``users`` that are no
            sequence of names or paths (a set name is expanded by
            :func:`~mobileintent_gym.users.resolve_users`), or a ``skip`` that is no
            collection of pairs.
        UnknownTaskError: Naming a bad task id, before any episode runs.
        UnknownProfileError: Naming a user that names no profile, before any episode runs.
    """
    _check_seed(seed)
    check_items("users", users, lambda user: isinstance(user, str | os.PathLike),
                "a user's name or profile path")
    check_items("skip", skip, lambda pair: isinstance(pair, tuple) and len(pair) == 2,
                "a (user, task) pair", ordered=False)
    tasks = chosen_tasks(tasks)
    ids = {user: seed_name(user, profiles_dir) for user in users}
    return [Episode(user, task, seed_of(seed, ids[user], task)) for user in users
            for task in tasks if (user, task) not in skip]


def _check_seed(seed: Any) -> None:
    if not is_integer(seed):  # None or "7" gave the seeds of some other integer
        raise InvalidArgumentError(f"seed must be an integer, got {brief(seed)}")


def run(env: gym.Env, make_agent: AgentFactory, episode: Episode) -> EpisodeRecord:
    """One recorded rollout of ``episode`` with a fresh agent seeded by it.

    Raises:
        InvalidArgumentError: When ``make_agent`` returns something without ``act``.
    """
    agent = checked_agent(make_agent(env, episode.seed), f"make_agent {brief(make_agent)}")
    return record_episode(env, agent, *episode)


def run_episodes(env: gym.Env, make_agent: AgentFactory, users: UserSpec,
                 tasks: str | Iterable[str] | None, seed: int = 0,
                 skip: Collection[tuple[str, str]] = ()) -> Iterator[EpisodeRecord]:
    """Every task for every user, one rollout each (see :func:`episodes`), as they finish.

    ``users`` is anything :func:`~mobileintent_gym.users.resolve_users` takes (``"test"``,
    names, paths), looked up in the env's ``profiles_dir`` first; two that are one user
    (a name and a profile of the same ``user_id``) are refused, naming both
    (:func:`~mobileintent_gym.users.sets.env_users`).
    """
    profiles_dir = getattr(env.unwrapped, "profiles_dir", None)
    names = env_users(users, profiles_dir)
    return (run(env, make_agent, e) for e in episodes(names, tasks, seed, skip, profiles_dir))


def evaluate(env: gym.Env, make_agent: AgentFactory, users: UserSpec,
             tasks: str | Iterable[str] | None, seed: int = 0
             ) -> list[tuple[EpisodeResult, list[str]]]:
    """Every task for every user (see :func:`run_episodes`): results and action strings.

    An error the agent raises goes on to the caller, and the results so far with it:
    iterate :func:`run_episodes` to keep them.

    ``mobileintent_gym.distributed.evaluate_ray`` runs the same rollouts on Ray actors.
    """
    return [(r.result, r.actions) for r in run_episodes(env, make_agent, users, tasks, seed)]


@dataclass(frozen=True, slots=True)
class ReferenceStep:
    """One step of the oracle's trajectory: its action and the event it produced."""

    action: Action
    event: StepEvent


def reference_steps(env: gym.Env, user: str, task: str) -> list[ReferenceStep]:
    """The oracle's trajectory on ``task`` for ``user``."""
    steps = rollout(env, OracleAgent(env), {"user": user, "task": task})
    return [ReferenceStep(step.action, step.info["event"]) for step in steps]


def _same_step(replayed: StepEvent, reference: StepEvent) -> bool:
    return ((replayed.route_before, replayed.route_after, replayed.hit, replayed.visible)
            == (reference.route_before, reference.route_after, reference.hit,
                reference.visible))


def teacher_forced(env: gym.Env, make_agent: AgentFactory, user: str, task: str,
                   seed: int = 0) -> list[bool]:
    """Per step of the oracle's trajectory, whether the agent's action from there matches.

    Step t starts a fresh episode with a new agent, seeded per step, replays the
    reference's first t actions (checking each reaches the reference's screens and
    elements; an agent with ``teacher_force`` is told each, as its own), and asks the agent
    for one action; :func:`~mobileintent_gym.metrics.act2intent.action_matches` compares
    it with the reference action on that screen. Something that is no action is a mismatch.

    Raises:
        ReplayDivergedError: When a replayed step leads elsewhere than the reference did
            (a device that keeps its content between episodes cannot be teacher-forced).
        InvalidArgumentError: For a ``seed`` that is no integer, or a ``make_agent`` that
            makes something without ``act``.
        UnknownProfileError: When ``user`` names no profile (looked up in the env's
            ``profiles_dir`` first).
    """
    _check_seed(seed)
    device = env.unwrapped.device
    user_id = seed_name(user, getattr(env.unwrapped, "profiles_dir", None))
    reference = reference_steps(env, user, task)
    matches = []
    for t, step in enumerate(reference):
        step_seed = seed_of(seed, user_id, f"{task}#{t}")  # any integer seed gives one
        obs, info = checked_reset(env, seed=step_seed, options={"user": user, "task": task})
        agent = checked_agent(make_agent(env, step_seed), f"make_agent {brief(make_agent)}")
        told = getattr(agent, "teacher_force", None)
        for k, past in enumerate(reference[:t]):
            if told is not None:
                told(obs, info, past.action)
            obs, _, _, _, info = env.step(past.action)
            if not _same_step(info["event"], past.event):
                raise ReplayDivergedError(
                    f"replaying {task!r} for {user!r}: step {k + 1} ({past.action}) led to "
                    f"{info['event'].route_after!r} hitting {info['event'].hit}, the "
                    f"reference to {past.event.route_after!r} hitting {past.event.hit}")
        try:
            proposed = to_action(agent.act(obs, info))
        except InvalidActionError:
            matches.append(False)
            continue
        matches.append(action_matches(proposed, step.action, ScreenDump(device.hierarchy()),
                                      (device.width, device.height)))
    return matches

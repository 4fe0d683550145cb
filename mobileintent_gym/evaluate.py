"""``mobileintent-gym evaluate``: run an agent over users × tasks and print the PAIR scores."""

from __future__ import annotations

import argparse
import json
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

import gymnasium as gym

from mobileintent_gym.actions import Action
from mobileintent_gym.agents import AGENTS, Agent, OracleAgent
from mobileintent_gym.envs.execute import to_action
from mobileintent_gym.errors import InvalidActionError
from mobileintent_gym.metrics.act2intent import action_matches, step_success_rate
from mobileintent_gym.metrics.pair import EpisodeResult, pair_scores
from mobileintent_gym.phone.ui import Rect
from mobileintent_gym.tasks import task_ids
from mobileintent_gym.users import profile_names


def run_episode(env: gym.Env, agent: Agent, user: str, task: str, seed: int = 0
                ) -> tuple[EpisodeResult, list[str]]:
    """One rollout of ``agent`` on ``task`` for ``user``.

    Returns:
        The episode's result and the actions taken, in their string form.
    """
    obs, info = env.reset(seed=seed, options={"user": user, "task": task})
    actions: list[str] = []
    done = False
    while not done:
        action = agent.act(obs, info)
        obs, _, terminated, truncated, info = env.step(action)
        event = info["event"]
        actions.append(event.action if event is not None else f"invalid: {action!r}")
        done = terminated or truncated
    result = EpisodeResult(task, user, info["success"], info["subgoal_rewards"],
                           info["contexts"])
    return result, actions


def reference_steps(env: gym.Env, user: str, task: str) -> list[tuple[Action, Rect | None]]:
    """The oracle's actions on ``task`` and the bounds of the element each click hit."""
    obs, info = env.reset(seed=0, options={"user": user, "task": task})
    agent, steps, done = OracleAgent(env), [], False
    while not done:
        action = agent.act(obs, info)
        obs, _, terminated, truncated, info = env.step(action)
        hit = info["event"].hit
        steps.append((action, hit.bounds if hit is not None else None))
        done = terminated or truncated
    return steps


def teacher_forced(env: gym.Env, make_agent: Callable[[gym.Env, int], Agent], user: str,
                   task: str, seed: int = 0) -> list[bool]:
    """Per step of the oracle's trajectory, whether the agent's action from there matches.

    Step t starts from a fresh episode replayed through the reference's first t actions;
    the agent (a new one, seeded with ``seed``) proposes one action, which is compared with
    the reference action by :func:`~mobileintent_gym.metrics.act2intent.action_matches`.
    An action that is not an action is a mismatch.
    """
    base = env.unwrapped
    reference = reference_steps(env, user, task)
    matches = []
    for t, (action, bounds) in enumerate(reference):
        obs, info = env.reset(seed=seed, options={"user": user, "task": task})
        for past, _ in reference[:t]:
            obs, _, _, _, info = env.step(past)
        try:
            proposed = to_action(make_agent(env, seed).act(obs, info))
        except InvalidActionError:
            matches.append(False)
            continue
        matches.append(action_matches(proposed, action, bounds,
                                      (base.device.width, base.device.height)))
    return matches


def episode_seed(seed: int, user: str, task: str) -> int:
    """A seed for one (user, task) rollout, stable in every process."""
    return zlib.crc32(f"{seed}:{user}:{task}".encode())


def evaluate(env: gym.Env, make_agent: Callable[[gym.Env, int], Agent], users: Sequence[str],
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


def _main(args: argparse.Namespace) -> int:
    users = args.users or (profile_names(args.profiles) if args.profiles else None)
    env = gym.make("Act2Intent-Execute-v0", device=args.device, users=users or None,
                   observation=("instruction",), load_state=not args.device_has_state,
                   profiles_dir=args.profiles)
    base = env.unwrapped
    tasks = task_ids(tuple(args.templates)) if args.templates else base.tasks
    runs = evaluate(env, AGENTS[args.agent], base.users, tasks, args.seed)
    ssr = None
    if args.teacher_forced:
        ssr = step_success_rate([
            teacher_forced(env, AGENTS[args.agent], user, task, episode_seed(args.seed, user, task))
            for user in base.users for task in tasks])
    env.close()
    for result, actions in runs:
        print(f"{result.user:<12} {result.task:<28} success={int(result.success)} "
              f"subgoals={''.join(str(int(r)) for r in result.rewards)} steps={len(actions)}")
    scores = pair_scores([r for r, _ in runs])
    if ssr is not None:
        scores["ssr"] = ssr
    print(" ".join(f"{k}={'n/a' if v is None else f'{v:.3f}'}" for k, v in scores.items()))
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        episodes = [{"user": r.user, "task": r.task, "success": r.success,
                     "rewards": r.rewards, "contexts": r.contexts, "actions": a}
                    for r, a in runs]
        out.write_text(json.dumps({"scores": scores, "episodes": episodes}, indent=1))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``evaluate`` sub-command."""
    parser = subparsers.add_parser("evaluate", help="run an agent over users x tasks")
    parser.add_argument("--device", default="sim", help="sim, adb:<serial> or appium:<url>")
    parser.add_argument("--agent", choices=sorted(AGENTS), default="oracle")
    parser.add_argument("--users", nargs="*", help="user profiles (default: every profile in "
                        "--profiles, else the built-in ones)")
    parser.add_argument("--templates", nargs="*", help="template ids (default: all)")
    parser.add_argument("--profiles", help="folder of PersonaLens profiles")
    parser.add_argument("--device-has-state", action="store_true",
                        help="the device already holds the user's content (serve-adb --user)")
    parser.add_argument("--teacher-forced", action="store_true",
                        help="also score SSR: the agent's action at each step of the oracle's "
                        "trajectory, from that step's screen")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="write scores and episodes to this JSON file")
    parser.set_defaults(func=_main)

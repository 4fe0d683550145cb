"""``mobileintent-gym evaluate``: run an agent over users × tasks and print the PAIR scores."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import gymnasium as gym

from mobileintent_gym.agents import AGENTS
from mobileintent_gym.metrics.execution import step_success_rate
from mobileintent_gym.metrics.pair import EpisodeResult, pair_scores
from mobileintent_gym.rollouts import evaluate, teacher_forced
from mobileintent_gym.tasks import task_ids
from mobileintent_gym.users import profile_names


def _users(args: argparse.Namespace) -> list[str] | None:
    if args.users:
        return args.users
    if args.profiles is None:
        return None
    if not Path(args.profiles).is_dir():
        raise SystemExit(f"evaluate: --profiles {args.profiles!r} is not a folder")
    return list(profile_names(args.profiles)) or None


def _subgoals(result: EpisodeResult) -> str:
    """Each subgoal's reward, or ``.`` where its entry context was not reached."""
    return "".join(str(int(r)) if seen else "." for r, seen in zip(result.rewards,
                                                                    result.reached, strict=True))


def _report(runs: list, scores: dict, out: str | None) -> None:
    for result, actions in runs:
        print(f"{result.user:<12} {result.task:<28} success={int(result.success)} "
              f"subgoals={_subgoals(result)} steps={len(actions)}")
    print(" ".join(f"{k}={'n/a' if v is None else f'{v:.3f}'}" for k, v in scores.items()))
    if out:
        path = Path(out)
        path.parent.mkdir(parents=True, exist_ok=True)
        episodes = [{**dataclasses.asdict(r), "actions": a} for r, a in runs]
        path.write_text(json.dumps({"scores": scores, "episodes": episodes}, indent=1))


def _main(args: argparse.Namespace) -> int:
    if args.teacher_forced and args.device_has_state:
        raise SystemExit("evaluate: --teacher-forced replays each step from a fresh episode, "
                         "which a device that keeps its content (--device-has-state) cannot")
    env = gym.make("Act2Intent-Execute-v0", device=args.device, users=_users(args),
                   observation=("instruction",), load_state=not args.device_has_state,
                   profiles_dir=args.profiles)
    base = env.unwrapped
    tasks = task_ids(tuple(args.templates)) if args.templates else base.tasks
    make_agent = AGENTS[args.agent]
    runs = evaluate(env, make_agent, base.users, tasks, args.seed)
    scores = pair_scores([r for r, _ in runs], base.users)
    if args.teacher_forced:
        scores["ssr"] = step_success_rate([teacher_forced(env, make_agent, user, task, args.seed)
                                           for user in base.users for task in tasks])
    env.close()
    _report(runs, scores, args.out)
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

"""How many touch targets the simulated apps' screens list: what ``max_elements`` must hold.

Steps ``ElementActions`` with masked random actions (seed 0, all built-in users, tasks drawn
by the env) and prints the most targets met on one screen and the share of screens with
more than ``--slots``; then the most on any screen of every task's oracle path for every
built-in user (what the default slots must hold for every task to be solvable).

Usage: ``python benchmarks/element_slots.py [--size 1080x2400] [--steps 2000] [--slots 24]``
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents import OracleAgent
from mobileintent_gym.console import positive_int
from mobileintent_gym.tasks import task_ids
from mobileintent_gym.users import builtin_users
from mobileintent_gym.wrappers import ElementActions
from mobileintent_gym.wrappers.element_actions import touchable_points


def main() -> None:
    """Walk the apps and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1080x2400",
                        help="screen size, WIDTHxHEIGHT (default 1080x2400)")
    parser.add_argument("--steps", type=positive_int, default=2000,
                        help="masked random actions taken (default 2000)")
    parser.add_argument("--slots", type=positive_int, default=24,
                        help="element slots whose overflow is counted (default 24)")
    args = parser.parse_args()
    env = ElementActions(gym.make("Act2Intent-Execute-v0", device=f"sim:{args.size}",
                                  observation=("instruction",), users="all"), 64)
    rng, counts = np.random.default_rng(0), []
    env.reset(seed=0)
    for _ in range(args.steps):
        counts.append(len(touchable_points(env.unwrapped.device.hierarchy())))
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    print(f"{args.size}: {len(counts)} screens, at most {max(counts)} targets, "
          f"{np.mean(np.array(counts) > args.slots):.1%} with more than {args.slots}")
    most, where = _oracle_most(env.unwrapped)
    env.close()
    print(f"{args.size}: every task's oracle path, every user: at most {most} targets "
          f"({where})")


def _oracle_most(env: gym.Env) -> tuple[int, str]:
    """The most targets on a screen of any oracle path, and the first screen with them."""
    most, where = 0, ""
    for user in builtin_users():
        for task in task_ids():
            obs, info = env.reset(seed=0, options={"user": user, "task": task})
            agent, done = OracleAgent(env), False
            while not done:
                count = len(touchable_points(env.device.hierarchy()))
                if count > most:
                    most, where = count, f"{user}, {task}, {env.device.route()}"
                obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
                done = terminated or truncated
    return most, where


if __name__ == "__main__":
    main()

"""How many touch targets the simulated apps' screens list: what ``max_elements`` must hold.

Steps ``ElementActions`` with masked random actions (seed 0, all built-in users, tasks drawn
by the env) and prints the most targets met on one screen and the share of screens with
more than ``--slots``.

Usage: ``python benchmarks/element_slots.py [--size 1080x2400] [--steps 2000] [--slots 24]``
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.wrappers import ElementActions
from mobileintent_gym.wrappers.element_actions import touchable_points


def main() -> None:
    """Walk the apps and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1080x2400")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--slots", type=int, default=24)
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
    env.close()
    print(f"{args.size}: {len(counts)} screens, at most {max(counts)} targets, "
          f"{np.mean(np.array(counts) > args.slots):.1%} with more than {args.slots}")


if __name__ == "__main__":
    main()

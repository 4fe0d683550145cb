"""Baseline scores of the Understand, Predict and Session envs (the README's table).

Runs each baseline over the same episodes (every demo user; windows / days drawn with fixed
seeds) and prints mean scores:

* Understand: Acc-G, Acc-S, BLEU-4 and the reward, per baseline.
* Predict: Acc-C, Acc-S, BLEU-4 over all predictions, and push rate and Acc-C with the
  confidence fallback at 0.60 and 0.80.
* Session: share of intentions completed, mean subgoal reward per intention.

Usage: python benchmarks/intent_baselines.py [--users demo-ana demo-ben] [--episodes 8]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents import OracleAgent, RandomAgent
from mobileintent_gym.agents.guided import GuidanceAgent
from mobileintent_gym.agents.predict import (
    LastIntentionPredictor,
    MostFrequentPredictor,
    OraclePredictor,
    RandomPredictor,
)
from mobileintent_gym.agents.understand import (
    AppSwitchSegmenter,
    OracleSegmenter,
    RandomSegmenter,
)


def understand(users: list[str], episodes: int) -> None:
    env = gym.make("Act2Intent-Understand-v0", users=users, days=2)
    print("Understand (window of 5 intentions)      Acc-G  Acc-S  BLEU-4 reward")
    for name, make in (("random", RandomSegmenter), ("app switches", AppSwitchSegmenter),
                       ("oracle", OracleSegmenter)):
        rows = []
        for seed in range(episodes):
            obs, info = env.reset(seed=seed)
            _, reward, _, _, info = env.step(make(env, seed).act(obs, info))
            rows.append((info["acc_g"], info["acc_s"], info["bleu4"], reward))
        print(f"  {name:<38}" + " ".join(f"{v:6.3f}" for v in np.mean(rows, axis=0)))


def predict(users: list[str], episodes: int) -> None:
    env = gym.make("Act2Intent-Predict-v0", users=users)
    print("Predict (next intention, n = 50)         Acc-C  Acc-S  BLEU-4 | push@.6 Acc-C@.6 "
          "| push@.8 Acc-C@.8")
    for name, make in (("random", RandomPredictor), ("last intention", LastIntentionPredictor),
                       ("most frequent at this hour", MostFrequentPredictor),
                       ("oracle", OraclePredictor)):
        rows = []
        for seed in range(episodes):
            obs, info = env.reset(seed=seed)
            agent, done = make(env, seed), False
            while not done:
                obs, _, done, _, info = env.step(agent.act(obs, info))
            ep = info["episode"]
            rows.append((ep["all"]["acc_c"], ep["all"]["acc_s"], ep["all"]["bleu4"],
                         ep["0.60"]["push_rate"], ep["0.60"]["acc_c"],
                         ep["0.80"]["push_rate"], ep["0.80"]["acc_c"]))
        values = [_mean(column) for column in zip(*rows, strict=True)]
        print(f"  {name:<38}" + " ".join(values[:3])
              + f" | {values[3]} {values[4]} | {values[5]} {values[6]}")


def _mean(values: tuple[float | None, ...]) -> str:
    """The mean of the episodes' values that are defined (an Acc-C at a threshold is not
    where an episode pushed nothing), as a cell; ``n/a`` when none is."""
    defined = [v for v in values if v is not None]
    return f"{np.mean(defined):6.3f}" if defined else "   n/a"


def session(users: list[str], episodes: int) -> None:
    env = gym.make("Act2Intent-Session-v0", users=users, observation=("instruction",),
                   guidance=True)
    print("Session (a day of intentions)            done   reward/intention")
    for name, make in (("random", RandomAgent), ("guidance replay", GuidanceAgent),
                       ("oracle", lambda e, s: OracleAgent(e))):
        done_share, rewards = [], []
        for seed in range(episodes):
            obs, info = env.reset(seed=seed)
            agent, total, done = make(env, seed), 0.0, False
            while not done:
                obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
                total, done = total + reward, terminated or truncated
            done_share.append(np.mean(info["segment_success"]))
            rewards.append(total / info["segments"])
        print(f"  {name:<38}{np.mean(done_share):6.3f} {np.mean(rewards):6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", nargs="+", default=["demo"])
    parser.add_argument("--episodes", type=int, default=8)
    args = parser.parse_args()
    began = time.perf_counter()
    understand(args.users, args.episodes)
    predict(args.users, args.episodes)
    session(args.users, args.episodes)
    print(f"({time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()

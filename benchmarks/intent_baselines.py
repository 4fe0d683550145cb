"""Baseline scores of the Understand, Predict and Session envs (the README's table).

Runs each baseline over the same episodes (every demo user; windows / days drawn with fixed
seeds) and prints mean scores:

* Understand: Acc-G, Acc-S, BLEU-4 and the reward, per baseline.
* Predict: Acc-C, Acc-S, BLEU-4 over all predictions, and push rate and Acc-C with the
  confidence fallback at 0.60 and 0.80, each over the predictions of all episodes together
  (not a mean of the episodes' scores, which would weigh a day of one prediction as one of
  ten).
* Session: share of intentions completed and subgoal reward per intention, over the
  intentions of all episodes together (the study's SR is a share of intentions; a mean of
  the days' shares would weigh a day of four intentions as one of seven).

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
from mobileintent_gym.console import Repeated, positive_int
from mobileintent_gym.rollouts import rollout


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
        days = [list(rollout(env, make(env, seed), seed=seed))[-1].info["day_scores"]
                for seed in range(episodes)]
        cells = [_pooled([day["all"] for day in days], key) for key in ("acc_c", "acc_s", "bleu4")]
        for threshold in ("0.60", "0.80"):
            pushed = sum(day[threshold]["pushed"] for day in days)
            cells += [f"{pushed / sum(day['all']['pushed'] for day in days):6.3f}",
                      _pooled([day[threshold] for day in days], "acc_c")]
        print(f"  {name:<38}" + " ".join(cells[:3])
              + f" | {cells[3]} {cells[4]} | {cells[5]} {cells[6]}")


def _pooled(scores: list[dict], key: str) -> str:
    """``key`` over the pushed predictions of every day together, as a cell.

    A day's score is the mean over its pushed predictions, so it weighs by how many it
    pushed; ``n/a`` when no day pushed any.
    """
    pushed = sum(day["pushed"] for day in scores)
    if not pushed:
        return "   n/a"
    return f"{sum(day[key] * day['pushed'] for day in scores if day['pushed']) / pushed:6.3f}"


def session(users: list[str], episodes: int) -> None:
    env = gym.make("Act2Intent-Session-v0", users=users, observation=("instruction",),
                   guidance=True)
    print("Session (a day of intentions)            done   reward/intention")
    for name, make in (("random", RandomAgent), ("guidance replay", GuidanceAgent),
                       ("oracle", lambda e, s: OracleAgent(e))):
        done = rewards = intentions = 0  # over every day's intentions together
        for seed in range(episodes):
            steps = list(rollout(env, make(env, seed), seed=seed))
            info = steps[-1].info
            done += sum(info["segment_success"])
            rewards += sum(step.reward for step in steps)
            intentions += info["segments"]
        print(f"  {name:<38}{done / intentions:6.3f} {rewards / intentions:6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", nargs="+", action=Repeated, default=["demo"],
                        help="user sets, profile names or paths (default: the demo set)")
    parser.add_argument("--episodes", type=positive_int, default=8,
                        help="episodes (seeds 0 to N-1) per env and baseline (default 8)")
    args = parser.parse_args()
    began = time.perf_counter()
    understand(args.users, args.episodes)
    predict(args.users, args.episodes)
    session(args.users, args.episodes)
    print(f"({time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()

"""Baseline scores of the Proactive and Assist envs (the README's table).

Runs each baseline over the same episodes (days of the four demo users drawn with fixed seeds)
and prints:

* Proactive: mean over days of precision, recall, F1, FPS_norm and S_final, and the mean
  numbers of turns, noise turns and false pushes (fp) per day; and the memory accuracy,
  plain and balanced, of answering UPDATE on every turn (most turns' operation).
* Assist: per day, proposals, accepted and rejected ones and user steps saved (means);
  over all days, the false-alarm rate (rejected / proposals), the end-to-end success of
  accepted intentions, the share of user steps saved and of intentions done.

Usage: python benchmarks/proactive_baselines.py [--users demo-ana] [--episodes 8]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents.assist import ASSISTANTS
from mobileintent_gym.agents.proactive import MostFrequentProposer, NeverPropose, OracleProposer
from mobileintent_gym.console import Repeated, positive_int
from mobileintent_gym.envs.proposals import answer
from mobileintent_gym.rollouts import rollout


def _ratio(num: float, den: float) -> str:
    return f"{num / den:6.3f}" if den else "   n/a"


def proactive(users: list[str], episodes: int) -> None:
    env = gym.make("Act2Intent-Proactive-v0", users=users)
    print("Proactive (N = 10)           precision recall    F1  FPS_norm S_final | turns noise "
          "fp")
    for name, make in (("never propose", lambda e: NeverPropose()),
                       ("always the most frequent", lambda e: MostFrequentProposer()),
                       ("oracle", OracleProposer)):
        rows = []
        for seed in range(episodes):
            ep = list(rollout(env, make(env), seed=seed))[-1].info["day_scores"]
            rows.append((ep["precision"], ep["recall"], ep["f1"], ep["fps_norm"],
                         ep["s_final"], ep["turns"], ep["noise"], ep["fp"]))
        v = np.mean(rows, axis=0)
        print(f"  {name:<27}" + " ".join(f"{x:7.3f}" for x in v[:5])
              + f" | {v[5]:5.1f} {v[6]:5.1f} {v[7]:5.1f}")
    days = [list(rollout(env, AlwaysUpdate(), seed=seed))[-1].info["day_scores"]
            for seed in range(episodes)]
    plain, balanced = (np.mean([d[k] for d in days]) for k in ("memory_accuracy",
                                                                "memory_balanced_accuracy"))
    print(f"  memory, always UPDATE (no intent): accuracy {plain:.3f}, balanced {balanced:.3f}")


class AlwaysUpdate:
    """Proposes nothing and answers the memory operation most turns have: UPDATE."""

    def act(self, observation: dict, info: dict) -> str:
        """``{"Intent": null, "Memory": "UPDATE"}``."""
        return answer(None, "UPDATE")


def assist(users: list[str], episodes: int) -> None:
    env = gym.make("Act2Intent-Assist-v0", users=users)
    print("Assist (per day)             proposals accepted rejected saved | false-alarm "
          "accepted-success saved-share done")
    for name, make in ASSISTANTS.items():
        eps = [list(rollout(env, make(env, seed), seed=seed))[-1].info["day_scores"]
               for seed in range(episodes)]
        total = {k: sum(e[k] for e in eps) for k in ("proposals", "accepted", "rejected",
                                                      "steps_saved", "by_hand_steps",
                                                      "intentions", "intentions_done")}
        executed = sum((e["accepted_success"] or 0) * e["accepted"] for e in eps)
        print(f"  {name:<27}" + " ".join(f"{total[k] / episodes:8.2f}" for k in
                                          ("proposals", "accepted", "rejected", "steps_saved"))
              + f" | {_ratio(total['rejected'], total['proposals'])}      "
              + f"{_ratio(executed, total['accepted'])}         "
              + f"{_ratio(total['steps_saved'], total['by_hand_steps'])}  "
              + _ratio(total["intentions_done"], total["intentions"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", nargs="+", action=Repeated, default=["demo"],
                        help="user sets, profile names or paths (default: the demo set)")
    parser.add_argument("--episodes", type=positive_int, default=8,
                        help="days (seeds 0 to N-1) per env and baseline (default 8)")
    args = parser.parse_args()
    began = time.perf_counter()
    proactive(args.users, args.episodes)
    assist(args.users, args.episodes)
    print(f"({time.perf_counter() - began:.0f} s)")


if __name__ == "__main__":
    main()

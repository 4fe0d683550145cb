"""How much dearer work is right after the process slept: the machine's cost of waking.

A vector env's parent and workers sleep between steps (the parent while the workers step,
a worker until its next action comes), so each runs its work just after waking. Where the
cores lose their caches or clock while idle (a VM whose idle vCPUs halt and are handed to
other guests), that work costs more CPU than the same work back to back, and a vector env
cannot reach what independent processes get. This times, in the thread's CPU time:

- ``parent``: the parent's share of one sub-env step — pickling a step command,
  unpickling a real step's reply and batching its ``info`` as Gymnasium's vector envs do
  — the median of ``--calls`` calls;
- ``env``: one step of ``scale.py``'s workload (seeded random actions at 1080x2400,
  resets included), the mean over the workload;

back to back and after sleeping each of ``--pauses`` ms, in ``--rounds`` interleaved
rounds, and prints JSON: per pause the best round's figure and its ratio to back to back.

Usage: ``python benchmarks/wake_penalty.py [--rounds 3] [--pauses 0.5 2] [--steps 300]``
"""

from __future__ import annotations

import argparse
import functools
import json
import pickle
import statistics
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
from scale import ENV, seeded_actions

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.console import Repeated, positive_int


def cpu_us(work: Callable[[], Any], pause: float) -> tuple[Any, float]:
    """``work()``'s result and this thread's CPU time in it (µs), after sleeping ``pause`` s."""
    if pause:
        time.sleep(pause)
    start = time.thread_time_ns()
    result = work()
    return result, (time.thread_time_ns() - start) / 1e3


def parent_work(env: gym.Env, action: dict) -> Callable[[], None]:
    """One sub-env step's work in the parent, on a real reply of ``env``."""
    observation, *rest, info = env.step(action)
    reply = pickle.dumps(("ok", ({"instruction": observation["instruction"]}, *rest, info)),
                         protocol=pickle.HIGHEST_PROTOCOL)
    batcher = gym.vector.SyncVectorEnv([lambda: env])  # for Gymnasium's own _add_info

    def work() -> None:
        pickle.dumps(("step", (1, action)), protocol=pickle.HIGHEST_PROTOCOL)
        info = pickle.loads(reply)[1][-1]
        batcher._add_info({}, info, 0)

    return work


def env_steps(env: gym.Env, actions: list, pause: float) -> float:
    """Mean CPU µs per call over the workload, each call after sleeping ``pause``."""
    env.reset(seed=0)
    done, total = False, 0.0
    for action in actions:
        if done:
            spent = cpu_us(env.reset, pause)[1]
            done = False
        else:
            outcome, spent = cpu_us(functools.partial(env.step, action), pause)
            done = outcome[2] or outcome[3]
        total += spent
    return total / len(actions)


def main() -> None:
    """Measure and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=positive_int, default=3,
                        help="interleaved rounds; the best is kept (default 3)")
    parser.add_argument("--pauses", type=float, nargs="+", action=Repeated, default=[0.5, 2.0],
                        help="sleeps before each call, ms")
    parser.add_argument("--steps", type=positive_int, default=300, help="env steps per round")
    parser.add_argument("--calls", type=positive_int, default=300, help="parent calls per round")
    args = parser.parse_args()
    if any(not 0 < pause <= 100 for pause in args.pauses):
        parser.error(f"--pauses must be in (0, 100] ms, got {args.pauses}")
    env = gym.make(ENV)
    actions = seeded_actions(env.action_space, args.steps)
    env.reset(seed=0)
    work = parent_work(env, actions[0])
    env_steps(env, actions, 0.0)  # untimed: fills the renderer's caches
    pauses = [0.0, *(pause / 1e3 for pause in args.pauses)]
    figures: dict[str, dict[float, list[float]]] = {"parent_us": {}, "env_step_us": {}}
    for _ in range(args.rounds):
        for pause in pauses:
            figures["parent_us"].setdefault(pause, []).append(statistics.median(
                cpu_us(work, pause)[1] for _ in range(args.calls)))
            figures["env_step_us"].setdefault(pause, []).append(
                env_steps(env, actions, pause))
    env.close()
    result = {}
    for name, by_pause in figures.items():
        hot = min(by_pause[0.0])
        result[name] = {f"{pause * 1e3:g} ms": {"us": round(min(times), 1),
                                                 "ratio": round(min(times) / hot, 2)}
                        for pause, times in by_pause.items()}
    print(json.dumps({"rounds": args.rounds, **result}, indent=1))


if __name__ == "__main__":
    main()

"""What batching one step's ``info`` costs the vector env's parent, per sub-env step.

:class:`~mobileintent_gym.envs.vector.SharedMemoryVectorEnv` batches its sub-envs'
``info`` with :func:`mobileintent_gym.envs.vector_info.batch_infos` (a whole step at
once), which gives what :func:`~mobileintent_gym.envs.vector_info.add_info` gives called
for one sub-env after another (also timed); Gymnasium's vector envs batch with
``VectorEnv._add_info`` (the baseline, timed in the same run). All batch a real
Execute step's ``info`` (device ``sim:540x1200``, user demo-ana, after ``PRESS[HOME]``)
into ``--envs`` sub-envs, ``--batches`` times per round; the best of ``--rounds`` rounds
is printed as JSON in microseconds per sub-env step, with the ratio to the baseline.

Usage: ``python benchmarks/vector_info.py [--envs 8] [--batches 2000] [--rounds 9]``
"""

from __future__ import annotations

import argparse
import json
import timeit
from typing import Any

import gymnasium as gym
from gymnasium.vector.vector_env import VectorEnv

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.console import positive_int
from mobileintent_gym.envs.vector_info import add_info, batch_infos


def step_info() -> dict[str, Any]:
    """The ``info`` of one Execute step."""
    env = gym.make("Act2Intent-Execute-v0", device="sim:540x1200", users=["demo-ana"])
    env.reset(seed=0)
    info = env.step("PRESS[HOME]")[4]
    env.close()
    return info


def per_step(batch: Any, envs: int, batches: int, rounds: int) -> float:
    """Best round's microseconds per sub-env step of ``batch`` (one call per batch)."""
    best = min(timeit.repeat(batch, number=batches, repeat=rounds))
    return best / batches / envs * 1e6


def main() -> None:
    """Time both batchings and print the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=positive_int, default=8,
                        help="sub-envs batched (default 8)")
    parser.add_argument("--batches", type=positive_int, default=2000,
                        help="batches per round (default 2000)")
    parser.add_argument("--rounds", type=positive_int, default=9,
                        help="rounds; the fastest is kept (default 9)")
    args = parser.parse_args()
    info, envs = step_info(), args.envs
    holder = type("Vector", (), {"num_envs": envs})()

    def ours() -> None:
        out: dict[str, Any] = {}
        for index in range(envs):
            out = add_info(out, info, index, envs, set())

    def at_once() -> None:
        batch_infos([info] * envs, set())

    def gymnasium() -> None:
        out: dict[str, Any] = {}
        for index in range(envs):
            out = VectorEnv._add_info(holder, out, info, index)

    base = per_step(gymnasium, envs, args.batches, args.rounds)
    mine = per_step(ours, envs, args.batches, args.rounds)
    whole = per_step(at_once, envs, args.batches, args.rounds)
    print(json.dumps({"keys": len(info), "envs": envs, "gymnasium_us": round(base, 1),
                      "add_info_us": round(mine, 1), "ratio": round(mine / base, 2),
                      "batch_infos_us": round(whole, 1),
                      "batch_infos_ratio": round(whole / base, 2)}))


if __name__ == "__main__":
    main()

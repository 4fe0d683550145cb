"""The vector env's own cost: CPU the parent process spends per sub-env step.

With many workers the parent (reading the workers' answers, batching them, sending the
next actions) is the part that does not run in parallel: at P µs of CPU per sub-env
step it can pass at most 1e6/P steps/s, whatever the number of cores. This measures P for
lockstep ``step()`` and for pool stepping (``send``/``recv(batch)``, sub-envs sent their
next actions as soon as they come back), and how long batching frames that are not
consecutive rows takes into new memory and into memory written before (what ``recv``
copies when the sub-envs that finished first are not neighbours).

Usage: ``python benchmarks/vector_parent.py [--workers 16] [--batch 8] [--steps 200]
[--device sim]`` (``--batch 0``: lockstep ``step()``). Prints JSON. The workers' env steps
the built-in users with seeded random actions; only the parent's CPU time is reported, so
a machine with fewer cores than workers still measures it (their contention aside).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from gymnasium.vector.utils import concatenate, create_empty_array

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.envs.vector import SharedMemoryVectorEnv, make_vector

ROUNDS = 3


def batched(envs: SharedMemoryVectorEnv, actions: list) -> dict:
    """``actions`` batched for as many sub-envs."""
    space = envs.single_action_space
    return concatenate(space, actions, create_empty_array(space, len(actions)))


def parent_cpu(envs: SharedMemoryVectorEnv, batch: int, steps: int, actions: list) -> float:
    """The parent's CPU µs per sub-env step over ``steps`` steps of every sub-env."""
    n, taken = envs.num_envs, 0
    start = time.process_time()
    if not batch:
        for t in range(steps):
            envs.step(batched(envs, [actions[(t + i) % len(actions)] for i in range(n)]))
        return (time.process_time() - start) / (steps * n) * 1e6
    envs.send(batched(envs, actions[:n]))
    while taken < steps * n:
        ids = envs.recv(batch)[4]["env_id"]
        taken += len(ids)
        envs.send(batched(envs, [actions[(taken + i) % len(actions)]
                                 for i in range(len(ids))]), ids)
    envs.recv()
    return (time.process_time() - start) / taken * 1e6


def gather_ms(frame: tuple[int, ...], count: int) -> dict:
    """Best of five: ms to batch ``count`` frames into a new array, and into reused memory.

    Each new array is made while the previous one is still held (as a caller holds its
    latest observation), as ``recv`` made them before it kept memory for them: from 32 MB
    on, glibc maps every new array afresh and each page is faulted in as it is first
    written; a smaller one may come from memory the allocator had freed, and cost less.
    """
    rows = np.random.default_rng(0).integers(0, 255, (2 * count, *frame), np.uint8)
    found = [rows[2 * k] for k in range(count)]
    reused = np.empty((count, *frame), np.uint8)
    figures = {}
    for name, out in (("new_memory_ms", None), ("reused_memory_ms", reused)):
        times, held = [], [None, None]  # the latest two batches
        for k in range(5):
            start = time.perf_counter()
            held[k % 2] = np.stack(found, out=out)
            times.append((time.perf_counter() - start) * 1e3)
        figures[name] = round(min(times), 2)
    return figures


def main() -> None:
    """Measure and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, default=16)
    parser.add_argument("--batch", type=int, default=8, help="recv batch size; 0: step()")
    parser.add_argument("--steps", type=int, default=200, help="steps of every sub-env")
    parser.add_argument("--device", default="sim")
    args = parser.parse_args()
    envs = make_vector("Act2Intent-Execute-v0", args.workers, device=args.device)
    try:
        space = envs.single_action_space
        space.seed(0)
        actions = [space.sample() for _ in range(97)]
        envs.reset(seed=0)
        rounds = [parent_cpu(envs, args.batch, args.steps, actions) for _ in range(ROUNDS)]
        frame = envs.single_observation_space["screenshot"].shape
    finally:
        envs.close()
    print(json.dumps({
        "workers": args.workers, "mode": f"recv({args.batch})" if args.batch else "step()",
        "device": args.device, "parent_cpu_us_per_step": [round(r) for r in rounds],
        "parent_bound_steps_per_s": round(1e6 / min(rounds)),
        "gather": {"frames": args.batch or args.workers, **gather_ms(
            frame, args.batch or args.workers)}}, indent=1))


if __name__ == "__main__":
    main()

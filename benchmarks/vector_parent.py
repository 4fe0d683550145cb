"""The vector env's own cost: CPU per sub-env step in the parent and in each worker.

With many workers the parent (reading the workers' answers, batching them, sending the
next actions) is the part that does not run in parallel: at P µs of CPU per sub-env
step it can pass at most 1e6/P steps/s, whatever the number of cores. A worker's step
costs more CPU than the same env's step alone (waiting and waking on its pipe, pickling),
which the env alone in this process, stepping the same workload just before, shows. This
measures both for lockstep ``step()`` and for pool stepping (``send``/``recv(batch)``),
on ``scale.py``'s workload (seeded random actions, batched beforehand, at 1080x2400), and
how long batching frames that are not consecutive rows takes into new memory and into
memory written before (what ``recv`` copies when the sub-envs that finished first are not
neighbours), and what one wait for the workers' answers costs when every pipe holds one.

Usage: ``python benchmarks/vector_parent.py [--workers 16] [--batch 8] [--steps 200]
[--repeats 2] [--envs-per-worker 1] [--gather-threads T]`` (``--batch 0``: lockstep
``step()``; with k sub-envs per worker, ``--workers`` × k sub-envs; T defaults to the vector
env's own default). Prints JSON. CPU times are each
process's own (Linux: workers' from /proc), over every run (the untimed one included), so
a machine with fewer cores than workers still measures them, their contention aside.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import time
import timeit
from pathlib import Path

import gymnasium as gym
import numpy as np
from scale import ENV, pool_rate, prebuild, seeded_actions, single_rate, vector_rate

from mobileintent_gym.console import count_int, positive_int
from mobileintent_gym.envs.vector import SharedMemoryVectorEnv, make_vector
from mobileintent_gym.envs.vector_calls import CtrlC
from mobileintent_gym.envs.vector_gather import FrameGather, default_threads


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process ``pid`` (Linux: /proc/<pid>/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stepped(envs: SharedMemoryVectorEnv, batch: int, actions: list, repeats: int) -> dict:
    """Steps/s of the sub-envs, and the CPU the parent spent per sub-env step and each
    worker per step of its sub-envs."""
    pids = [process.pid for process in envs._processes]
    per_worker = envs.num_envs // len(pids)
    parent, workers = time.process_time(), [cpu_seconds(pid) for pid in pids]
    rate = (pool_rate(envs, actions, repeats, batch) if batch
            else vector_rate(envs, actions, repeats))
    per_env = (repeats + 1) * len(actions)  # best_of's untimed run, then the repeats
    return {"steps_per_s": round(rate),
            "parent_cpu_us_per_step": round(
                (time.process_time() - parent) / (per_env * envs.num_envs) * 1e6),
            "worker_cpu_ms_per_step": [round((cpu_seconds(pid) - was) / (per_env * per_worker)
                                             * 1e3, 2)
                                       for pid, was in zip(pids, workers, strict=True)]}


def alone(actions: list, repeats: int) -> dict:
    """The same workload on one env in this process: steps/s and CPU per step."""
    env = gym.make(ENV)
    env.reset(seed=0)  # its first reset loads the content, as the workers' did untimed
    start = time.process_time()
    rate = single_rate(env, actions, repeats)
    cpu = (time.process_time() - start) / ((repeats + 1) * len(actions))
    env.close()
    return {"steps_per_s": round(rate), "cpu_ms_per_step": round(cpu * 1e3, 2)}


def gather_ms(frame: tuple[int, ...], count: int, threads: int) -> dict:
    """Best of five: ms to batch ``count`` frames into a new array, and into reused memory
    (also with ``threads`` threads, as ``recv`` gathers them).

    Each new array is made while the previous one is still held (as a caller holds its
    latest observation), as ``recv`` made them before it kept memory for them: from 32 MB
    on, glibc maps every new array afresh and each page is faulted in as it is first
    written; a smaller one may come from memory the allocator had freed, and cost less.
    """
    rows = np.random.default_rng(0).integers(0, 255, (2 * count, *frame), np.uint8)
    found = [rows[2 * k] for k in range(count)]
    reused = np.empty((count, *frame), np.uint8)
    gather = FrameGather(threads)
    figures: dict = {"threads": threads}
    for name, out, stack in (("new_memory_ms", None, np.stack),
                             ("reused_memory_ms", reused, np.stack),
                             ("reused_memory_threads_ms", reused, gather.stack)):
        times, held = [], [None, None]  # the latest two batches
        for k in range(5):
            start = time.perf_counter()
            held[k % 2] = stack(found, out=out)
            times.append((time.perf_counter() - start) * 1e3)
        figures[name] = round(min(times), 2)
    gather.close()
    return figures


def wait_us(count: int) -> float:
    """Best of five: µs one wait for answers takes (``CtrlC.wait``, inside the block a
    vector env's call holds around its waits) on ``count`` pipes that each hold an answer."""
    pairs = [multiprocessing.Pipe() for _ in range(count)]
    for _, theirs in pairs:
        theirs.send_bytes(b"x")
    pipes = [ours for ours, _ in pairs]
    calls = 20_000
    with CtrlC() as ctrl_c:
        best = min(timeit.repeat(lambda: ctrl_c.wait(pipes), number=calls, repeat=5)) / calls
    for ours, theirs in pairs:
        ours.close()
        theirs.close()
    return round(best * 1e6, 2)


def main() -> None:
    """Measure and print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=positive_int, default=16,
                        help="worker processes (default 16)")
    parser.add_argument("--batch", type=count_int, default=8, help="recv batch size; 0: step()")
    parser.add_argument("--steps", type=positive_int, default=200, help="steps of every sub-env")
    parser.add_argument("--repeats", type=positive_int, default=2,
                        help="timed runs after an untimed one; the fastest is kept (default 2)")
    parser.add_argument("--envs-per-worker", type=positive_int, default=1,
                        help="sub-envs in each worker (envs_per_worker)")
    parser.add_argument("--gather-threads", type=positive_int, default=default_threads(),
                        help="threads recv gathers frames with (gather_threads)")
    args = parser.parse_args()
    num_envs = args.workers * args.envs_per_worker
    if not 0 <= args.batch <= num_envs:
        parser.error(f"--batch must be 0-{num_envs}, got {args.batch}")
    prebuild()  # content built elsewhere: this process and the workers only read it
    actions = seeded_actions(gym.make(ENV).action_space, args.steps)
    baseline = alone(actions, args.repeats)
    envs = make_vector(ENV, num_envs, envs_per_worker=args.envs_per_worker,
                       gather_threads=args.gather_threads)
    try:
        envs.reset(seed=0)
        vector = stepped(envs, args.batch, actions, args.repeats)
        frame = envs.single_observation_space["screenshot"].shape
    finally:
        envs.close()
    print(json.dumps({
        "workers": args.workers, "envs_per_worker": args.envs_per_worker,
        "mode": f"recv({args.batch})" if args.batch else "step()",
        "alone": baseline, "vector": vector,
        "parent_bound_steps_per_s": round(1e6 / vector["parent_cpu_us_per_step"]),
        "gather": {"frames": args.batch or num_envs,
                   **gather_ms(frame, args.batch or num_envs, args.gather_threads)},
        "wait_us": {"pipes": len(envs._pipes), "us_per_call": wait_us(len(envs._pipes))}},
                     indent=1))


if __name__ == "__main__":
    main()

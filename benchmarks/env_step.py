"""Act2Intent-Execute-v0 throughput: env steps/s and episodes/s, against the bare phone.

Workload: the oracle's episodes of every task for every demo user (its actions are
recorded once per screen size, then replayed), and seeded random-agent episodes. Each
mode is timed over the same actions: the bare SimPhone replaying them (the baseline,
measured in this run), the env with an instruction-only observation (judging every step),
the env with 1080x2400 screenshots and with 540x1200 screenshots (replaying the actions
recorded at that size: a point of the larger screen is off the smaller one or on
another element). Also prints env reset latency and the one-off cost of a user's PAIR
content in a new process: built on an empty content cache (importing torch, loading the
encoder, embedding the pools), then read back from that cache by another new process.

Usage: ``python benchmarks/env_step.py [--repeats 3] [--out out/env_step.json]``
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gymnasium as gym

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.actions import to_action
from mobileintent_gym.agents import RandomAgent
from mobileintent_gym.console import positive_int
from mobileintent_gym.errors import InvalidActionError
from mobileintent_gym.rollouts import reference_steps, rollout
from mobileintent_gym.tasks import parse_task_id, task_ids
from mobileintent_gym.users import USER_SETS, load_user_content
from mobileintent_gym.users.cache import CACHE_ENV

USERS = USER_SETS["demo"]  # the README's figures are over these four
Episode = tuple[str, str, int, list]  # user, task, reset seed, actions


def record_oracle(env: gym.Env) -> list[Episode]:
    """Every (user, task) oracle episode as its action list."""
    return [(user, task, 0, [step.action for step in reference_steps(env, user, task)])
            for user in USERS for task in task_ids()]  # reference_steps resets with seed 0


def record_random(env: gym.Env, count: int) -> list[Episode]:
    """``count`` seeded random-agent episodes on drawn (user, task) pairs."""
    episodes = []
    for seed in range(count):
        steps = list(rollout(env, RandomAgent(env, seed), seed=seed))
        info = steps[-1].info
        episodes.append((info["user"], info["task"], seed, [step.action for step in steps]))
    return episodes


def replay_env(env: gym.Env, episodes: list[Episode]) -> tuple[float, int]:
    """Seconds to replay ``episodes`` through ``env`` (resets included) and the step count."""
    steps, start = 0, time.perf_counter()
    for user, task, seed, actions in episodes:  # the recorded reset: the same screens
        env.reset(seed=seed, options={"user": user, "task": task})
        for action in actions:
            env.step(action)
        steps += len(actions)
    return time.perf_counter() - start, steps


def replay_phone(env: gym.Env, episodes: list[Episode]) -> tuple[float, int]:
    """The baseline: the same actions on the env's bare phone, without env or judge."""
    phone, steps, start = env.unwrapped.device, 0, time.perf_counter()
    for user, task, _, actions in episodes:
        phone.reset(load_user_content(user).state)
        phone.open(parse_task_id(task)[0].app)
        for action in actions:
            with contextlib.suppress(InvalidActionError):
                phone.act(to_action(action))
        steps += len(actions)
    return time.perf_counter() - start, steps


def best(function, repeats: int) -> tuple[float, int]:
    """The fastest of ``repeats`` runs, after one untimed run.

    The untimed run fills the renderer's caches for every measure alike, whichever runs
    first.
    """
    function()
    return min((function() for _ in range(repeats)), key=lambda r: r[0])


def content_seconds(user: str, cache: str) -> float:
    """Seconds a new process takes to import the gym and get ``user``'s content.

    The process uses the content cache folder ``cache``: empty, it builds the content.
    """
    code = ("import time; start = time.perf_counter(); "
            "from mobileintent_gym.users import load_user_content; "
            f"load_user_content({user!r}); print(time.perf_counter() - start)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, CACHE_ENV: cache})
    return float(done.stdout.split()[-1])


def main() -> None:
    """Measure and print every figure; optionally write them as JSON."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=positive_int, default=3,
                        help="timed replays of each workload after an untimed one; the "
                             "fastest is kept (default 3)")
    parser.add_argument("--random-episodes", type=positive_int, default=12,
                        help="seeded random-agent episodes recorded per screen size "
                             "(default 12)")
    parser.add_argument("--out", help="also write the figures to this JSON file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        figures = {"first_user_content_built_s": content_seconds(USERS[0], cache),
                   "first_user_content_cached_s": content_seconds(USERS[0], cache)}
    plain = gym.make("Act2Intent-Execute-v0", users=USERS, observation=("instruction",))
    small = gym.make("Act2Intent-Execute-v0", users=USERS, observation=("instruction",),
                     device="sim:540x1200")
    recorded = {env: {"oracle": record_oracle(env),
                      "random": record_random(env, args.random_episodes)}
                for env in (plain, small)}
    start = time.perf_counter()
    for user, task, seed, _ in recorded[plain]["oracle"]:
        plain.reset(seed=seed, options={"user": user, "task": task})
    figures["reset_ms"] = (time.perf_counter() - start) / len(recorded[plain]["oracle"]) * 1e3
    envs = {"instruction": (plain, plain),  # the env timed, the one its actions came from
            "screenshot_1080x2400": (gym.make("Act2Intent-Execute-v0"), plain),
            "screenshot_540x1200": (gym.make("Act2Intent-Execute-v0", device="sim:540x1200"),
                                    small)}
    for workload in ("oracle", "random"):
        episodes = recorded[plain][workload]
        seconds, steps = best(lambda e=episodes: replay_phone(plain, e), args.repeats)
        figures[f"{workload}_phone_steps_per_s"] = steps / seconds
        for name, (env, source) in envs.items():
            episodes = recorded[source][workload]
            seconds, steps = best(lambda e=env, ep=episodes: replay_env(e, ep), args.repeats)
            figures[f"{workload}_{name}_steps_per_s"] = steps / seconds
            figures[f"{workload}_{name}_episodes_per_s"] = len(episodes) / seconds
        figures[f"{workload}_steps"] = sum(len(a) for *_, a in recorded[plain][workload])
        figures[f"{workload}_instruction_vs_phone"] = (
            figures[f"{workload}_instruction_steps_per_s"]
            / figures[f"{workload}_phone_steps_per_s"])
    for key, value in figures.items():
        print(f"{key:<48} {value:12.3f}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()

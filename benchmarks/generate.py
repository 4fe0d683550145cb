"""Session generation throughput: verified intention segments per minute on one core.

Workload: every demo user lives ``--days`` days on a simulated phone (no screenshots);
each intention is carried out like a person and judged, each step described. Printed:

* generation: segments per minute (intentions and noise; every intention judged), and
  intentions per minute;
* baseline, measured in the same run on the same intentions: the oracle alone carrying out
  each intention's task from its app's home screen, judged, with no slips, pauses or
  descriptions (what ``Act2Intent-Execute-v0`` does per task) — and the ratio;
* the one-off cost of building each user's content and routine (before the clock starts,
  as is one untimed day of the first user that warms the process's caches);
* with ``--screenshots``: PNG export of one user-day, steps per second.

The process is pinned to one core (``--core``) and torch to one thread.

Usage: ``python benchmarks/generate.py [--days 7] [--users demo] [--core 0] [--screenshots]``
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from mobileintent_gym.console import Repeated, positive_int
from mobileintent_gym.intents import export_sessions
from mobileintent_gym.intents.generator import UserLife
from mobileintent_gym.phone import SimPhone, hierarchy
from mobileintent_gym.phone.ui import Node
from mobileintent_gym.tasks import Judge, Oracle, TaskInstance, instantiate
from mobileintent_gym.users import resolve_users


def run_oracle(phone: SimPhone, task: TaskInstance, limit: int = 40) -> bool:
    """Carry out ``task`` with the oracle from its app's home screen; the judge's verdict."""
    phone.open(task.template.app)
    judge, oracle = Judge(task), Oracle(task)

    def screen() -> Node:
        return hierarchy.parse(phone.hierarchy())

    judge.start(phone.route(), screen)
    for _ in range(limit):
        event = phone.act(oracle.act(phone.route(), phone.hierarchy())).event
        if judge.update(event, screen).success:
            return True
    return False


def oracle_baseline(lives: list[UserLife], sessions: list[list]) -> tuple[float, int, int]:
    """Seconds for the oracle to carry out every generated intention's task, the count, and
    how many it failed (each of those ran to its step limit, so the figure counts them)."""
    count, failed, began = 0, 0, time.perf_counter()
    for life, days in zip(lives, sessions, strict=True):
        phone = SimPhone()
        phone.reset(life.content.state)
        for segment in (s for day in days for s in day.intentions()):
            failed += not run_oracle(phone, instantiate(segment.task, life.content))
            count += 1
        phone.close()
    return time.perf_counter() - began, count, failed


def warm_up(user: str) -> None:
    """Live one untimed day of ``user`` on a life of its own.

    The process's caches (glyphs, tiles, parsed screens) fill here, not in the timed
    generation: the baseline, timed after it, would find them warm.
    """
    life = UserLife(user)
    life.day(0)
    life.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", nargs="+", action=Repeated, default=["demo"],
                        help="user sets, profile names or paths (default: the demo set)")
    parser.add_argument("--days", type=positive_int, default=7,
                        help="days each user lives (default 7)")
    parser.add_argument("--core", type=int, default=0,
                        help="the one CPU this process runs on (default 0)")
    parser.add_argument("--screenshots", action="store_true",
                        help="also time a day with a screenshot of every step")
    args = parser.parse_args()
    if args.core not in os.sched_getaffinity(0):
        parser.error(f"--core {args.core} is none of this process's CPUs "
                     f"{sorted(os.sched_getaffinity(0))}")
    os.sched_setaffinity(0, {args.core})
    began = time.perf_counter()
    users = resolve_users(args.users)
    lives = [UserLife(user) for user in users]
    setup = time.perf_counter() - began
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    warm_up(users[0])
    began = time.perf_counter()
    sessions = [[life.day(d) for d in range(args.days)] for life in lives]
    seconds = time.perf_counter() - began
    segments = sum(len(day.segments) for days in sessions for day in days)
    intentions = sum(len(day.intentions()) for days in sessions for day in days)
    dropped = sum(life.dropped for life in lives)
    print(f"users {len(lives)} x {args.days} days on core {args.core}: content and routines "
          f"built in {setup:.1f} s ({setup / len(lives):.2f} s per user)")
    print(f"generation: {segments} segments ({intentions} intentions judged achieved, "
          f"{dropped} not achieved and left out) in {seconds:.2f} s = "
          f"{60 * segments / seconds:,.0f} segments/min, {60 * intentions / seconds:,.0f} "
          f"intentions/min")
    base_seconds, tasks, failed = oracle_baseline(lives, sessions)
    rate = 60 * intentions / seconds
    base = 60 * tasks / base_seconds
    print(f"baseline (oracle, same intentions, no slips or descriptions): {base:,.0f} "
          f"tasks/min ({tasks - failed} of {tasks} carried out); generation/baseline = "
          f"{rate / base:.2f}")
    if args.screenshots:
        with tempfile.TemporaryDirectory() as folder:
            day = sessions[0][0]
            steps = sum(len(s.steps) for s in day.segments)
            began = time.perf_counter()
            export_sessions([day], folder, screenshots=True)
            spent = time.perf_counter() - began
            print(f"PNG export of one user-day: {steps} steps in {spent:.1f} s = "
                  f"{steps / spent:.1f} steps/s")
    for life in lives:
        life.close()


if __name__ == "__main__":
    main()

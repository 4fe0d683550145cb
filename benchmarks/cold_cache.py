"""A vector env started on an empty content cache: seconds to its first reset, worker memory.

Every worker builds its env for the same users at the same moment. One process at a time
builds a user's content (the cache's lock) while the others wait and read it, so the
workers that only read never import torch or the sentence encoder: their resident memory
says which ones built (hundreds of MB) and which only read (tens).

Usage: ``python benchmarks/cold_cache.py [--workers 8] [--users demo-ana demo-ben]``. It
sets ``HF_HUB_OFFLINE=1`` (which model the encoder loads is then known before it loads,
which the lock needs) and uses a fresh temporary cache folder.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    """Start the vector env, reset it, print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, default=8,
                        help="vector env workers starting at once (default 8)")
    parser.add_argument("--users", nargs="+", default=["demo-ana", "demo-ben"],
                        help="users every worker builds its env for "
                             "(default demo-ana demo-ben)")
    args = parser.parse_args()
    if args.workers < 1:  # (the package is imported once the cache is set: not for this)
        parser.error(f"--workers must be at least 1, got {args.workers}")
    with tempfile.TemporaryDirectory() as cache:
        print(json.dumps(measure(args.workers, args.users, cache), indent=1))


def measure(workers: int, users: list[str], cache: str) -> dict:
    """Start ``workers`` workers on an empty content cache ``cache``; what it cost."""
    os.environ.update(MOBILEINTENT_GYM_CACHE=cache, HF_HUB_OFFLINE="1")
    import gymnasium as gym

    import mobileintent_gym  # noqa: F401  (registers the envs)
    from mobileintent_gym.memory import process_memory

    start = time.perf_counter()
    envs = gym.make_vec("Act2Intent-Execute-v0", workers,
                        vectorization_mode="vector_entry_point", users=users,
                        device="sim:540x1200")
    envs.reset(seed=0)
    seconds = time.perf_counter() - start
    rss = sorted(process_memory(p.pid)[0] / 2**20 for p in envs._processes)
    envs.close()
    return {"workers": workers, "users": users, "seconds_to_reset": round(seconds, 1),
            "worker_rss_mb": [round(mb) for mb in rss],
            "entries": len(list(Path(cache, "content").glob("*.pkl"))),
            "parent_imported_torch": "torch" in sys.modules}


if __name__ == "__main__":
    main()

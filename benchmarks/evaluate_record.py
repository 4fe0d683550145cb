"""What recording a run costs: evaluate's results file and the HTML report.

Three figures, measured in one process on the oracle's 480 episodes (four demo users ×
120 tasks, cached content):

* the bare rollout loop (``rollouts.evaluate``), the baseline;
* the same episodes recorded step by step and written to a results file after each one,
  its scores kept up to date (what ``evaluate --out`` does), as a ratio to the baseline;
* the HTML report of that run: seconds, distinct screens, bytes per screen (inline or in
  the report's screens folder) and the size of the page and its screens together.

Usage: ``.venv/bin/python benchmarks/evaluate_record.py [--repeats 3] [--out FILE]``
"""

from __future__ import annotations

import argparse
import base64
import json
import tempfile
import time
from pathlib import Path

import gymnasium as gym

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents import OracleAgent
from mobileintent_gym.console import positive_int
from mobileintent_gym.evaluate import RunningScores, scores
from mobileintent_gym.report import write_report
from mobileintent_gym.report.page import screens_folder
from mobileintent_gym.results import ResultsWriter, episode_dict, read_run
from mobileintent_gym.rollouts import episode_seed, evaluate, record_episode
from mobileintent_gym.tasks import task_ids
from mobileintent_gym.users import USER_SETS, load_user_content

USERS = USER_SETS["demo"]  # the README's figures are over these four


def oracle(env: gym.Env, seed: int) -> OracleAgent:
    return OracleAgent(env)


def bare(env: gym.Env) -> float:
    """Seconds for the oracle's episodes through the bare loop."""
    start = time.perf_counter()
    evaluate(env, oracle, USERS, task_ids())
    return time.perf_counter() - start


def recorded(env: gym.Env, path: Path) -> float:
    """Seconds for the same episodes recorded and written one by one to ``path``."""
    start = time.perf_counter()
    writer = ResultsWriter(path, {"agent": "oracle", "screen": [1080, 2400], "device": "sim",
                                  "users": list(USERS), "tasks": list(task_ids()),
                                  "pair": {}}, [], RunningScores())
    for user in USERS:
        for task in task_ids():
            seed = episode_seed(0, user, task)
            record = record_episode(env, oracle(env, seed), user, task, seed)
            writer.add(episode_dict(record, len(writer.episodes)))
    writer.finish(scores(writer.episodes, USERS))
    writer.close()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=positive_int, default=3,
                        help="timed runs of each figure; the fastest is kept (default 3)")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args()
    for user in USERS:
        load_user_content(user)  # build (and cache) every user's content first
    env = gym.make("Act2Intent-Execute-v0", users=USERS, observation=("instruction", "hierarchy"))
    with tempfile.TemporaryDirectory() as name:
        figures = measure(env, Path(name), args.repeats)
    for key, value in figures.items():
        print(f"{key:<26} {value:,.3f}" if isinstance(value, float) else f"{key:<26} {value:,}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(figures, indent=1))


def measure(env: gym.Env, folder: Path, repeats: int) -> dict[str, float | int]:
    """The figures, from runs whose files go into ``folder``."""
    run_file = folder / "run.json"
    bare(env)  # untimed: the first pass fills the renderer's caches, for both alike
    base = min(bare(env) for _ in range(repeats))
    rec = min(recorded(env, run_file) for _ in range(repeats))
    run = read_run(run_file)
    start = time.perf_counter()
    page = write_report(run, folder / "run.html")
    report_s = time.perf_counter() - start
    frames = json.loads(page.read_text().split('id="frames">')[1].split("</script>")[0])
    spilled = list(screens_folder(page).glob("*"))  # the screens that did not fit inline
    inline = [len(base64.b64decode(uri.partition(",")[2])) for uri in frames.values()
              if uri.startswith("data:")]
    steps = sum(len(e["steps"]) + 1 for e in run.episodes)
    return {
        "episodes": len(run.episodes), "steps": steps - len(run.episodes),
        "bare_episodes_per_s": len(run.episodes) / base,
        "recorded_episodes_per_s": len(run.episodes) / rec,
        "recorded_vs_bare": base / rec,
        "results_file_bytes": run_file.stat().st_size,
        "report_s": report_s, "report_screens": steps, "distinct_screens": len(frames),
        "screens_inline": len(inline), "screens_in_folder": len(spilled),
        "bytes_per_screen": (sum(inline) + sum(f.stat().st_size for f in spilled))
        / (len(inline) + len(spilled)),
        "report_bytes": page.stat().st_size + sum(f.stat().st_size for f in spilled),
    }


if __name__ == "__main__":
    main()

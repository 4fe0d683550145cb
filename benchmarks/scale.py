"""Scale-out: aggregate env steps/s for 1, 2, 4 … workers, cold start and RSS per worker.

Every mode steps ``Act2Intent-Execute-v0`` with full 1080x2400 screenshots through the
same seeded random actions (every sub-env takes the same sequence; an episode that ends
is reset), for the built-in users, whose content is built once beforehand (in a
subprocess, so that this process never imports torch) and then read from the disk cache:

- ``baseline``: one synchronous env in this process, measured right before and right after
  each worker count's modes (the machine's speed drifts over minutes on a shared host); the
  count's ratios are against the better of the two, and ``baseline_drift`` is after/before;
- ``sync``: Gymnasium's ``SyncVectorEnv`` of N envs (one process);
- ``gym_async``: Gymnasium's ``AsyncVectorEnv`` without shared memory (frames pickled
  through pipes);
- ``shm``: ``SharedMemoryVectorEnv`` with N worker processes (frames in shared memory),
  with ``copy=True`` (observations that never change while held); ``shm_nocopy`` the
  same with ``copy=False`` (views of memory the next step overwrites); ``shm_pinned``
  ``copy=True`` with worker i pinned to this process's i-th CPU (round robin); ``pool``
  the ``shm`` workers stepped as a pool: the first half of them (at least one) to finish a
  step get their next actions while the others go on (``send``/``recv``), instead of all
  waiting for the slowest; ``pool_one`` the same receiving one at a time (its frame is
  always a view of shared memory, where half of them seldom are neighbouring rows and are
  copied, by several threads where they make 16 MiB or more on a machine of four CPUs or
  more); ``pool_1thread`` the same
  as ``pool`` with one thread copying those frames (``gather_threads=1``; the JSON's
  ``gather_threads`` says how many the other pool modes copy with); ``shm_x4`` and
  ``pool_x4`` the same as ``shm`` and ``pool`` with four sub-envs in each of the N workers
  (``envs_per_worker=4``: 4N sub-envs, each worker stepping its four one after the other
  and waking once for them); ``shm_in_parent`` and ``pool_in_parent`` the same as ``shm``
  and ``pool`` with the last worker in this process (``worker_in_parent=True``: N sub-envs
  in N - 1 worker processes and this one);
- ``ray``: N Ray actors running random-agent episodes (only results come back); its
  workload is not the baseline's, so the same episodes are also run by one env in this
  process (``ray_same_work_in_process_steps_per_s``; ``ray_vs_same_work`` is Ray's rate
  over N times that one: 1.0 when N actors run as fast as N such envs alone, whatever
  the workload);
- ``independent``: N interpreters each stepping an env of its own at the same time, as
  the baseline does, talking to nobody: what the machine itself gives N envs (cores,
  caches, memory bandwidth), the ceiling of every other mode. The interpreters start
  each timed run together, and a run's rate is the sum of theirs in that run.

Rates are the best of ``--repeats`` runs, each mode (the baseline and ``independent``
included) after one untimed run of the workload; ``ray`` is one timed run once every
actor has built its env and run an episode. Per worker: the cold start of an env for a
cached user in a fresh interpreter (import, ``gym.make``, ``reset``; median of three, after
an untimed one that writes the modules' compiled bytecode, as an installed package has it) and
its peak RSS after 50 steps; the RSS of each vector env's and Ray's workers, and their PSS
(the shared libraries' pages divided among the processes mapping them: what each worker
adds to the machine's memory).

Usage: ``python benchmarks/scale.py --workers 1 2 4 8 16 [--steps 200] [--modes shm pool]
[--out out/scale.json]`` (also writes the plot beside the JSON, ``out/scale.png``; modes
left out are NaN in the JSON and not drawn). Each worker count's figures are printed, and
the JSON rewritten, as soon as they are measured (its ``workers`` lists the counts measured so
far), so a run stopped early keeps them.
Linux: RSS and PSS are read from /proc.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
from gymnasium.vector.utils import concatenate, create_empty_array

import mobileintent_gym  # noqa: F401  (registers the envs)
from mobileintent_gym.agents import RandomAgent
from mobileintent_gym.console import Repeated, positive_int
from mobileintent_gym.envs.vector import SharedMemoryVectorEnv
from mobileintent_gym.envs.vector_gather import default_threads
from mobileintent_gym.files import write_atomic
from mobileintent_gym.memory import process_memory, proportional_memory
from mobileintent_gym.results import check_writable
from mobileintent_gym.rollouts import episodes, record_episode

ENV = "Act2Intent-Execute-v0"
ROOT = Path(__file__).resolve().parents[1]
MODES = ("sync", "gym_async", "shm", "shm_nocopy", "shm_pinned", "pool", "pool_1thread",
         "pool_one", "shm_x4", "pool_x4", "shm_in_parent", "pool_in_parent", "ray",
         "independent")
SAME_WORK = tuple(mode for mode in MODES if mode != "ray")
"""The modes that step the baseline's workload: compared with it (``_vs_baseline``) and
drawn beside it. ``ray`` runs episodes of its own, compared with those episodes run
in-process (``ray_vs_same_work``)."""
PER_WORKER = 4
"""Sub-envs each worker holds in the ``_x4`` modes."""
RANDOM_EPISODE_STEPS = 6  # about what a random episode lasts on the ray mode's tasks
WORKER = """
import json, resource, sys
import gymnasium as gym
import mobileintent_gym
env = gym.make("Act2Intent-Execute-v0", users=["demo-ana"])
env.reset(seed=0)
print("ready", flush=True)
env.action_space.seed(0)
for _ in range(50):
    if any(env.step(env.action_space.sample())[2:4]):
        env.reset()
print(json.dumps({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "torch": "torch" in sys.modules}))
"""


def memory_mb(pids: list[int]) -> tuple[list[float], list[float]]:
    """The processes' resident memory (``VmRSS``) and proportional set size (shared pages
    split among their users) in MB."""
    return ([_mb(lambda pid: process_memory(pid)[0], pid) for pid in pids],
            [_mb(proportional_memory, pid) for pid in pids])


def _mb(read: Callable[[int], int], pid: int) -> float:
    """``read(pid)`` bytes in MB; NaN for a process gone or a zombie."""
    try:
        return read(pid) / 2**20
    except (OSError, KeyError):
        return float("nan")


INDEPENDENT = """
import sys
sys.path.insert(0, {folder!r})
import gymnasium as gym
from scale import ENV, seeded_actions, workload_run
env = gym.make(ENV)
run = workload_run(env, seeded_actions(env.action_space, {steps}))
run()  # untimed, as best_of does
print("ready", flush=True)
for _ in range({repeats}):
    sys.stdin.readline()
    print(run(), flush=True)
"""


def run_python(code: str, settings: dict[str, str] | None = None) -> subprocess.Popen:
    """A Python process running ``code`` from the repository, talking over stdin and stdout
    (its errors go to this process's stderr); ``settings`` are added to its environment."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")]), **(settings or {})}
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def prebuild() -> None:
    """Build the built-in users' content into the disk cache, in another process."""
    code = ("from mobileintent_gym.users import builtin_users, load_user_content\n"
            "for user in builtin_users(): load_user_content(user)")
    if run_python(code).wait() != 0:
        raise SystemExit("building the users' content failed")


def cold_starts(count: int = 3) -> list[dict]:
    """``count`` cold starts (:func:`cold_start`), after an untimed one that leaves the
    modules' compiled bytecode behind, as an installed package has it.

    The bytecode goes to a folder of its own, written also where ``PYTHONDONTWRITEBYTECODE``
    is set (a sandbox's setting, with which every start compiled every module: 0.1-0.2 s
    more on the 2-core VM).
    """
    with tempfile.TemporaryDirectory(prefix="scale-bytecode-") as folder:
        settings = {"PYTHONPYCACHEPREFIX": folder, "PYTHONDONTWRITEBYTECODE": ""}
        cold_start(settings)
        return [cold_start(settings) for _ in range(count)]


def cold_start(settings: dict[str, str] | None = None) -> dict:
    """Seconds from starting an interpreter to an env reset for a cached user, and RSS.

    Args:
        settings: Added to the interpreter's environment.
    """
    start = time.perf_counter()
    child = run_python(WORKER, settings)
    ready = child.stdout.readline().strip() == "ready"
    seconds = time.perf_counter() - start
    report = child.stdout.read()  # through the same buffer as "ready" (it may hold more)
    if child.wait() or not ready:
        raise SystemExit(f"the cold-start env process failed (exit code {child.returncode}; "
                         "its error, if any, is above)")
    return {"seconds": seconds, **json.loads(report)}


def seeded_actions(space: gym.Space, steps: int) -> list:
    """The workload: ``steps`` seeded random actions, the same in every mode."""
    space.seed(0)
    return [space.sample() for _ in range(steps)]


def best_of(run: Callable[[], float], repeats: int) -> float:
    """The best of ``repeats`` runs of ``run`` (a steps/s), after one untimed run.

    The untimed run fills what a first pass over the workload fills (the renderer's caches,
    the allocator's pools) in every mode alike: otherwise a mode's fresh workers would be
    measured cold against a baseline env that has run the workload before.
    """
    run()
    return max(run() for _ in range(repeats))


def single_rate(env: gym.Env, actions: list, repeats: int) -> float:
    """The baseline's steps/s: one env stepping the workload (see ``best_of``)."""
    return best_of(workload_run(env, actions), repeats)


def workload_run(env: gym.Env, actions: list) -> Callable[[], float]:
    """One timed run of the workload on ``env``, giving its steps/s.

    It takes the actions as a vector env's first sub-env does: the action after an
    episode's end is spent on the reset (Gymnasium's next-step autoreset), so both step
    the same episodes over the same screens.
    """
    def run() -> float:
        env.reset(seed=0)
        done, start = False, time.perf_counter()
        for action in actions:
            if done:
                env.reset()
                done = False
            else:
                done = any(env.step(action)[2:4])
        return len(actions) / (time.perf_counter() - start)

    return run


def vector_rate(envs: gym.vector.VectorEnv, actions: list, repeats: int) -> float:
    """Aggregate steps/s, every sub-env taking the workload's actions (see ``best_of``)."""
    space, n = envs.single_action_space, envs.num_envs
    batched = [concatenate(space, [a] * n, create_empty_array(space, n)) for a in actions]

    def run() -> float:
        envs.reset(seed=[0] * n)  # every sub-env steps the baseline's episodes (seed 0)
        start = time.perf_counter()
        for action in batched:
            envs.step(action)
        return n * len(actions) / (time.perf_counter() - start)

    return best_of(run, repeats)


def pool_rate(envs: SharedMemoryVectorEnv, actions: list, repeats: int, batch: int
              ) -> float:
    """Aggregate steps/s of the sub-envs stepped as a pool (see ``best_of``).

    Each sub-env takes the workload's actions in turn; ``recv`` returns the first
    ``batch`` of them to finish, and those are sent their next actions at once, in one
    ``send`` (as a policy answering the observations it got would).
    """
    space, n = envs.single_action_space, envs.num_envs
    # Batched beforehand for one sub-env (recv(1) sends one at a time), so that the
    # parent's CPU (vector_parent.py) counts none of this script's batching there.
    alone = [concatenate(space, [a], create_empty_array(space, 1)) for a in actions]

    def run() -> float:
        envs.reset(seed=[0] * n)  # as in vector_rate
        taken, pending = [0] * n, n
        start = time.perf_counter()
        envs.send(concatenate(space, [actions[0]] * n, create_empty_array(space, n)))
        while pending:
            done = envs.recv(min(batch, pending))[4]["env_id"]
            pending -= len(done)
            for i in done:
                taken[i] += 1
            again = [int(i) for i in done if taken[i] < len(actions)]
            if again:
                envs.send(alone[taken[again[0]]] if len(again) == 1 else concatenate(
                    space, [actions[taken[i]] for i in again],
                    create_empty_array(space, len(again))), again)
                pending += len(again)
        return n * len(actions) / (time.perf_counter() - start)

    return best_of(run, repeats)


def vector_rates(n: int, actions: list, repeats: int, modes: list[str]) -> dict:
    """steps/s of the vector envs of ``modes`` with ``n`` sub-envs (NaN for the others),
    and the shm workers' RSS and PSS."""
    made = {"sync": lambda: gym.make_vec(ENV, n, vectorization_mode="sync"),
            "gym_async": lambda: gym.make_vec(ENV, n, vectorization_mode="async",
                                              vector_kwargs={"shared_memory": False}),
            "shm": lambda: gym.make_vec(ENV, n, vectorization_mode="vector_entry_point"),
            "shm_nocopy": lambda: gym.make_vec(ENV, n, vectorization_mode="vector_entry_point",
                                               copy=False),
            "shm_pinned": lambda: gym.make_vec(ENV, n, vectorization_mode="vector_entry_point",
                                               cpus=sorted(os.sched_getaffinity(0))),
            "pool": lambda: gym.make_vec(ENV, n, vectorization_mode="vector_entry_point"),
            "pool_1thread": lambda: gym.make_vec(ENV, n, gather_threads=1,
                                                 vectorization_mode="vector_entry_point"),
            "pool_one": lambda: gym.make_vec(ENV, n, vectorization_mode="vector_entry_point"),
            "shm_x4": lambda: gym.make_vec(ENV, PER_WORKER * n, envs_per_worker=PER_WORKER,
                                           vectorization_mode="vector_entry_point"),
            "pool_x4": lambda: gym.make_vec(ENV, PER_WORKER * n, envs_per_worker=PER_WORKER,
                                            vectorization_mode="vector_entry_point"),
            "shm_in_parent": lambda: gym.make_vec(ENV, n, worker_in_parent=True,
                                                  vectorization_mode="vector_entry_point"),
            "pool_in_parent": lambda: gym.make_vec(ENV, n, worker_in_parent=True,
                                                   vectorization_mode="vector_entry_point")}
    half = max(1, n // 2)
    batches = {"pool": half, "pool_1thread": half, "pool_one": 1, "pool_x4": PER_WORKER * n // 2,
               "pool_in_parent": half}
    figures = {f"{name}_steps_per_s": float("nan") for name in made}
    for name, make in made.items():
        if name not in modes:
            continue
        start = time.perf_counter()
        envs = make()
        envs.reset(seed=0)
        figures[f"{name}_start_s"] = time.perf_counter() - start
        figures[f"{name}_steps_per_s"] = (
            pool_rate(envs, actions, repeats, batches[name]) if name in batches
            else vector_rate(envs, actions, repeats))
        if name in ("shm", "shm_x4"):
            figures[f"{name}_worker_rss_mb"], figures[f"{name}_worker_pss_mb"] = memory_mb(
                [p.pid for p in envs._processes])
        envs.close()
    return figures


def ray_rate(n: int, steps: int) -> dict:
    """steps/s of ``n`` Ray actors running random-agent episodes, and their RSS and PSS."""
    from mobileintent_gym.distributed import RolloutPool

    users = ["demo-ana", "demo-ben", "demo-chen", "demo-dara"]
    tasks = ["G-SPT-01:common:explicit", "G-SPT-02:personal:implicit",
             "G-WCT-02:common:explicit", "G-WCT-03:personal:explicit"]
    rounds = -(-steps * n // (RANDOM_EPISODE_STEPS * len(users) * len(tasks)))
    work = [e for seed in range(rounds) for e in episodes(users, tasks, seed)]
    with RolloutPool(n, progress=False) as pool:
        pool.run(work[:n], RandomAgent)  # every actor builds its env first
        start = time.perf_counter()
        runs = pool.run(work, RandomAgent)
        seconds = time.perf_counter() - start
        rss, pss = memory_mb(pool.pids())
    rate = sum(len(r.steps) for r in runs) / seconds
    here = same_work_rate(work)
    return {"ray_steps_per_s": rate, "ray_same_work_in_process_steps_per_s": here,
            "ray_vs_same_work": rate / (n * here), "ray_actor_rss_mb": rss,
            "ray_actor_pss_mb": pss}


def same_work_rate(work: list) -> float:
    """steps/s of one env in this process running ``work``'s random-agent episodes."""
    env = gym.make(ENV)
    record_episode(env, RandomAgent(env, work[0].seed), *work[0])  # untimed, as the actors
    start = time.perf_counter()
    steps = sum(len(record_episode(env, RandomAgent(env, e.seed), *e).steps) for e in work)
    seconds = time.perf_counter() - start
    env.close()
    return steps / seconds


def independent_rate(n: int, steps: int, repeats: int) -> float:
    """The best sum of the steps/s of ``n`` interpreters stepping the workload together.

    Each builds its env and runs the workload once untimed; then every timed run starts
    in all of them at once (each times itself as the baseline does), and that run's
    figure is the sum of their rates: the best runs of each alone need not overlap.
    """
    code = INDEPENDENT.format(folder=str(Path(__file__).parent), steps=steps, repeats=repeats)
    children = [run_python(code) for _ in range(n)]
    try:
        for child in children:
            if child.stdout.readline().strip() != "ready":
                raise SystemExit("an independent env process did not start")
        sums = []
        for _ in range(repeats):  # each run starts in every interpreter together
            for child in children:
                child.stdin.write("go\n")
                child.stdin.flush()
            sums.append(sum(float(child.stdout.readline()) for child in children))
        return max(sums)
    finally:
        for child in children:
            child.kill()
            child.wait()


def count_rates(n: int, actions: list, args: argparse.Namespace) -> dict:
    """Every mode's figures for ``n`` workers (NaN rates for the modes not asked for)."""
    figures = vector_rates(n, actions, args.repeats, args.modes)
    figures.update(ray_rate(n, args.steps) if "ray" in args.modes else
                   {"ray_steps_per_s": float("nan")})
    figures["independent_steps_per_s"] = (
        independent_rate(n, args.steps, args.repeats) if "independent" in args.modes
        else float("nan"))
    return figures


def plot(figures: dict, path: Path) -> None:
    """Steps/s against workers of the modes stepping the baseline's workload, with Pillow.

    Those are ``SAME_WORK``'s; no plotting library is needed.
    """
    from PIL import Image, ImageDraw

    colours = {"ideal": (160, 160, 160), "sync": (31, 119, 180), "gym_async": (255, 127, 14),
               "shm": (44, 160, 44), "shm_nocopy": (148, 103, 189), "shm_pinned": (23, 190, 207),
               "pool": (140, 86, 75), "pool_1thread": (255, 187, 120),
               "pool_one": (227, 119, 194), "shm_x4": (188, 189, 34),
               "pool_x4": (127, 127, 127), "shm_in_parent": (214, 39, 40),
               "pool_in_parent": (255, 152, 150), "independent": (0, 0, 0)}
    counts = sorted(figures["workers"])
    series = {"ideal": [n * figures[f"{n}"]["baseline_steps_per_s"] for n in counts]}
    for mode in SAME_WORK:  # a mode not measured (not in --modes: NaN) is left out
        values = [figures[f"{n}"][f"{mode}_steps_per_s"] for n in counts]
        if all(math.isfinite(v) for v in values):
            series[mode] = values
    width, height, pad = 800, 500, 60
    top = max(max(v) for v in series.values()) * 1.1
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.line([(pad, pad), (pad, height - pad), (width - pad, height - pad)], "black")
    span = math.log2(counts[-1] / counts[0]) or 1.0

    def point(n: int, value: float) -> tuple[float, float]:
        """Where ``value`` steps/s with ``n`` workers goes: workers on a log2 scale."""
        x = pad + (width - 2 * pad) * math.log2(n / counts[0]) / span
        return x, height - pad - (height - 2 * pad) * value / top

    for n in counts:
        draw.text((point(n, 0)[0] - 4, height - pad + 8), str(n), "black")
    for k in range(5):
        value = top * k / 4
        draw.text((8, point(counts[0], value)[1] - 6), f"{value:,.0f}", "black")
    for k, (name, values) in enumerate(series.items()):
        line = [point(n, v) for n, v in zip(counts, values, strict=True)]
        draw.line(line * (1 if len(line) > 1 else 2), colours[name], 3)
        draw.text((width - pad - 150, pad + 16 * k), f"{name}", colours[name])
    draw.text((pad, 20), "aggregate steps/s (1080x2400)", "black")
    draw.text((width // 2 - 50, height - 25), "workers (log2 scale)", "black")
    image.save(path)


def main() -> None:
    """Measure and print every figure; write JSON and the plot."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=positive_int, nargs="+", action=Repeated, default=[1, 2],
                        help="worker counts measured (default 1 2)")
    parser.add_argument("--steps", type=positive_int, default=200, help="steps per env and mode")
    parser.add_argument("--repeats", type=positive_int, default=3,
                        help="best of this many runs (after an untimed one)")
    parser.add_argument("--modes", nargs="+", action=Repeated, choices=MODES, default=list(MODES),
                        help="what to measure (default: every mode)")
    parser.add_argument("--out", default="out/scale.json",
                        help="JSON file; the PNG plot goes beside it (default out/scale.json)")
    args = parser.parse_args()
    if Path(args.out).suffix.lower() == ".png":
        parser.error(f"--out {args.out}: give the JSON file; the plot goes beside it")
    out = Path(args.out)
    check_writable(out, "--out")  # before the minutes of measuring, not after
    prebuild()
    starts = cold_starts()
    single = gym.make(ENV)
    actions = seeded_actions(single.action_space, args.steps)
    figures: dict = {
        "workers": [], "load_average": os.getloadavg()[0],  # workers: the counts measured
        "gather_threads": default_threads(),  # the pool modes' but pool_1thread's
        "cold_start_s": statistics.median(s["seconds"] for s in starts),
        "cold_start_rss_mb": max(s["rss_mb"] for s in starts),
        "cold_start_imported_torch": any(s["torch"] for s in starts)}
    if "ray" in args.modes:
        import ray

        ray.init(num_cpus=max(args.workers), include_dashboard=False, log_to_driver=False)
    for n in args.workers:
        before = single_rate(single, actions, args.repeats)
        figures[str(n)] = count_rates(n, actions, args)
        after = single_rate(single, actions, args.repeats)
        figures[str(n)].update(baseline_steps_per_s=max(before, after),
                               baseline_drift=after / before)
        for mode in SAME_WORK:
            rate = figures[str(n)][f"{mode}_steps_per_s"]
            figures[str(n)][f"{mode}_vs_baseline"] = rate / max(before, after)
        figures["workers"].append(n)
        print(json.dumps({str(n): figures[str(n)]}), flush=True)
        write_atomic(out, json.dumps(figures, indent=1).encode())  # a later stop keeps these
    single.close()
    print(json.dumps(figures, indent=1))
    plot(figures, out.with_suffix(".png"))


if __name__ == "__main__":
    main()

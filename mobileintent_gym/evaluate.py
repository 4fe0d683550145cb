"""``mobileintent-gym evaluate``: run an agent over users × tasks and print the PAIR scores.

Every argument is checked before anything heavy is loaded (the sentence encoder, a language
model); the results file (``--out``) is written as episodes finish and records where the
run came from (see :mod:`mobileintent_gym.results`), so that ``--resume`` can continue it.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import math
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from PIL import Image

import mobileintent_gym
from mobileintent_gym.agents.resolve import SPEC_HELP, AgentSpec, parse_agent
from mobileintent_gym.backends.loader import public_spec
from mobileintent_gym.console import (
    Progress,
    Repeated,
    UsageError,
    add_require_encoder,
    path_text,
    profiles_folder,
    run_encoder,
)
from mobileintent_gym.errors import require_installed
from mobileintent_gym.files import sole_writer
from mobileintent_gym.metrics.execution import StepTally
from mobileintent_gym.metrics.pair import PairTally, all_success
from mobileintent_gym.results import (
    ENCODER_FIELDS,
    ResultsFileError,
    ResultsWriter,
    RunRecord,
    check_writable,
    episode_dict,
    episode_result,
    provenance_difference,
    read_run,
    score_text,
    subgoal_marks,
)
from mobileintent_gym.rollouts import Episode, EpisodeRecord, record_episode, teacher_forced
from mobileintent_gym.rollouts import episodes as rollout_episodes
from mobileintent_gym.tasks import TEMPLATES, UnknownTaskError, chosen_tasks, task_ids
from mobileintent_gym.users import UnknownProfileError, profile_names, resolve_users
from mobileintent_gym.users.cache import EncoderChoice, source_fingerprint
from mobileintent_gym.users.pair import profile_fingerprint
from mobileintent_gym.users.profile import (
    absolute_user,
    env_profiles_dir,
    profile_file,
    resolve_profile,
)
from mobileintent_gym.users.sets import distinct_users, user_set

OBSERVATION = ("instruction", "hierarchy")


@dataclass(frozen=True)
class Plan:
    """What a run will do, checked: users, tasks, the agent, where results go."""

    users: tuple[str, ...]
    tasks: tuple[str, ...]
    agent: AgentSpec
    out: Path | None
    html: Path | None
    frames: bool


def plan(args: argparse.Namespace) -> Plan:
    """Check the arguments without loading any model.

    Raises:
        UsageError: For contradictory options or an unwritable ``--out``.
        MobileIntentError: For an unknown user, task, template or agent (named).
    """
    if args.teacher_forced and args.device_has_state:
        raise UsageError("--teacher-forced replays each step from a fresh episode, which a "
                         "device that keeps its content (--device-has-state) cannot; drop one")
    real = not args.device.startswith("sim")
    if args.device_has_state and not real:
        raise UsageError("a simulated phone holds no user's content until a reset loads it: "
                         "with --device-has-state it would play on its built-in content; "
                         "drop --device-has-state")
    _check_ray(args, real)
    out = Path(args.out) if args.out else None
    html = _html_path(args.html, out)
    if real and html is not None and out is None:
        raise UsageError("--html of a run on a real device needs --out: its screens are "
                         "stored beside the results file")
    for flag, given in (("--resume", args.resume), ("--frames", args.frames)):
        if given and out is None:
            raise UsageError(f"{flag} works on the results file of --out; give --out")
    users = _users(args)
    tasks = _tasks(args)
    agent = parse_agent(args.agent)
    if html is not None and out is not None and html.resolve() == out.resolve():
        raise UsageError(f"--html {str(html)!r} is the results file of --out: give the "
                         "report another path")
    if html is not None and out is not None and out.resolve().is_relative_to(html.resolve()):
        raise UsageError(f"--html {str(html)!r} is a folder the results file of --out goes "
                         "in: give the report a file's path")
    for path, option in ((out, "--out"), (html, "--html")):
        if path is not None:
            check_writable(path, option)
    if html is not None:
        from mobileintent_gym.report.page import check_report_path

        check_report_path(html)
    return Plan(users, tasks, agent, out, html, real and (args.frames or html is not None))


def _check_replaceable(out: Path) -> None:
    """Refuse to start ``--out`` anew over a run that stopped early, or over another file.

    Replacing it would lose its episodes (hours of a large agent's work) for want of
    ``--resume``. A finished run's file, one with no episode done (an agent that failed
    at once, fixed), and an empty file are replaced.

    Raises:
        UsageError: Naming the file, how far its run got, and what to do instead.
    """
    if not out.is_file() or _empty(out):
        return
    try:
        old = read_run(out)
    except ResultsFileError as err:
        raise UsageError(f"--out: {err}; it is kept: move it or choose another --out") from err
    sizes = [old.provenance.get(part) for part in ("users", "tasks")]
    planned = math.prod(len(size) if isinstance(size, list) else 0 for size in sizes)
    if 0 < len(old.episodes) < planned:  # none done (a crash at once): nothing to lose
        raise UsageError(f"--out {str(out)!r} holds a run that stopped after "
                         f"{len(old.episodes)} of {planned} episodes: --resume continues it "
                         "(same arguments); to start over, delete it or choose another --out")


def _empty(path: Path) -> bool:
    """Whether ``path`` is an empty file: no run's record, nothing to lose or continue."""
    return path.is_file() and path.stat().st_size == 0


def _check_ray(args: argparse.Namespace, real: bool) -> None:
    """Refuse what Ray cannot do, before the env and the encoder load.

    Its actors cannot share one real device or store its screens, and no cluster may
    answer at ``--ray-address``.
    """
    if args.ray is None and args.ray_address is None:
        return
    if args.ray is not None and args.ray < 1:
        raise UsageError(f"--ray takes a number of actors of 1 or more, got {args.ray}")
    for flag, given in (("a real --device", real), ("--frames", args.frames),
                        ("--teacher-forced", args.teacher_forced)):
        if given:
            raise UsageError(f"--ray runs simulated phones in its actors; {flag} needs the "
                             "single-process run (drop --ray)")
    require_installed("ray", "distributed")  # before asking an address for a cluster
    from mobileintent_gym.distributed.pool import check_address

    check_address(args.ray_address)


def _html_path(value: str | bool | None, out: Path | None) -> Path | None:
    if value is None:
        return None
    if value is True:
        if out is None:
            raise UsageError("--html without a path needs --out (the report goes beside it)")
        return out.with_suffix(".html")
    return Path(value)


def _users(args: argparse.Namespace) -> tuple[str, ...]:
    profiles_folder(args.profiles)
    given = args.users or (_folder_users(args.profiles) if args.profiles else None)
    if given == []:  # --profiles without --users: the folder's own
        raise UsageError(f"--profiles {args.profiles!r} holds no profile (NAME.json or "
                         "NAME/profile.json); give --users, or another folder")
    try:  # absolute, so that the run can be viewed and resumed from any folder
        users = tuple(absolute_user(u) for u in resolve_users(given, args.profiles))
        distinct_users(users, args.profiles, ", who would be run and scored twice")
        return users
    except UnknownProfileError as err:
        raise UsageError(f"--users: {err}; give a set, one of those names, a profile's JSON "
                         "path, or --profiles DIR") from err


def _folder_users(folder: str) -> list[str]:
    """Every profile in ``folder``: by name, by path where the name is a set's (``test``)."""
    return [n if user_set(n) is None else str(profile_file(folder, n))
            for n in profile_names(folder)]


def _tasks(args: argparse.Namespace) -> tuple[str, ...]:
    unknown = [t for t in args.templates or () if t not in TEMPLATES]
    if unknown:
        raise UsageError(f"--templates: unknown {unknown}; known: {sorted(TEMPLATES)}")
    chosen = [*task_ids(tuple(args.templates))] if args.templates else []
    try:  # the templates' ids are known, so a bad one is among --tasks
        return chosen_tasks([*chosen, *(args.tasks or ())] or None)
    except UnknownTaskError as err:
        raise UsageError(f"--tasks: {err}") from err


def provenance(args: argparse.Namespace, run: Plan, env: gym.Env) -> dict[str, Any]:
    """Where a run comes from: versions, device, content settings, users, tasks, agent.

    The code is kept as hashes — of the package's files (``package_source``), of your
    agent's files (``agent_source``) — and each user's profile as its content's
    (``profiles_content``), so that a resumed run continues the same code on the same
    users, wherever their profiles are found. The values are as JSON gives them back
    (lists, not tuples), to compare with a file's.
    """
    base = env.unwrapped
    return json.loads(json.dumps({
        "package": "mobileintent-gym", "version": mobileintent_gym.__version__,
        "package_source": source_fingerprint(),
        "gymnasium": gym.__version__, "numpy": np.__version__,
        "agent": run.agent.names, "agent_source": run.agent.source, "seed": args.seed,
        "device": public_spec(args.device),
        "screen": [base.device.width, base.device.height],
        "device_has_state": args.device_has_state,
        "pair": asdict(base.pair),
        # Absolute, so that the run can be viewed (its screens rebuilt) from any folder.
        "profiles": args.profiles and str(Path(args.profiles).resolve()),
        "profiles_env": _absolute(env_profiles_dir()),
        "users": list(run.users), "tasks": list(run.tasks),
        "profiles_content": {user: profile_fingerprint(resolve_profile(user, args.profiles))
                             for user in run.users},
        "observation": list(base.fields), "teacher_forced": args.teacher_forced,
        "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }))


def _absolute(folder: Path | None) -> str | None:
    return folder and str(folder.resolve())


def scores(episodes: list[dict[str, Any]], users: Sequence[str] | None = None,
           finished: bool = True) -> dict[str, float | None]:
    """The PAIR scores of the episodes, and SSR when they were teacher-forced.

    Args:
        episodes: The episode dicts of a run.
        users: The run's users (all-success needs each group to hold every one of them).
        finished: ``False`` while the run is under way: all-success is then ``None``, as
            groups still miss users.
    """
    result = RunningScores()(episodes)
    if finished:
        result["all_success"] = all_success([episode_result(e) for e in episodes], users)
    return result


class RunningScores:
    """:func:`scores` of a run under way (``finished=False``), updated as episodes are added.

    Called with the run's episodes so far, each time one more, it counts only the new
    ones (:class:`~mobileintent_gym.metrics.pair.PairTally`,
    :class:`~mobileintent_gym.metrics.execution.StepTally`): rescoring the whole run
    after every episode made ``--out`` cost time that grows with the square of the
    episodes (a 2,880-episode run took 49–76 s instead of 12 s). SSR is reported once an
    episode was teacher-forced; one without matches counts as a task with no reference
    step.
    """

    def __init__(self) -> None:
        self._tally, self._steps, self._forced = PairTally(), StepTally(), False

    def __call__(self, episodes: Sequence[dict[str, Any]]) -> dict[str, float | None]:
        """The scores of ``episodes``, which extend those of the last call."""
        if len(episodes) < self._tally.tasks:  # another run's: count afresh
            self.__init__()
        for episode in episodes[self._tally.tasks:]:
            self._tally.add(episode_result(episode))
            matches = episode.get("teacher_forced")
            self._steps.add(matches or [])
            self._forced = self._forced or matches is not None
        result = self._tally.scores()
        if self._forced:
            result["ssr"] = self._steps.rate()
        return result


def _resumed(run: Plan) -> RunRecord | None:
    """The run that ``--resume`` continues.

    ``None`` when ``--out`` does not exist yet or is empty (as a run started anew takes an
    empty file): there is nothing to continue.

    Raises:
        UsageError: When ``--out`` is no evaluate run's record, naming what to give.
    """
    if run.out is None or not run.out.exists() or _empty(run.out):
        return None
    try:
        return read_run(run.out)
    except ResultsFileError as err:
        raise UsageError(f"--resume: {err}; give the --out of the run to continue, or "
                         "drop --resume and choose another --out") from err


def _relocated(old: RunRecord, made: dict[str, Any]) -> RunRecord:
    """``old`` with its users' profile files where this run finds them, if they moved.

    A user given as a profile's path is the same user wherever the file lies (its seeds
    come from the profile's content): a user of ``old`` whose path differs from the one
    this run has in its place is taken as moved when both profiles hold the same content.
    """
    before, now = old.provenance.get("users"), made["users"]
    hashes = old.provenance.get("profiles_content"), made["profiles_content"]
    if not (isinstance(before, list) and isinstance(hashes[0], dict)) or len(before) != len(now):
        return old
    moved = {was: new for was, new in zip(before, now, strict=True)
             if isinstance(was, str) and was != new and os.path.isabs(was) and os.path.isabs(new)
             and hashes[0].get(was) is not None and hashes[0].get(was) == hashes[1].get(new)}
    if not moved:
        return old
    provenance = {**old.provenance, "users": [moved.get(u, u) for u in before],
                  "profiles_content": {moved.get(u, u): h for u, h in hashes[0].items()}}
    episodes = [{**e, "user": moved[e["user"]]} if e.get("user") in moved else e
                for e in old.episodes]
    return replace(old, provenance=provenance, episodes=episodes)


def _check_same(old: RunRecord, made: dict[str, Any], out: Path,
                ignore: frozenset[str] = frozenset()) -> None:
    differ = provenance_difference(_comparable(old.provenance), _comparable(made), ignore)
    if differ and set(differ) <= _SOURCES:
        named = [_profiles_changed(old.provenance, made) if name == "profiles_content" else name
                 for name in differ]
        raise UsageError(f"--resume: the code or a user's profile changed since {str(out)!r} "
                         f"was written ({', '.join(named)}), or a version that did not record "
                         "them wrote it; continue it with the same code and profiles, or "
                         "choose another --out")
    if differ:
        raise UsageError(f"--resume: {str(out)!r} was written with other settings "
                         f"({', '.join(differ)}); rerun with the same arguments or another --out")


def _profiles_changed(old: dict[str, Any], made: dict[str, Any]) -> str:
    """``profiles_content`` and the users whose profile it says changed (``of 'ana', …``)."""
    before, now = (p.get("profiles_content") for p in (old, made))
    if not (isinstance(before, dict) and isinstance(now, dict)):
        return "profiles_content"
    users = sorted((u for u in before.keys() | now.keys() if before.get(u) != now.get(u)),
                   key=str)
    return f"profiles_content of {', '.join(repr(str(u)) for u in users)}"


# The provenance's hashes of the code and the users (see provenance()).
_SOURCES = frozenset({"package_source", "agent_source", "profiles_content"})


def _check_done(old: RunRecord, run: Plan) -> None:
    """Refuse done episodes the run would not have run, or has run twice."""
    planned = {(user, task) for user in run.users for task in run.tasks}
    seen: set[tuple[str, str]] = set()
    for episode in old.episodes:
        pair = episode["user"], episode["task"]
        if pair not in planned or pair in seen:
            why = "twice" if pair in seen else "though the run has no such episode"
            raise UsageError(f"--resume: {str(run.out)!r} holds episode {episode['index']} "
                             f"({pair[0]}, {pair[1]}) {why}; rerun with another --out")
        seen.add(pair)


def _comparable(provenance: dict[str, Any]) -> dict[str, Any]:
    """A provenance as a resumption compares it: what ran, not how it was written.

    A simulated device by its kind (``sim`` and ``sim:1080x2400`` are one phone: the
    screen is a field of its own), the observation fields in any order, the encoder by
    its model and whether it was a fallback (the reason is worded by what found it: the
    files on disk, or loading).
    """
    device, fields = provenance.get("device"), provenance.get("observation")
    return {**provenance,
            "device": "sim" if isinstance(device, str) and device.startswith("sim") else device,
            "observation": sorted(fields, key=str) if isinstance(fields, list) else fields,
            "encoder_fallback": provenance.get("encoder_fallback") is not None}


def _frames_saver(run: Plan, index: int, names: list[str]) -> Callable[[np.ndarray], None]:
    """A frame hook storing PNGs beside ``--out`` (for screens that cannot be re-rendered)."""
    folder = run.out.with_name(run.out.stem + "_frames")
    folder.mkdir(exist_ok=True)

    def save(frame: np.ndarray) -> None:
        name = f"{folder.name}/{index:04d}_{len(names):02d}.png"
        Image.fromarray(frame).save(run.out.parent / name, compress_level=1)
        names.append(name)

    return save


def env_kwargs(args: argparse.Namespace, run: Plan) -> dict[str, Any]:
    """What the Execute env of the run is made with (here, or in each Ray actor)."""
    return dict(device=args.device, users=run.users, tasks=run.tasks,
                observation=tuple(args.observation), load_state=not args.device_has_state,
                profiles_dir=args.profiles)


def actor_env_kwargs(args: argparse.Namespace, run: Plan, encoder: EncoderChoice
                     ) -> dict[str, Any]:
    """What each Ray actor's env is made with: the run's, requiring this process's encoder.

    The results file records the model chosen here; an actor on a node without it (no
    ``[embed]`` extra, another model in its cache) would rank content with another one and
    say nothing. Required, such an actor's reset fails naming both.
    """
    return {**env_kwargs(args, run), "require_encoder": encoder.name}


def _records(args: argparse.Namespace, run: Plan, env: gym.Env, todo: list[Episode],
             first: int, encoder: EncoderChoice) -> Iterator[tuple[EpisodeRecord, dict[str, Any]]]:
    """Each episode's record and extra fields, in the order of ``todo``."""
    make_agent = run.agent.factory()
    if not todo:  # a finished run resumed
        return
    if args.ray is not None or args.ray_address is not None:
        from mobileintent_gym.distributed import RolloutPool

        with RolloutPool(args.ray, env_kwargs=actor_env_kwargs(args, run, encoder),
                         address=args.ray_address, progress=False) as pool:
            yield from ((record, {}) for record in pool.ordered(todo, make_agent))
        return
    for index, episode in enumerate(todo, first):
        names: list[str] = []
        hook = _frames_saver(run, index, names) if run.frames else None
        record = record_episode(env, make_agent(env, episode.seed), *episode, hook)
        extra: dict[str, Any] = {"frames": names} if run.frames else {}
        if args.teacher_forced:
            extra["teacher_forced"] = teacher_forced(env, make_agent, episode.user,
                                                     episode.task, args.seed)
        yield record, extra


def run_all(args: argparse.Namespace, run: Plan, env: gym.Env, writer: ResultsWriter | None,
            done: list[dict[str, Any]], encoder: EncoderChoice) -> list[dict[str, Any]]:
    """Run every (user, task) not in ``done``, recording each as it finishes.

    ``encoder`` is the one that ranks the users' content here (Ray actors load its kind).
    """
    episodes = list(done)
    todo = rollout_episodes(run.users, run.tasks, args.seed,
                            skip={(e["user"], e["task"]) for e in done},
                            profiles_dir=args.profiles)
    with Progress(len(todo) + len(done), done=len(done),
                  successes=sum(bool(e["success"]) for e in done)) as progress:
        for record, extra in _records(args, run, env, todo, len(episodes), encoder):
            episodes.append(episode_dict(record, len(episodes), **extra))
            if writer is not None:
                writer.add(episodes[-1])
            progress.update(record.result.success)
    return episodes


def _main(args: argparse.Namespace) -> int:
    run = plan(args)
    with sole_writer(run.out) if run.out else contextlib.nullcontext():
        if run.out is not None and not args.resume:  # read once no other run writes it
            _check_replaceable(run.out)
        return _evaluate(args, run)


def _evaluate(args: argparse.Namespace, run: Plan) -> int:
    """:func:`_main` once the arguments are checked (and ``--out`` is this process's)."""
    env = gym.make("Act2Intent-Execute-v0", **env_kwargs(args, run))
    writer: ResultsWriter | None = None
    try:
        made = provenance(args, run, env)
        old = _resumed(run) if args.resume else None
        if old is not None:  # all but the encoder can be compared before it loads
            old = _relocated(old, made)
            _check_same(old, made, run.out, ENCODER_FIELDS)
        encoder = run_encoder(args.require_encoder)
        # The content this env loads must be the recorded model's (it may load it now). Set
        # here, as Ray actors get it (actor_env_kwargs): the env is made first, so that a
        # device that cannot be opened is named before any encoder is announced or loaded.
        env.unwrapped.require_encoder = encoder.name
        made |= {"encoder": encoder.name, "encoder_fallback": encoder.fallback_reason}
        done: list[dict[str, Any]] = []
        if old is not None:
            _check_same(old, made, run.out)
            _check_done(old, run)
            made["started"], done = old.provenance.get("started"), old.episodes
            print(f"resuming {run.out}: {len(done)} episodes done", file=sys.stderr)
        elif args.resume:  # a misspelt --out would start anew unseen
            print(f"--resume: {run.out} holds no run to continue; starting a new run there",
                  file=sys.stderr)
        writer = ResultsWriter(run.out, made, done, RunningScores()) if run.out else None
        episodes = run_all(args, run, env, writer, done, encoder)
        final = scores(episodes, run.users)
        if writer is not None:
            writer.finish(final)
    finally:
        env.close()
        if writer is not None:
            writer.close()
    _report(RunRecord(made, episodes, final), run, args.episodes)
    return 0


def _report(record: RunRecord, run: Plan, every: bool = False) -> None:
    """Print each user's solved tasks (and each episode when ``every``), then the scores."""
    solved: dict[str, list[bool]] = {}
    for e in record.episodes:
        solved.setdefault(e["user"], []).append(bool(e["success"]))
        if every:
            print(f"{e['user']:<12} {e['task']:<28} success={int(e['success'])} "
                  f"subgoals={subgoal_marks(e)} steps={len(e['steps'])}")
    for user, results in solved.items():
        print(f"{user:<12} solved {sum(results)}/{len(results)} tasks")
    print(" ".join(f"{k}={score_text(v)}" for k, v in record.scores.items()))
    if run.html is not None:
        from mobileintent_gym.report import write_report

        write_report(record, run.html, frames_dir=run.out.parent if run.out else None)
        print(f"report: {run.html}")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``evaluate`` sub-command."""
    parser = subparsers.add_parser("evaluate", help="run an agent over users x tasks")
    parser.add_argument("--device", default="sim", help="sim, sim:WxH, adb:<serial> or "
                        "appium:<url>[?udid=<serial>][&exclusive=false]")
    parser.add_argument("--agent", default="oracle", help=SPEC_HELP)
    parser.add_argument("--episodes", action="store_true",
                        help="print one line per episode (task, success, subgoals, steps)")
    parser.add_argument("--users", nargs="+", action=Repeated,
                        help="sets of built-in users (train, val, test, "
                        "demo, all) and/or profile names or paths (default: every profile in "
                        "--profiles, else the test set)")
    parser.add_argument("--templates", nargs="+", action=Repeated,
                        help="template ids, e.g. G-SPT-02 (each "
                        "one's tasks; with --tasks, those too)")
    parser.add_argument("--tasks", nargs="+", action=Repeated, help="full task ids, e.g. "
                        "G-SPT-02:personal:implicit (default without --templates: all tasks)")
    parser.add_argument("--profiles", type=path_text, help="folder of PersonaLens profiles")
    parser.add_argument("--device-has-state", action="store_true",
                        help="the device already holds the user's content (serve-adb --user)")
    parser.add_argument("--teacher-forced", action="store_true",
                        help="also score SSR: the agent's action at each step of the oracle's "
                        "trajectory, from that step's screen")
    # Any integer: each episode's seed is derived from it (rollouts.episodes).
    parser.add_argument("--seed", type=int, default=0, help="any integer: each episode's "
                        "seed (0 or more) is derived from it, its user and its task")
    parser.add_argument("--observation", nargs="+", action=Repeated, default=list(OBSERVATION),
                        choices=("instruction", "hierarchy", "screenshot"),
                        help="what the agent observes (default: instruction hierarchy)")
    parser.add_argument("--out", type=path_text,
                        help="results file (JSON, written as episodes finish)")
    parser.add_argument("--resume", action="store_true",
                        help="skip the episodes --out already holds (same arguments)")
    parser.add_argument("--html", type=path_text, nargs="?", const=True,
                        help="also write the HTML report (default: --out with .html)")
    parser.add_argument("--frames", action="store_true",
                        help="store a real device's screens beside --out (implied by --html "
                        "there; simulated runs are re-rendered instead)")
    parser.add_argument("--ray", type=int, metavar="N",
                        help="run the episodes on N Ray actors (extra [distributed]); the "
                        "results equal a single-process run's")
    parser.add_argument("--ray-address", metavar="ADDR",
                        help="use the Ray cluster at ADDR (default: a local one); without "
                        "--ray, one actor per CPU of the cluster")
    add_require_encoder(parser)
    parser.set_defaults(func=_main)

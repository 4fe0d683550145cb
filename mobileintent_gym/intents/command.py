"""``mobileintent-gym generate``: users live days on their phones; sessions are exported.

Writes, per user, ``<out>/<user>/<date>.json`` (Act2Intention trajectories; with
``--screenshots`` also ``<out>/<user>/<date>/*.png``), ``intentions.csv`` and
``behaviour.json`` (a KnowU behaviour log), and ``<out>/summary.json``; prints a progress bar
and a summary: segments, event classes, intentions whose success the judge checked (the
summary also names the encoder that ranked the apps' content).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from mobileintent_gym.console import (
    Repeated,
    UsageError,
    add_require_encoder,
    output_folder,
    path_text,
    positive_int,
    profiles_folder,
    run_encoder,
    seed_int,
    size_text,
)
from mobileintent_gym.envs.days import MAX_DAYS, check_days
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.files import drop_stale_stages, sole_writer, staged_into
from mobileintent_gym.intents.act2intention import InvalidDataError, export_sessions
from mobileintent_gym.intents.generator import GeneratorConfig, UserLife
from mobileintent_gym.intents.knowu import behaviour_log, load_knowu_habits, write_behaviour_log
from mobileintent_gym.intents.schema import Session
from mobileintent_gym.users.encoders import check_ranked_by
from mobileintent_gym.users.sets import distinct_users, resolve_users


def progress(done: int, total: int, note: str, out: TextIO, width: int = 30) -> None:
    """Draw a one-line progress bar (redrawn in place; a newline when complete).

    Nothing is drawn when ``out`` is not a terminal: logs and pipes stay clean.
    """
    if not getattr(out, "isatty", lambda: False)():
        return
    filled = width * done // max(1, total)
    end = "\n" if done >= total else ""
    out.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {note}{end}")
    out.flush()


def summarise(sessions: Sequence[Session], seconds: float, dropped: int = 0) -> dict:
    """Counts of a generation run: segments, noise, classes, judged successes, speed.

    An interrupted intention (two segments) counts once, as in the intention CSV;
    ``dropped`` is the number of intentions the judge found not achieved (left out).
    """
    intentions = [s for session in sessions for s in session.done()]
    segments = sum(len(session.segments) for session in sessions)
    return {
        "users": len({s.user for s in sessions}), "sessions": len(sessions),
        "segments": segments, "intentions": len(intentions),
        "noise": sum(seg.is_noise for session in sessions for seg in session.segments),
        "steps": sum(len(seg.steps) for session in sessions for seg in session.segments),
        "judged": sum(seg.success is not None for seg in intentions),
        "succeeded": sum(bool(seg.success) for seg in intentions),
        "dropped": dropped,
        "classes": dict(Counter(seg.event for seg in intentions).most_common()),
        "seconds": round(seconds, 2),
        "segments_per_minute": round(60 * segments / seconds) if seconds else None,
    }


def _user_ids(users: Sequence[str], profiles: str | None) -> list[str]:
    """Each user's id (the name of its output folder).

    Raises:
        UsageError: When two profiles have one id: the second would overwrite the first.
    """
    return list(distinct_users(users, profiles, ", whose files would overwrite each other"))


def _knowu(pairs: Sequence[str], ids: Sequence[str]) -> tuple:
    """Each user's KnowU habits, every file named for them merged (``ids``: the users).

    Raises:
        UsageError: For a pair that is not USER=PATH, a user that is not generated, or a
            file that cannot be read as KnowU habits.
    """
    habits: dict[str, tuple] = {}
    for pair in pairs:
        user, sep, path = pair.partition("=")
        if not sep:
            raise UsageError(f"--knowu takes USER=PATH, got {pair!r}")
        if user not in ids:
            raise UsageError(f"--knowu names {user!r}, which is not generated; "
                             f"the users are {sorted(ids)}")
        try:
            habits[user] = habits.get(user, ()) + tuple(load_knowu_habits(path))
        except InvalidDataError as err:
            raise UsageError(f"--knowu {user}=…: {err}") from err  # err names the file
    return tuple(habits.items())


def _main(args: argparse.Namespace) -> int:
    out = Path(args.out)
    output_folder(out)
    with sole_writer(out):  # two runs would both find it empty, and mix their days there
        drop_stale_stages(out)
        if out.is_dir() and any(out.iterdir()):  # an earlier run's files would stay beside
            raise UsageError(f"--out {out} holds files already; give a new or empty folder "
                             "(a run writes only its own users and days beside them)")
        with staged_into(out) as folder:  # an interrupted run leaves no part of itself
            return _generate(args, folder)


def _generate(args: argparse.Namespace, out: Path) -> int:
    """:func:`_main` into the folder ``out``, empty and this run's alone."""
    width, height = args.size
    users = resolve_users(args.users, profiles_folder(args.profiles))
    config = GeneratorConfig(width, height, profiles_dir=args.profiles,
                             habits=_knowu(args.knowu or (), _user_ids(users, args.profiles)))
    encoder = run_encoder(args.require_encoder)  # announces the model ranking the content
    sessions, dropped, began = [], 0, time.perf_counter()
    for n, user in enumerate(users):
        life = UserLife(user, args.seed, config)
        check_ranked_by(life.user, life.content.encoder, encoder.name, "the encoder announced")
        life.date(args.days - 1)  # a last day past the dated ones: refused before any is lived
        days = []
        for day in range(args.days):
            days.append(life.day(day))
            done = n * args.days + day + 1
            progress(done, len(users) * args.days, f"user-days ({life.user})", sys.stderr)
        life.close()
        dropped += life.dropped
        export_sessions(days, out, args.screenshots, (width, height))
        write_behaviour_log(behaviour_log(days), out / life.user / "behaviour.json")
        sessions += days
    summary = {**summarise(sessions, time.perf_counter() - began, dropped),
               "encoder": encoder.name, "encoder_fallback": encoder.fallback_reason}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    print(f"{summary['segments']} segments ({summary['intentions']} intentions, "
          f"{summary['noise']} noise, {summary['steps']} steps) for {summary['users']} users "
          f"x {args.days} days; success checked by the judge: {summary['succeeded']}/"
          f"{summary['judged']} kept, {dropped} not achieved and left out; "
          f"{summary['segments_per_minute']} segments/min")
    print("classes: " + ", ".join(f"{k} {v}" for k, v in summary["classes"].items()))
    return 0


def _days(text: str) -> int:
    """An argparse ``type`` for ``--days``: 1 to :data:`~.envs.days.MAX_DAYS`, as the envs take.

    Raises:
        argparse.ArgumentTypeError: For anything else (a count mistyped a thousandfold
            would run for days before it wrote anything).
    """
    days = positive_int(text)
    try:
        check_days(days=days)
    except MobileIntentError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return days


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``generate`` sub-command."""
    parser = subparsers.add_parser("generate", help="generate users' intention sessions")
    parser.add_argument("--users", nargs="+", action=Repeated, default=["test"],
                        help="sets of built-in users (train, val, test, demo, all) and/or "
                        "profile names or paths")
    parser.add_argument("--days", type=_days, default=7,
                        help=f"days each user lives, at most {MAX_DAYS} (default 7)")
    parser.add_argument("--out", type=path_text, required=True, help="output folder")
    parser.add_argument("--screenshots", action="store_true",
                        help="also write the screen of every step as a PNG")
    parser.add_argument("--seed", type=seed_int, default=0,
                        help="seed of the routines and days (default 0)")
    parser.add_argument("--profiles", type=path_text, help="folder of PersonaLens profiles")
    parser.add_argument("--size", type=size_text,
                        default="1080x2400", help="phone screen WIDTHxHEIGHT")
    parser.add_argument("--knowu", nargs="+", action=Repeated, metavar="USER=PATH",
                        help="add the habits of a KnowU profile YAML to a user's routine "
                             "(repeatable)")
    add_require_encoder(parser)
    parser.set_defaults(func=_main)

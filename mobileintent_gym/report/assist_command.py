"""``mobileintent-gym assist``: play one Assist day with a baseline and draw it as a strip.

The strip (:mod:`mobileintent_gym.report.strip`) shows every step of the day: the screen,
the action taken on it, who took it (the user, or the assistant in a blue frame) and each
proposal on green (accepted) or red (rejected). The episode's scores are printed.

Example::

    mobileintent-gym assist --agent history-oracle --user demo-ana --out out/assist.png
    mobileintent-gym assist --agent oracle --steps 1:40 --columns 8 --out out/oracle.png
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import gymnasium as gym

from mobileintent_gym.agents.assist import ASSISTANTS
from mobileintent_gym.checks import is_digits
from mobileintent_gym.console import (
    UsageError,
    add_require_encoder,
    count_int,
    one_user,
    path_text,
    plain,
    positive_int,
    profiles_folder,
    run_encoder,
    seed_int,
    size_text,
)
from mobileintent_gym.envs.assist import ASSIST_NOISE
from mobileintent_gym.intents.generator import GeneratorConfig
from mobileintent_gym.report.images import image_format, save_image
from mobileintent_gym.report.strip import draw_strip, record_assist
from mobileintent_gym.results import check_writable


def step_range(text: str, count: int | None = None) -> slice:
    """The frames ``FIRST:LAST`` names (steps counted from 1, both included; either empty).

    Args:
        text: The ``--steps`` value.
        count: The episode's steps (``None``: not known yet; the form alone is checked).

    Raises:
        UsageError: When it is malformed, FIRST is 0 or after LAST, or it selects no step
            of the ``count`` there are.
    """
    first, sep, last = text.partition(":")
    if not sep or not all(is_digits(p) or p == "" for p in (first, last)):
        raise UsageError(f"--steps must be FIRST:LAST (e.g. 1:40), got {text!r}")
    start, stop = int(first or 1), int(last) if last else count
    if start < 1 or (last and int(last) < start):
        raise UsageError(f"--steps {text!r}: steps count from 1, and FIRST comes no later "
                         "than LAST")
    if count is not None and start > count:
        raise UsageError(f"--steps {text!r} selects none of the episode's {count} steps")
    return slice(start - 1, stop)


def _main(args: argparse.Namespace) -> int:
    step_range(args.steps)  # its form, before the day is played; its range after
    if args.day >= args.play_days:
        raise UsageError(f"--day {args.day}: the played days are 0 to {args.play_days - 1} "
                         f"(--play-days {args.play_days})")
    one_user(args.user)
    size = args.size
    if args.frame_width > size[0]:  # every frame of the day is kept at this width
        raise UsageError(f"--frame-width {args.frame_width} is wider than the screen "
                         f"({size[0]} px); frames are drawn at most at the screen's size")
    out = Path(args.out)
    check_writable(out, "--out")
    image_format(out, "--out")
    config = GeneratorConfig(*size, noise=ASSIST_NOISE,
                             profiles_dir=profiles_folder(args.profiles))
    run_encoder(args.require_encoder)  # announces the model that ranks the content
    env = gym.make("Act2Intent-Assist-v0", users=[args.user], history_days=args.history_days,
                   play_days=args.play_days, seed=args.data_seed, config=config)
    try:
        agent = ASSISTANTS[args.agent](env, args.seed)
        frames, scores = record_assist(env, agent, args.frame_width, args.seed,
                                       {"user": args.user, "day": args.day})
    finally:
        env.close()
    chosen = step_range(args.steps, len(frames))
    save_image(draw_strip(frames[chosen], size, args.columns, chosen.start + 1), out)
    print(json.dumps(scores))
    print(f"strip: {out}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``assist`` sub-command."""
    parser = subparsers.add_parser(
        "assist", help="play an Act2Intent-Assist day with a baseline; draw it as a strip",
        description=plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", choices=sorted(ASSISTANTS), default="history-oracle",
                        help="the baseline assistant (default history-oracle)")
    parser.add_argument("--user", default="demo-ana", help="profile name or path")
    parser.add_argument("--profiles", type=path_text, help="folder searched first for --user's "
                        "profile (NAME.json or NAME/profile.json)")
    parser.add_argument("--day", type=count_int, default=0, help="index among the played days")
    parser.add_argument("--history-days", type=positive_int, default=3,
                        help="days of the user's life the assistant has seen")
    parser.add_argument("--play-days", type=positive_int, default=2,
                        help="days after them that episodes play (--day picks one)")
    parser.add_argument("--data-seed", type=seed_int, default=0, help="seed of the generated days")
    parser.add_argument("--seed", type=seed_int, default=0, help="seed of the reset and the agent")
    parser.add_argument("--size", type=size_text,
                        default="540x1200", help="phone screen WIDTHxHEIGHT")
    parser.add_argument("--frame-width", type=positive_int, default=180,
                        help="width of a frame in the strip (at most the screen's)")
    parser.add_argument("--columns", type=positive_int, default=10, help="frames per row")
    parser.add_argument("--steps", default=":", help="FIRST:LAST steps to draw (from 1)")
    parser.add_argument("--out", type=path_text, required=True, help="PNG file")
    add_require_encoder(parser)
    parser.set_defaults(func=_main)

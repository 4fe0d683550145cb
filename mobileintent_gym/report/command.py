"""``mobileintent-gym view RUN.json``: the HTML report of a run, or a GIF of one episode.

Example::

    mobileintent-gym evaluate --agent random --templates G-SPT-02 --out out/run.json
    mobileintent-gym view out/run.json                 # writes out/run.html
    mobileintent-gym view out/run.json --gif 3         # writes out/run.3.gif
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from mobileintent_gym.console import UsageError, path_text, plain, run_encoder
from mobileintent_gym.evaluate import scores
from mobileintent_gym.report.gif import write_gif
from mobileintent_gym.report.images import image_format
from mobileintent_gym.report.page import check_report_path, write_report
from mobileintent_gym.report.screens import ScreenSource, is_simulated
from mobileintent_gym.results import RunRecord, check_writable, read_run, score_text
from mobileintent_gym.users.encoders import name_matches


def find_episode(run: RunRecord, selector: str) -> dict[str, Any]:
    """The episode ``selector`` names: its number in the report, or ``USER/TASK``.

    Raises:
        UsageError: When no episode matches; the message lists how to name one.
    """
    for episode in run.episodes:
        if selector in (str(episode["index"]), f"{episode['user']}/{episode['task']}"):
            return episode
    numbers = [e["index"] for e in run.episodes]
    span = f"{min(numbers)}-{max(numbers)}" if numbers else "none"
    first = run.episodes[0] if run.episodes else {"user": "demo-ana",
                                                  "task": "G-SPT-02:personal:implicit"}
    raise UsageError(f"--gif {selector!r} names no episode; give its number ({span}) "
                     f"or USER/TASK as the run names them, e.g. {first['user']}/{first['task']}")


def _check_encoder(run: RunRecord) -> None:
    """Announce the encoder; re-rendered content is only the run's under the run's encoder."""
    recorded = run.provenance.get("encoder")
    if not is_simulated(run.provenance) or recorded is None:
        return
    encoder = run_encoder()
    if not name_matches(encoder.name, recorded):
        print(f"view: the run's content was ranked by {recorded}, this process loads "
              f"{encoder.name}; its screens cannot be re-rendered here", file=sys.stderr)


def episodes_scores(run: RunRecord) -> dict[str, Any]:
    """The scores of ``run``'s episodes, as this version computes them.

    The file's scores are what its writer stored: a file edited by hand, or written by a
    version that scored otherwise, could show scores its episodes do not hold. Where they
    differ this says so (standard error), naming each. A file cut off before its scores
    (the run still going, or killed) gets them with all-success ``None``, as under way.
    """
    finished = run.scores.get("all_success") is not None
    try:
        found = scores(run.episodes, run.provenance.get("users"), finished=finished)
    except ValueError as err:  # a group short of a user: not the finished run it claims
        found = scores(run.episodes, finished=False)
        print(f"view: {err}", file=sys.stderr)
    differ = [f"{key} {score_text(value)} stored, {score_text(found.get(key))} from its "
              "episodes"
              for key, value in run.scores.items() if not _same(value, found.get(key))]
    if differ:
        print(f"view: the file's scores are not its episodes' ({'; '.join(differ)}): "
              "edited, or written by another version; the report shows its episodes'",
              file=sys.stderr)
    return found


def _same(stored: Any, found: Any) -> bool:
    if stored is None or found is None:
        return stored is found
    return isinstance(stored, int | float) and math.isclose(stored, found, rel_tol=1e-9,
                                                            abs_tol=1e-12)


def _main(args: argparse.Namespace) -> int:
    if args.gif_out is not None and args.gif is None:
        raise UsageError(f"--gif-out {args.gif_out!r} names the GIF of --gif EPISODE; give "
                         "--gif too")
    path = Path(args.run)
    run = read_run(path)
    run.scores = episodes_scores(run)
    episode = find_episode(run, args.gif) if args.gif is not None else None
    html = Path(args.html) if args.html else (None if episode else path.with_suffix(".html"))
    gif = (Path(args.gif_out or path.with_suffix(f".{episode['index']}.gif")) if episode
           else None)
    for target, option in ((html, "--html"), (gif, "--gif-out")):
        if target is None:
            continue
        if target.resolve() == path.resolve():
            raise UsageError(f"{option} {str(target)!r} is the run's own file: give another "
                             "path")
        check_writable(target, option)
    if html is not None:
        check_report_path(html)
    if gif is not None:
        image_format(gif, "--gif-out", frames=True)
    _check_encoder(run)
    if html is not None:
        print(f"report: {write_report(run, html, frames_dir=path.parent)}")
    if episode is not None:
        source = ScreenSource(run.provenance, path.parent)
        try:
            screens = source.screens(episode)
        finally:
            source.close()
        if not screens.frames:
            raise UsageError(f"episode {args.gif} has no screens: {screens.problem}")
        print(f"gif: {write_gif(episode, screens, tuple(run.provenance['screen']), gif)}")
        if screens.problem:  # a GIF of the screens before it: said, as the report says it
            print(f"gif: {len(screens.frames)} of {len(episode['steps']) + 1} screens: "
                  f"{screens.problem}", file=sys.stderr)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``view`` sub-command."""
    parser = subparsers.add_parser(
        "view", help="HTML report of an evaluate run, or a GIF of one episode",
        description=plain(__doc__), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", type=path_text, help="results file of `evaluate --out`")
    parser.add_argument("--html", type=path_text,
                        help="report file (default: RUN with .html; with --gif, "
                        "only when given)")
    parser.add_argument("--gif", metavar="EPISODE",
                        help="write a GIF of this episode (number in the report, or USER/TASK)")
    parser.add_argument("--gif-out", type=path_text, help="GIF file (default: RUN.EPISODE.gif)")
    parser.set_defaults(func=_main)

"""``mobileintent-gym tour``: a scripted walk through every installed app, saved as PNGs.

The tour starts on the launcher; for each app it opens the app from its launcher icon
(turning launcher pages until the icon shows), runs the app's own steps
(:attr:`~mobileintent_gym.phone.app.App.tour`) and goes home.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from PIL import Image

from mobileintent_gym.actions import Action
from mobileintent_gym.console import UsageError, output_folder, path_text, size_text
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.files import drop_stale_stages, sole_writer, staged_into
from mobileintent_gym.phone import launcher
from mobileintent_gym.phone.app import App
from mobileintent_gym.phone.events import ActResult
from mobileintent_gym.phone.phone import SimPhone
from mobileintent_gym.phone.query import find, find_all
from mobileintent_gym.phone.query import tap as tap_on
from mobileintent_gym.phone.ui import center

Step = Callable[[str], Action]
"""A tour step: the action to take on the screen whose dump is given."""

MAX_PAGES = 16


class TourError(MobileIntentError):
    """A tour step that does not fit its screen (or whose action failed there)."""


def tap(**criteria: str) -> Step:
    """A step tapping the first element that matches ``criteria`` (see ``query.find``)."""
    return lambda xml: tap_on(xml, **criteria)


def tap_first(*choices: dict[str, str]) -> Step:
    """A step tapping the first match of the first of ``choices`` the screen has.

    For a toggle whose state the content sets: ``({"resource_id": "like", "desc": "Like"},
    {"resource_id": "like"})`` likes a post not liked yet, and on content where every post
    is liked (another seed, a real device) still taps one rather than stopping the tour.
    """
    def step(xml: str) -> Action:
        for criteria in choices[:-1]:
            node = next(find_all(xml, **criteria), None)
            if node is not None:
                return Action.click(*center(node.bounds))
        return tap_on(xml, **choices[-1])  # or names what the screen lacks

    return step


def tap_whole(**criteria: str) -> Step:
    """A step tapping the first match of ``criteria`` at least 9/10 as tall as the tallest.

    For a list of rows of one height just scrolled: the first match there may be a strip
    of a row scrolled nearly out of view, and a frame would show a tap on the strip and
    the next one a record the viewer never saw.
    """
    return lambda xml: _tap_whole(xml, criteria)


def _tap_whole(xml: str, criteria: dict[str, str]) -> Action:
    nodes = list(find_all(xml, **criteria))
    if not nodes:
        find(xml, **criteria)  # raises, naming the criteria
    heights = [node.bounds[3] - node.bounds[1] for node in nodes]
    whole = next(n for n, h in zip(nodes, heights, strict=True) if h >= 0.9 * max(heights))
    return Action.click(*center(whole.bounds))


def fixed(action: Action) -> Step:
    """A step that takes ``action`` whatever the screen."""
    return lambda xml: action


def steps(app: App) -> list[tuple[str, Step]]:
    """The tour of one app: open it from its launcher icon, its own steps, then HOME."""
    return ([(f"{app.id}_home", tap(text=app.label, resource_id=launcher.ICON))]
            + [(f"{app.id}_{name}", step) for name, step in app.tour]
            + [("home", fixed(Action.press("HOME")))])


def _opening(apps: Iterable[App]) -> list[tuple[str, Step, App | None]]:
    """:func:`plan`, each step with the app whose icon it taps (``None`` for the others)."""
    return [("launcher", fixed(Action.complete()), None)] + [
        (name, step, None if n else app)
        for app in apps for n, (name, step) in enumerate(steps(app))]


def plan(apps: Iterable[App]) -> list[tuple[str, Step]]:
    """The whole tour over ``apps``: the launcher, then each app's :func:`steps`."""
    return [(name, step) for name, step, _ in _opening(apps)]


def walk(phone: SimPhone) -> Iterator[tuple[str, str, ActResult]]:
    """Drive ``phone`` through :func:`plan` of its apps from a reset, one step at a time.

    Yields:
        Each step's name, the dump its action was chosen on, and what the action did.

    Raises:
        TourError: When a step finds nothing to act on or its action fails, naming the
            step, the screen and why.
    """
    phone.reset(seed=0)
    for name, step, opens in _opening(phone.apps.values()):
        if opens is not None:  # by position: an app's own step may be called "…_home" too
            _turn_to(phone, opens)
        xml = phone.hierarchy()
        try:
            result = phone.act(step(xml))
        except MobileIntentError as err:  # an app's tour step that does not fit its screen
            raise TourError(f"tour step {name!r} on {phone.route()}: {err}") from err
        yield name, xml, result


def run_tour(phone: SimPhone, out: Path | None = None) -> list[dict]:
    """Drive ``phone`` through :func:`plan` of its apps; optionally save a PNG per step.

    Returns:
        One record per step: name, action, route before and after, effect.
    """
    records: list[dict] = []
    steps = len(plan(phone.apps.values()))
    for name, _, result in walk(phone):
        records.append({"name": name, "action": result.event.action,
                        "route_before": result.event.route_before, "route": result.route,
                        "effect": result.effect, "note": result.note})
        if out is not None:
            Image.fromarray(phone.screenshot()).save(out / _frame(len(records), name, steps))
    return records


def _frame(number: int, name: str, steps: int) -> str:
    """The PNG of step ``number`` (from 1) of ``steps``: they sort in order, 001 … 154."""
    return f"{number:0{len(str(steps))}d}_{name}.png"


def _turn_to(phone: SimPhone, app: App) -> None:
    """Swipe to the launcher page that shows ``app``'s icon."""
    for _ in range(MAX_PAGES):
        if next(find_all(phone.hierarchy(), text=app.label, resource_id=launcher.ICON), None):
            return
        phone.act(Action.swipe("LEFT"))


def _frames(names: list[str]) -> set[str]:
    """The frames of a tour of the steps ``names``."""
    return {_frame(number, name, len(names)) for number, name in enumerate(names, start=1)}


def _earlier_tour(out: Path, steps: list[str]) -> list[Path]:
    """The files an earlier tour wrote in ``out``, which a new one of ``steps`` replaces.

    Those are its ``tour.json``, the frames that log names, and frames of ``steps`` (a
    tour stopped while its files were moved in).

    Raises:
        UsageError: When ``out`` holds anything else: the new frames would mix with it.
    """
    found = sorted(out.iterdir()) if out.is_dir() else []
    ours = {"tour.json"} | _frames(steps)
    with contextlib.suppress(OSError, ValueError, TypeError, KeyError):  # no tour's log
        log = json.loads((out / "tour.json").read_text())
        ours |= _frames([record["name"] for record in log])
    others = [p.name for p in found if p.name not in ours]
    if others:
        raise UsageError(f"--out {out} holds files that are no tour's ({', '.join(others[:3])}"
                         f"{' …' if len(others) > 3 else ''}); give a new or empty folder, "
                         "or one an earlier tour wrote")
    return found


def _main(args: argparse.Namespace) -> int:
    phone = SimPhone(*args.size)
    out = Path(args.out)
    output_folder(out)
    with sole_writer(out):
        drop_stale_stages(out)
        earlier = _earlier_tour(out, [name for name, _ in plan(phone.apps.values())])
        with staged_into(out) as folder:  # an interrupted tour leaves the earlier one
            records = run_tour(phone, folder)
            (folder / "tour.json").write_text(json.dumps(records, indent=1))
            written = {path.name for path in folder.iterdir()}
        for path in earlier:  # the frames of steps the new tour has not
            if path.name not in written:
                path.unlink(missing_ok=True)
    for r in records:
        print(f"{r['name']:<24} {r['action']:<22} {r['route_before']:>24} -> {r['route']}")
    print(f"{len(records)} frames written to {out}/")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``tour`` sub-command."""
    parser = subparsers.add_parser("tour", help="scripted tour of the apps, saved as PNGs")
    parser.add_argument("--out", type=path_text,
                        default="out/tour", help="folder for the PNG frames")
    parser.add_argument("--size", type=size_text,
                        default="1080x2400", help="phone screen WIDTHxHEIGHT: "
                        "320-3840 x 480-3840, the height at least 1.5 times the width")
    parser.set_defaults(func=_main)

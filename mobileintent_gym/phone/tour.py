"""``mobileintent-gym tour``: a scripted walk through every installed app, saved as PNGs.

The tour starts on the launcher; for each app it opens the app from its launcher icon
(turning launcher pages until the icon shows), runs the app's own steps
(:attr:`~mobileintent_gym.phone.app.App.tour`) and goes home.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from PIL import Image

from mobileintent_gym.actions import Action
from mobileintent_gym.console import output_folder
from mobileintent_gym.errors import DeviceError
from mobileintent_gym.phone import launcher
from mobileintent_gym.phone.app import App
from mobileintent_gym.phone.phone import SimPhone
from mobileintent_gym.phone.query import find_all
from mobileintent_gym.phone.query import tap as tap_on

Step = Callable[[str], Action]
"""A tour step: the action to take on the screen whose dump is given."""

MAX_PAGES = 16


def tap(**criteria: str) -> Step:
    """A step tapping the first element that matches ``criteria`` (see ``query.find``)."""
    return lambda xml: tap_on(xml, **criteria)


def fixed(action: Action) -> Step:
    """A step that takes ``action`` whatever the screen."""
    return lambda xml: action


def steps(app: App) -> list[tuple[str, Step]]:
    """The tour of one app: open it from its launcher icon, its own steps, then HOME."""
    return ([(f"{app.id}_home", tap(text=app.label, resource_id=launcher.ICON))]
            + [(f"{app.id}_{name}", step) for name, step in app.tour]
            + [("home", fixed(Action.press("HOME")))])


def plan(apps: Iterable[App]) -> list[tuple[str, Step]]:
    """The whole tour over ``apps``: the launcher, then each app's :func:`steps`."""
    return [("launcher", fixed(Action.complete()))] + [s for app in apps for s in steps(app)]


def run_tour(phone: SimPhone, out: Path | None = None) -> list[dict]:
    """Drive ``phone`` through :func:`plan` of its apps; optionally save a PNG per step.

    Returns:
        One record per step: name, action, route before and after, effect.
    """
    records: list[dict] = []
    phone.reset(seed=0)
    opens = {f"{app.id}_home": app for app in phone.apps.values()}
    steps = plan(phone.apps.values())
    digits = len(str(len(steps)))  # frames sort by name in order: 001 … 154
    for name, step in steps:
        if name in opens:
            _turn_to(phone, opens[name])
        result = phone.act(step(phone.hierarchy()))
        records.append({"name": name, "action": result.event.action,
                        "route_before": result.event.route_before, "route": result.route,
                        "effect": result.effect, "note": result.note})
        if out is not None:
            frame = out / f"{len(records):0{digits}d}_{name}.png"
            Image.fromarray(phone.screenshot()).save(frame)
    return records


def _turn_to(phone: SimPhone, app: App) -> None:
    """Swipe to the launcher page that shows ``app``'s icon."""
    for _ in range(MAX_PAGES):
        if next(find_all(phone.hierarchy(), text=app.label, resource_id=launcher.ICON), None):
            return
        phone.act(Action.swipe("LEFT"))


def _main(args: argparse.Namespace) -> int:
    try:
        phone = SimPhone(args.width, args.height)  # checks the size before any folder exists
    except DeviceError as err:
        print(f"tour: {err}", file=sys.stderr)
        return 2
    out = Path(args.out)
    output_folder(out)
    out.mkdir(parents=True, exist_ok=True)
    records = run_tour(phone, out)
    (out / "tour.json").write_text(json.dumps(records, indent=1))
    for r in records:
        print(f"{r['name']:<24} {r['action']:<22} {r['route_before']:>24} -> {r['route']}")
    print(f"{len(records)} frames written to {out}/")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``tour`` sub-command."""
    parser = subparsers.add_parser("tour", help="scripted tour of the apps, saved as PNGs")
    parser.add_argument("--out", default="out/tour", help="folder for the PNG frames")
    parser.add_argument("--width", type=int, default=1080, help="screen width, 320-3840")
    parser.add_argument("--height", type=int, default=2400,
                        help="screen height, 480-3840 and at least 1.5 times the width")
    parser.set_defaults(func=_main)

"""``mobileintent-gym tour``: a scripted walk through both apps, saved as PNG frames."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from PIL import Image

from mobileintent_gym.actions import Action
from mobileintent_gym.errors import DeviceError
from mobileintent_gym.phone.phone import SimPhone
from mobileintent_gym.phone.query import tap

Step = Callable[[str], Action]


def _tap(**criteria: str) -> Step:
    return lambda xml: tap(xml, **criteria)


def _fixed(action: Action) -> Step:
    return lambda xml: action


TOUR: tuple[tuple[str, Step], ...] = (
    ("launcher", _fixed(Action.complete())),
    ("music_home", _tap(text="Music", resource_id="icon")),
    ("music_library", _tap(desc="Your Library")),
    ("music_recent_expanded", _tap(resource_id="recently_played")),
    ("music_liked", _tap(resource_id="liked_songs")),
    ("music_liked_scrolled", _fixed(Action.swipe("UP"))),
    ("music_track_menu", _tap(resource_id="more")),
    ("music_add_to_playlist", _tap(resource_id="add_to_playlist")),
    ("music_new_playlist", _tap(resource_id="new_playlist")),
    ("music_name_focused", _tap(resource_id="playlist_name")),
    ("music_name_typed", _fixed(Action.type_text("Rainy Night"))),
    ("music_created", _tap(resource_id="create")),
    ("music_playing", _tap(resource_id="track")),
    ("home", _fixed(Action.press("HOME"))),
    ("chat_list", _tap(text="Chat", resource_id="icon")),
    ("chat_conversation", _tap(resource_id="chat")),
    ("chat_input_focused", _tap(resource_id="input")),
    ("chat_typed", _fixed(Action.type_text("Understood"))),
    ("chat_sent", _tap(resource_id="send")),
    ("chat_back", _fixed(Action.press("BACK"))),
    ("chat_list_again", _fixed(Action.press("BACK"))),
    ("chat_discover", _tap(desc="Discover")),
    ("chat_moments", _tap(resource_id="moments")),
    ("chat_profile", _tap(resource_id="author")),
)


def run_tour(phone: SimPhone, out: Path | None = None) -> list[dict]:
    """Drive ``phone`` through :data:`TOUR`; optionally save a PNG per step.

    Returns:
        One record per step: name, action, route before and after, effect.
    """
    records = []
    phone.reset(seed=0)
    for name, step in TOUR:
        action = step(phone.hierarchy())
        result = phone.act(action)
        records.append({"name": name, "action": str(action),
                        "route_before": result.event.route_before, "route": result.route,
                        "effect": result.effect, "note": result.note})
        if out is not None:
            Image.fromarray(phone.screenshot()).save(out / f"{len(records):02d}_{name}.png")
    return records


def _main(args: argparse.Namespace) -> int:
    try:
        phone = SimPhone(args.width, args.height)  # checks the size before any folder exists
    except DeviceError as err:
        print(f"tour: {err}", file=sys.stderr)
        return 2
    out = Path(args.out)
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
    parser.add_argument("--height", type=int, default=2400, help="screen height, 480-3840")
    parser.set_defaults(func=_main)

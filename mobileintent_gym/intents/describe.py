"""Action descriptions in the Act2Intention format, written from a step's event and screens.

Each description reads ``"[On/In] <App>, <action details>, to <purpose>"`` in at most
:data:`MAX_WORDS` words: *On the home screen* or *In <App>* from the screen the action was
taken on; the details from the action and the element it hit (its text, else its title,
else the first text inside it); the purpose from what changed between the screen before
and the screen after (an app opened or left, a screen opened or returned to, a list
scrolled, a field filled) — or, for the step that completed the intention, the
intention's operation.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from mobileintent_gym.phone.events import StepEvent
from mobileintent_gym.phone.query import rid_suffix
from mobileintent_gym.phone.ui import Node
from mobileintent_gym.phone.widgets import SECTION_TITLE, TITLE

HOME_SCREEN = "On the home screen"
"""How a description of an action taken on the launcher begins (else ``In <App>``)."""

MAX_WORDS = 20
LAUNCHER = "launcher"
_TITLE_IDS = (TITLE, "alertTitle")
"""Ids of a screen's or a dialog's title; those of a record's heading end in ``_title``."""


def app_of(route: str) -> str | None:
    """The app id of a route (``None`` on the home screen)."""
    return None if route == LAUNCHER else route.split("/", 1)[0]


def screen_title(root: Node, route: str) -> str:
    """The name of the screen in front (its top layer): its first title, else its route's.

    A title is a text whose id is one of :data:`_TITLE_IDS` or a record's heading
    (``video_title``, ``note_title``; a list's ``section_title`` is none) and that lies in
    no item of a scrolling list: a row's or a card's title names the item, not the screen
    (a search's first result, a related video under the one playing).
    """
    top = root.children[-1] if root.children else root
    title = next(_titles(top), None)
    if title is not None:
        return title
    return "the home screen" if route == LAUNCHER else route.rsplit("/", 1)[-1].replace("_", " ")


def _titles(node: Node, scrolls: bool = False) -> Iterator[str]:
    """The titles in ``node``'s tree, in order; ``scrolls``: it lies in a scrolling view."""
    if scrolls and (node.clickable or node.long_clickable):
        return  # an item of a list
    name = rid_suffix(node.resource_id)
    if (name in _TITLE_IDS or (name.endswith("_title") and name != SECTION_TITLE)) and (
            node.text.strip()):
        yield node.text.strip()
    for child in node.children:
        yield from _titles(child, scrolls or node.scrollable)


def hit_label(event: StepEvent, before: Node) -> str:
    """What the element an action hit shows: its text, else its title, else its first text.

    A card's title names it better than what comes first in it (a video's duration).
    """
    hit = event.hit
    if hit is None:
        return ""
    if hit.text.strip():
        return hit.text.strip()
    for node in before.walk():
        if node.bounds == hit.bounds and node.resource_id == hit.resource_id:
            found = next(_titles(node), None) or next(
                (n.text.strip() for n in node.walk() if n.text.strip()), "")
            if found:
                return found
    return rid_suffix(hit.resource_id).replace("_", " ")


def _clip(text: str, words: int) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")


def _details(event: StepEvent, label: str, title: str, words: int) -> str:
    kind, _, arg = event.action.partition("[")
    arg = arg.removesuffix("]")  # the action's own: typed text may end in "]" too
    if kind in ("CLICK", "LONG_CLICK"):
        verb = "tap" if kind == "CLICK" else "long-press"
        if event.hit is None:
            key = f'the "{event.typed}" key' if event.typed else "the delete key"
            return f"{verb} {key}" if event.effect else f"{verb} an empty spot"
        if event.hit.cls.endswith("EditText"):
            return f'{verb} the "{_clip(label, words)}" field'
        return f'{verb} "{_clip(label, words)}"'
    if kind == "TYPE":
        return f'type "{_clip(arg, words)}"'
    if kind == "SWIPE":
        return f"swipe {arg.lower()} on {_clip(title, words)}"
    if kind == "PRESS":
        return f"press {arg.title()}"
    return "declare the task done"


def _purpose(event: StepEvent, apps: Mapping[str, str], titles: tuple[str, str],
             label: str) -> str:
    before, after = event.route_before, event.route_after
    if before == LAUNCHER and after != LAUNCHER:
        return f"open {apps.get(app_of(after), after)}"
    if after == LAUNCHER and before != LAUNCHER:
        return f"leave {apps.get(app_of(before), before)}"
    if after != before:
        back = event.action == "PRESS[BACK]" or (
            event.hit is not None and rid_suffix(event.hit.resource_id) == "up")
        if titles[0] == titles[1] and not back:  # a group expanded in place, a tab switched
            return f"show {label}" if label else f"show {titles[1]}"
        return f"{'go back to' if back else 'open'} {titles[1]}"
    if not event.effect:
        return "try it, with no effect"
    if event.action.startswith("SWIPE"):
        return f"see more of {titles[0]}"
    if event.action == "PRESS[BACK]":
        return "hide the keyboard"
    if event.action.startswith("TYPE") or (event.hit is None and event.typed):
        return "fill in the field"
    if event.hit is None:  # a key of the keyboard that types nothing: delete
        return "fix a typo"
    if event.hit.cls.endswith("EditText"):
        return "start typing there"
    return f"select {label}" if label else "select it"


def describe(event: StepEvent, before: Node, after: Node, apps: Mapping[str, str]) -> str:
    """The description of one step, from what its screens show.

    Every step is described alike: none is told the intention, so the step that achieved
    it reads as any other (naming the intention's operation there marked where each
    intention ends, which no screen shows).

    Args:
        event: The step's event.
        before: The screen the action was taken on (a parsed dump).
        after: The screen after it.
        apps: App id → display name.

    Returns:
        ``"[On/In] <App>, <action details>, to <purpose>"`` of at most :data:`MAX_WORDS`
        words.
    """
    app = app_of(event.route_before)
    where = HOME_SCREEN if app is None else f"In {apps.get(app, app)}"
    titles = (screen_title(before, event.route_before), screen_title(after, event.route_after))
    label = hit_label(event, before)
    why = _purpose(event, apps, titles, _clip(label, 4))
    for words in (6, 4, 2, 1):
        text = f"{where}, {_details(event, label, titles[0], words)}, to {why}"
        if len(text.split()) <= MAX_WORDS:
            return text
    return " ".join(text.split()[:MAX_WORDS])

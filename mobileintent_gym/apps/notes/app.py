"""Notes: a lifestyle notes app that mirrors RedBook's (Xiaohongshu's) structure.

Routes (names in :mod:`.ids`): ``notes/discover`` (the Discover feed: note cards, two to
a row), ``notes/note?id=`` (a note: author with Follow, cover, title, text, tags and date;
a comment box, like and save at the bottom, in :mod:`.note`), and ``notes/me`` (your
profile with the tabs Notes, Saved — ``notes/me/saved`` — and Liked — ``notes/me/liked``,
in :mod:`.me`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any, ClassVar

from mobileintent_gym.apps.notes import cards, icon, tour
from mobileintent_gym.apps.notes.content import CONTEXTS, build_state
from mobileintent_gym.apps.notes.ids import APP, PACKAGE, Rid, Route, Text
from mobileintent_gym.apps.notes.intents import NotesIntents
from mobileintent_gym.apps.notes.me import MeScreens
from mobileintent_gym.apps.notes.note import NoteScreen
from mobileintent_gym.apps.notes.state import NotesState, moved_state
from mobileintent_gym.phone import widgets
from mobileintent_gym.phone.app import App, Entry, Screen
from mobileintent_gym.phone.ui import Column, Node
from mobileintent_gym.phone.widgets import Ctx, Theme
from mobileintent_gym.users.pair import random_state

_NAV = (("Home", "home", ("open", Route.DISCOVER), Rid.NAV_HOME),
        ("Post", "plus", ("noop",), Rid.NAV_POST),
        (Text.ME, "person", ("open", Route.ME), Rid.NAV_ME))


class NotesApp(NotesIntents, NoteScreen, MeScreens, App):
    """The notes app."""

    id = APP
    package = PACKAGE
    label = "Notes"
    icon = staticmethod(icon.draw)
    color = (255, 36, 66)
    theme = Theme(background=(255, 255, 255), surface=(245, 245, 245), text=(34, 34, 34),
                  muted=(128, 128, 128), accent=(255, 36, 66), bar=(255, 255, 255),
                  divider=(235, 235, 235))
    home = Route.DISCOVER
    state_type = NotesState
    routes: ClassVar[dict[str, Screen]] = {
        Route.DISCOVER: Screen("discover_screen", tab=True),
        Route.ME: Screen("me_screen", tab=True),
        Route.ME_SAVED: Screen("me_screen"),
        Route.ME_LIKED: Screen("me_screen"),
        Route.NOTE: Screen("note_screen", params=("id",)),
    }
    tour = tour.STEPS

    def initial_state(self, seed: int) -> NotesState:
        """Built-in content for ``seed``."""
        return random_state(CONTEXTS, build_state, APP, seed)

    def moved(self, state: NotesState, by: timedelta) -> NotesState:
        """``state`` with its comments' times moved by ``by``."""
        return moved_state(state, by)

    def samples(self, state: NotesState) -> Mapping[str, Mapping[str, Any]]:
        """Parameters that open each parametrised route on ``state``."""
        return {Route.NOTE: {"id": state.discover[0]}}

    def frame(self, ctx: Ctx, tab: int) -> tuple[Node, Column]:
        """A tab's page with the bottom navigation, ``tab`` selected."""
        root, col = widgets.page(ctx, "root")
        items = [(label, glyph, intent, "", rid) for label, glyph, intent, rid in _NAV]
        root.add(widgets.bottom_nav(ctx, col.take_bottom(ctx.dp(60)), items, tab))
        return root, col

    def discover_screen(self, ctx: Ctx, entry: Entry, state: NotesState) -> Node:
        """The Discover feed: note cards, two to a row."""
        root, col = self.frame(ctx, 0)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), "Discover", back=False,
                                 actions=[("search", "Search", ("noop",))]))
        notes = [state.notes[n] for n in state.discover]
        root.add(self.scroll(entry, col.rest(), Rid.FEED, cards.grid(ctx, notes, state)))
        return root

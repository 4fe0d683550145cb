"""Reader: an e-book app that mirrors WeChat Reading's structure.

Routes (names in :mod:`.ids`): ``reader/home`` (the reading list: books begun, with how far
each is read), ``reader/discover`` (recommendations with their blurbs), ``reader/book?id=``
(a book's page, :mod:`.book`: cover, title, author, facts, progress, blurb, topics, the
books readers also enjoyed and Read), ``reader/me`` and the book list flow
(:mod:`.lists`): ``reader/book_list`` → ``reader/list_editor`` → ``reader/add_book`` (Add
Favorite Book) → ``reader/confirm_add?id=`` (a dialog; Add puts the book on top of the list).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from mobileintent_gym.apps.reader import icon, tour
from mobileintent_gym.apps.reader.book import BookScreen, open_book
from mobileintent_gym.apps.reader.content import CONTEXTS, build_state
from mobileintent_gym.apps.reader.ids import APP, PACKAGE, Desc, Rid, Route, Text
from mobileintent_gym.apps.reader.intents import ReaderIntents
from mobileintent_gym.apps.reader.lists import ListScreens
from mobileintent_gym.apps.reader.rows import book_row, genre, row_height
from mobileintent_gym.apps.reader.state import ReaderState, books, duration
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import App, Entry, Screen
from mobileintent_gym.phone.paint import Avatar, Fill
from mobileintent_gym.phone.ui import Column, Node
from mobileintent_gym.phone.widgets import Ctx, Theme
from mobileintent_gym.users.pair import random_state

_NAV = (("Reading", "library", ("open", Route.HOME), "", Rid.NAV_READING),
        (Desc.DISCOVER, "discover", ("open", Route.DISCOVER), "", Rid.NAV_DISCOVER),
        (Desc.ME, "person", ("open", Route.ME), "", Rid.NAV_ME))
_ME_ROWS = (("Reading stats", "album"), ("Notes and highlights", "bubble"),
            ("Settings", "settings"))


class ReaderApp(ReaderIntents, BookScreen, ListScreens, App):
    """The reader app."""

    id = APP
    package = PACKAGE
    label = "Reader"
    icon = staticmethod(icon.draw)
    color = (27, 136, 238)
    theme = Theme(background=(255, 255, 255), surface=(244, 246, 249), text=(28, 30, 33),
                  muted=(128, 134, 142), accent=(27, 136, 238), bar=(255, 255, 255),
                  divider=(232, 234, 237))
    home = Route.HOME
    state_type = ReaderState
    routes: ClassVar[dict[str, Screen]] = {
        Route.HOME: Screen("home_screen", tab=True),
        Route.DISCOVER: Screen("discover_screen", tab=True),
        Route.ME: Screen("me_screen", tab=True),
        Route.BOOK: Screen("book_screen", params=("id",)),
        Route.BOOK_LIST: Screen("book_list_screen"),
        Route.LIST_EDITOR: Screen("list_editor_screen"),
        Route.ADD_BOOK: Screen("add_book_screen"),
        Route.CONFIRM_ADD: Screen("confirm_add_dialog", overlay=True, params=("id",)),
    }
    tour = tour.STEPS

    def initial_state(self, seed: int) -> ReaderState:
        """Built-in content for ``seed``."""
        return random_state(CONTEXTS, build_state, APP, seed)

    def samples(self, state: ReaderState) -> Mapping[str, Mapping[str, Any]]:
        """Parameters that open each parametrised route on ``state``."""
        return {Route.BOOK: {"id": state.reading[0]},
                Route.CONFIRM_ADD: {"id": state.candidates[0]}}

    def _tab(self, ctx: Ctx, tab: int, title: str) -> tuple[Node, Column]:
        root, col = widgets.page(ctx, "root")
        root.add(widgets.bottom_nav(ctx, col.take_bottom(ctx.dp(60)), _NAV, tab))
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), title, back=False, large=True,
                                 actions=[("search", "Search books", ("noop",))]))
        return root, col

    def home_screen(self, ctx: Ctx, entry: Entry, state: ReaderState) -> Node:
        """The reading list: the week's reading time, then each book with its progress."""
        root, col = self._tab(ctx, 0, "Reading")
        week = f"This week: {duration(state.week_minutes)} · {books(len(state.reading))} begun"
        root.add(widgets.text(ctx, ui.inset(col.take(ctx.dp(28)), ctx.dp(16), 0), week, 13.5,
                              color=ctx.theme.muted))
        items = [(ctx.dp(52), lambda r: widgets.section_header(ctx, r, "Continue reading"))]
        items += [(row_height(ctx), lambda r, b=state.books[i]: book_row(
            ctx, r, b, b.author, open_book(b.id), Rid.SHELF_BOOK,
            progress=state.progress.get(b.id, 0))) for i in state.reading]
        root.add(self.scroll(entry, col.rest(), Rid.READING, items))
        return root

    def discover_screen(self, ctx: Ctx, entry: Entry, state: ReaderState) -> Node:
        """Recommendations: each book with its author, genre, rating and the blurb's start."""
        root, col = self._tab(ctx, 1, Desc.DISCOVER)
        items = [(ctx.dp(52), lambda r: widgets.section_header(ctx, r, "Recommended for you"))]
        items += [(row_height(ctx, 2), lambda r, b=state.books[i]: book_row(
            ctx, r, b, f"{b.author} · {genre(b)} · {b.rating:.1f}", open_book(b.id),
            Rid.RECOMMENDED_BOOK, blurb_lines=2)) for i in state.recommended]
        root.add(self.scroll(entry, col.rest(), Rid.RECOMMENDED, items))
        return root

    def me_screen(self, ctx: Ctx, entry: Entry, state: ReaderState) -> Node:
        """The user's page: name and reading time, the book list and settings."""
        t = ctx.theme
        root, col = self._tab(ctx, 2, Desc.ME)
        root.paint = Fill(t.surface)
        card = widgets.list_row(ctx, col.take(ctx.dp(96)), state.me,
                                f"Read {duration(state.week_minutes)} this week",
                                thumb=Avatar("me", state.me, t.background), rid=Rid.PROFILE)
        root.add(card)
        col.take(ctx.dp(8))
        rows = [(Text.BOOK_LIST, f"Favorite Books · {books(len(state.favorites))}", "library",
                 ("open", Route.BOOK_LIST), Rid.BOOK_LIST_ENTRY)]
        rows += [(label, "", glyph, ("noop",), "me_" + label.split()[0].lower())
                 for label, glyph in _ME_ROWS]
        for label, subtitle, glyph, intent, rid in rows:
            row = widgets.list_row(ctx, col.take(ctx.dp(64)), label, subtitle, thumb=Avatar(
                label, label, t.background, glyph=glyph, color=t.accent), on_click=intent,
                rid=rid, trailing=("chevron_right", f"Open {label}", intent))
            root.add(row.add(widgets.divider(ctx, row.frame)))
        return root

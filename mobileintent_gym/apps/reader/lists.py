"""The reader app's book list flow: the list, its editor, Add Favorite Book and the dialog.

:class:`~mobileintent_gym.apps.reader.app.ReaderApp` takes them as a mixin (they use
``App.scroll``).
"""

from __future__ import annotations

import dataclasses

from mobileintent_gym.apps.reader.ids import Rid, Route, Text
from mobileintent_gym.apps.reader.rows import book_row, genre, row_height
from mobileintent_gym.apps.reader.state import ReaderState, books
from mobileintent_gym.phone import overlays, ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Color, Fill
from mobileintent_gym.phone.ui import Column, Node
from mobileintent_gym.phone.widgets import Ctx

LIST_NAME = "Favorite Books"


class ListScreens:
    """Screens of the book list flow (a mixin of the reader app)."""

    def book_list_screen(self, ctx: Ctx, entry: Entry, state: ReaderState) -> Node:
        """The user's book list: its name, who made it, Edit list and its books."""
        t = ctx.theme
        root, col = widgets.page(ctx, "book_list")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), Text.BOOK_LIST,
                                 actions=[("share", "Share list", ("noop",))]))
        head = Node(ui.LINEAR, col.take(ctx.dp(120)), resource_id=ctx.rid(Rid.LIST_HEADER),
                    paint=Fill(t.surface))
        inner = Column(ui.inset(head.frame, ctx.dp(20), ctx.dp(14)))
        head.add(widgets.text(ctx, inner.take(ctx.dp(32)), LIST_NAME, 22, bold=True,
                              under=t.surface, rid=Rid.LIST_NAME),
                 widgets.text(ctx, inner.take(ctx.dp(22)),
                              f"{books(len(state.favorites))} · by {state.me}", 13.5,
                              color=t.muted, under=t.surface))
        button = inner.take(ctx.dp(40))
        head.add(widgets.button(ctx, (button[0], button[1], button[0] + ctx.dp(132), button[3]),
                                Text.EDIT_LIST, ("open", Route.LIST_EDITOR), rid=Rid.EDIT_LIST,
                                under=t.surface))
        root.add(head)
        items = [(row_height(ctx), lambda r, b=state.books[i]: book_row(
            ctx, r, b, f"{b.author} · {genre(b)}", ("open", Route.BOOK, (("id", b.id),)),
            Rid.LIST_BOOK)) for i in state.favorites]
        root.add(self.scroll(entry, col.rest(), Rid.LIST_BOOKS, items) if items else
                 widgets.text(ctx, ui.inset(col.take(ctx.dp(64)), ctx.dp(20), 0),
                              "No books yet: tap Edit list to add some.", 15, color=t.muted))
        return root

    def list_editor_screen(self, ctx: Ctx, entry: Entry, state: ReaderState) -> Node:
        """Edit the list: Add Favorite Book, and each book with a button that removes it."""
        root, col = widgets.page(ctx, "list_editor")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), f"Edit {LIST_NAME}",
                                 actions=[("check", "Done", ("back",))]))
        button = ui.inset(col.take(ctx.dp(72)), ctx.dp(20), ctx.dp(12))
        root.add(widgets.button(ctx, button, Text.ADD_FAVORITE, ("open", Route.ADD_BOOK),
                                rid=Rid.ADD_FAVORITE))
        items = [(ctx.dp(52), lambda r: widgets.section_header(
            ctx, r, f"In this list ({len(state.favorites)})"))]
        items += [(row_height(ctx), lambda r, b=state.books[i]: book_row(
            ctx, r, b, b.author, None, Rid.LIST_BOOK,
            trailing=("close", f"Remove {b.title}", ("remove", b.id), Rid.REMOVE)))
            for i in state.favorites]
        root.add(self.scroll(entry, col.rest(), Rid.LIST_BOOKS, items))
        return root

    def add_book_screen(self, ctx: Ctx, entry: Entry, state: ReaderState) -> Node:
        """Add Favorite Book: suggested books; a tap asks to add one, a check marks added ones."""
        root, col = widgets.page(ctx, "add_book")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), Text.ADD_FAVORITE))
        items = [(ctx.dp(52), lambda r: widgets.section_header(ctx, r, "Suggested for you"))]
        for book_id in state.candidates:
            added = book_id in state.favorites
            ask = None if added else ("open", Route.CONFIRM_ADD, (("id", book_id),))
            items.append((row_height(ctx), lambda r, b=state.books[book_id], ask=ask, added=added:
                          book_row(ctx, r, b, f"{b.author} · {genre(b)}", ask, Rid.CANDIDATE,
                                   trailing=("check" if added else "plus",
                                             "Added" if added else f"Add {b.title}", ask,
                                             Rid.MORE))))
        root.add(self.scroll(entry, col.rest(), Rid.CANDIDATES, items))
        return root

    def confirm_add_dialog(self, ctx: Ctx, entry: Entry, state: ReaderState) -> Node:
        """Ask before adding: the book, Cancel and Add."""
        book = state.books[entry.param("id")]
        height = row_height(ctx) + ctx.dp(152)  # title, the book, buttons and margins
        card = overlays.dialog_rect(ctx, height)
        col = Column(ui.inset(card, ctx.dp(8), ctx.dp(20)))
        col.take(ctx.dp(48))
        on_card = ctx.theme.surface
        shown = book_row(_on(ctx, on_card), col.take(row_height(ctx)), book, book.author, None,
                         Rid.CONFIRM_BOOK)
        col.take(ctx.dp(12))
        cancel, add = ui.split_row(ui.inset(col.take(ctx.dp(48)), ctx.dp(16), 0), [None, None])
        buttons = [widgets.button(ctx, ui.inset(cancel, ctx.dp(6), 0), "Cancel", ("back",),
                                  primary=False, rid=Rid.CANCEL, under=on_card),
                   widgets.button(ctx, ui.inset(add, ctx.dp(6), 0), Text.CONFIRM,
                                  ("add_favorite", book.id), rid=Rid.CONFIRM, under=on_card)]
        return overlays.dialog(ctx, f"Add to {LIST_NAME}?", [shown], buttons, height)


def _on(ctx: Ctx, color: Color) -> Ctx:
    """``ctx`` for drawing on a surface of ``color`` (a dialog's card)."""
    return dataclasses.replace(ctx, theme=dataclasses.replace(ctx.theme, background=color))

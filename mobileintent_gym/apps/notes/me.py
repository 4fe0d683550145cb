"""The notes app's profile page, Me, with its tabs Notes, Saved and Liked.

:class:`~mobileintent_gym.apps.notes.app.NotesApp` takes it as a mixin.
"""

from __future__ import annotations

import dataclasses

from mobileintent_gym.apps.notes import cards
from mobileintent_gym.apps.notes.ids import Rid, Route, Text
from mobileintent_gym.apps.notes.state import NotesState
from mobileintent_gym.apps.plugin import user_handle
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Avatar, Fill
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

HEADER = (52, 56, 68)  # the profile's dark header
ON_HEADER = (236, 237, 240)
_TABS = ((Text.NOTES, Route.ME, Rid.TAB_NOTES, "mine", "No notes yet"),
         (Text.SAVED, Route.ME_SAVED, Rid.TAB_SAVED, "saved", "Nothing saved yet"),
         (Text.LIKED, Route.ME_LIKED, Rid.TAB_LIKED, "liked", "Nothing liked yet"))


class MeScreens:
    """The ``notes/me`` screens (a mixin of the notes app)."""

    def me_screen(self, ctx: Ctx, entry: Entry, state: NotesState) -> Node:
        """Your profile, then the notes of the selected tab, two to a row."""
        root, col = self.frame(ctx, 2)
        root.add(self._header(ctx, col.take(ctx.dp(200)), state))
        selected = next(i for i, tab in enumerate(_TABS) if tab[1] == entry.route)
        tabs = widgets.tabs(ctx, col.take(ctx.dp(48)), [(label, ("replace", route))
                                                         for label, route, *_ in _TABS],
                            selected)
        for tab, (*_, rid, _, _) in zip(tabs.children, _TABS, strict=True):
            tab.resource_id = ctx.rid(rid)
        root.add(tabs)
        _, _, _, field, empty = _TABS[selected]
        notes = [state.notes[n] for n in getattr(state, field)]
        if not notes:
            root.add(widgets.text(ctx, col.take(ctx.dp(120)), empty, 15, color=ctx.theme.muted,
                                  align="center"))
        root.add(self.scroll(entry, col.rest(), Rid.NOTES, cards.grid(ctx, notes, state)))
        return root

    def _header(self, ctx: Ctx, rect: Rect, state: NotesState) -> Node:
        """Avatar, name, id and bio; following, followers, likes and saves."""
        dark = dataclasses.replace(ctx, theme=dataclasses.replace(
            ctx.theme, background=HEADER, bar=HEADER, text=ON_HEADER, muted=(170, 174, 184)))
        t = dark.theme
        head = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.PROFILE_HEADER),
                    paint=Fill(HEADER))
        col = Column(ui.inset(rect, ctx.dp(16), ctx.dp(12)))
        top = col.take(ctx.dp(72))
        side = top[3] - top[1]
        head.add(Node(ui.IMAGE_VIEW, (top[0], top[1], top[0] + side, top[3]), desc=state.me,
                      paint=Avatar("me", state.me, HEADER)))
        names = Column((top[0] + side + ctx.dp(16), top[1] + ctx.dp(8), top[2], top[3]))
        handle = user_handle(state.me) + "_notes"
        head.add(widgets.text(dark, names.take(ctx.dp(30)), state.me, 21, bold=True,
                              rid=Rid.TITLE),
                 widgets.text(dark, names.take(ctx.dp(22)), f"ID: {handle}", 12.5,
                              color=t.muted))
        col.take(ctx.dp(12))
        head.add(widgets.text(dark, col.take(ctx.dp(24)), state.bio, 14))
        col.take(ctx.dp(12))
        mine = [state.notes[n] for n in state.mine]
        counts = ((len(state.follows), "Following"), (state.followers, "Followers"),
                  (sum(state.likes(n) + state.saves(n) for n in mine), "Likes & saves"))
        for cell, (count, label) in zip(ui.split_row(col.take(ctx.dp(48)), [None] * 3),
                                        counts, strict=True):
            numbers = Column(cell)
            head.add(widgets.text(dark, numbers.take(ctx.dp(24)), f"{count:,}", 17, bold=True,
                                  align="center"),
                     widgets.text(dark, numbers.rest(), label, 12, color=t.muted,
                                  align="center"))
        return head

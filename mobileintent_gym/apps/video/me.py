"""The video app's own pages: Me, your personal space and your liked videos.

:class:`~mobileintent_gym.apps.video.app.VideoApp` takes them as a mixin.
"""

from __future__ import annotations

from mobileintent_gym.apps.video import cards, icon
from mobileintent_gym.apps.video.ids import Rid, Route, Text
from mobileintent_gym.apps.video.state import VideoState
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Avatar, Fill
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

_SERVICES = (("History", "queue"), ("Watch later", "play"), ("Offline cache", "album"),
             ("Settings", "settings"))
_BANNER = (253, 222, 232)
PREVIEW = 4  # liked videos shown in the space


class MeScreens:
    """Me, the personal space and the liked list (a mixin of the video app)."""

    def me_screen(self, ctx: Ctx, entry: Entry, state: VideoState) -> Node:
        """Your card (it opens your space), your counts, My space and the app's services."""
        t = ctx.theme
        root, col = self.frame(ctx, 2, Text.ME)
        root.paint = Fill(t.surface)
        space = ("open", Route.SPACE)
        card = self._card(ctx, col.take(ctx.dp(104)), state, Rid.PROFILE)
        card.on_click, card.clickable = space, True
        root.add(card, self._counts(ctx, col.take(ctx.dp(64)), state))
        col.take(ctx.dp(8))
        row = widgets.list_row(ctx, col.take(ctx.dp(60)), Text.SPACE, "Your videos and likes",
                               thumb=Avatar("space", "Space", t.background, glyph="person",
                                            color=t.accent),
                               on_click=space, rid=Rid.SPACE,
                               trailing=("chevron_right", "Open my space", space),
                               trailing_rid=Rid.SPACE_MORE)
        root.add(row.add(widgets.divider(ctx, row.frame)))
        col.take(ctx.dp(8))
        for label, glyph in _SERVICES:
            row = widgets.list_row(ctx, col.take(ctx.dp(56)), label, thumb=Avatar(
                label, label, t.background, glyph=glyph, color=(96, 125, 139)),
                on_click=("noop",), rid="me_" + label.split()[0].lower())
            root.add(row.add(widgets.divider(ctx, row.frame)))
        return root

    def _card(self, ctx: Ctx, rect: Rect, state: VideoState, rid: str) -> Node:
        """The user's header: a large avatar, the name and the account level."""
        t = ctx.theme
        card = Node(ui.LINEAR, rect, resource_id=ctx.rid(rid), paint=Fill(t.background))
        side, pad = ctx.dp(64), ctx.dp(16)
        top = (rect[1] + rect[3] - side) // 2
        card.add(Node(ui.IMAGE_VIEW, (rect[0] + pad, top, rect[0] + pad + side, top + side),
                      desc=state.me, paint=Avatar("me", state.me, t.background)))
        body = Column((rect[0] + 2 * pad + side, top, rect[2] - pad, top + side))
        return card.add(widgets.text(ctx, body.take(ctx.dp(32)), state.me, 20, bold=True,
                                     rid=Rid.TITLE),
                        widgets.text(ctx, body.rest(), f"Lv {state.level} · Watching, "
                                     "learning and liking", 13, color=t.muted))

    def _counts(self, ctx: Ctx, rect: Rect, state: VideoState) -> Node:
        """Following, liked and favourites, as numbers over their names."""
        t = ctx.theme
        row = Node(ui.LINEAR, rect, paint=Fill(t.background))
        for cell, (count, label) in zip(ui.split_row(rect, [None] * 3), (
                (len(state.follows), Text.FOLLOWING), (len(state.liked), "Liked"),
                (len(state.favorites), "Favorites")), strict=True):
            col = Column(ui.inset(cell, 0, ctx.dp(8)))
            row.add(widgets.text(ctx, col.take(ctx.dp(26)), str(count), 18, bold=True,
                                 align="center"),
                    widgets.text(ctx, col.rest(), label, 12, color=t.muted, align="center"))
        return row

    def space_screen(self, ctx: Ctx, entry: Entry, state: VideoState) -> Node:
        """Your space: banner, card and counts; your liked videos; your uploads."""
        t = ctx.theme
        root, col = widgets.page(ctx, "space", t.surface)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), "My space",
                                 actions=[("share", "Share", ("noop",))]))
        root.add(Node(ui.VIEW_GROUP, col.take(ctx.dp(72)), paint=Fill(_BANNER)))
        root.add(self._card(ctx, col.take(ctx.dp(96)), state, Rid.SPACE_HEADER),
                 self._counts(ctx, col.take(ctx.dp(64)), state))
        col.take(ctx.dp(8))
        liked = [state.videos[v] for v in state.liked]
        open_liked = ("open", Route.LIKED)
        items = [(ctx.dp(64), lambda r: widgets.list_row(
            ctx, r, Text.LIKED_VIDEOS, widgets.counted(len(liked), "video"), on_click=open_liked,
            thumb=Avatar("liked", "Liked", t.background, glyph=icon.thumb_up, color=t.accent),
            rid=Rid.LIKED_VIDEOS, trailing=("chevron_right", "View all liked videos",
                                            open_liked), trailing_rid=Rid.LIKED_MORE))]
        items += cards.grid(ctx, liked[:PREVIEW])
        items += [(ctx.dp(8), lambda r: Node(ui.VIEW_GROUP, r, paint=Fill(t.surface))),
                  (ctx.dp(44), lambda r: widgets.section_header(ctx, r, "Uploads")),
                  (ctx.dp(48), lambda r: Node(ui.VIEW_GROUP, r, paint=Fill(t.background)).add(
                      widgets.text(ctx, ui.inset(r, ctx.dp(16), 0), "No uploads yet", 14,
                                   color=t.muted)))]
        root.add(self.scroll(entry, col.rest(), "space_content", items))
        return root

    def liked_screen(self, ctx: Ctx, entry: Entry, state: VideoState) -> Node:
        """Every liked video, the most recently liked first."""
        t = ctx.theme
        root, col = widgets.page(ctx, "liked")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), Text.LIKED_VIDEOS))
        root.add(widgets.text(ctx, ui.inset(col.take(ctx.dp(32)), ctx.dp(16), 0),
                              widgets.counted(len(state.liked), "video"), 13, color=t.muted))
        items = [(ctx.dp(cards.ROW_DP), lambda r, v=state.videos[v]: cards.row(ctx, r, v))
                 for v in state.liked]
        root.add(self.scroll(entry, col.rest(), Rid.LIKED_LIST, items))
        return root

"""The video app's video page: player, uploader, title, stats, actions and up next.

:class:`~mobileintent_gym.apps.video.app.VideoApp` takes it as a mixin.
"""

from __future__ import annotations

import dataclasses

from mobileintent_gym.apps.video import cards, icon
from mobileintent_gym.apps.video.ids import Rid
from mobileintent_gym.apps.video.state import Video, VideoState, compact
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.icons import Glyph
from mobileintent_gym.phone.paint import Avatar, Fill, Icon
from mobileintent_gym.phone.ui import Column, Intent, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

PLAYER = (16, 16, 18)  # the player's black
WHITE = (255, 255, 255)
UP_NEXT = 6


class WatchScreen:
    """The ``video/video?id=`` screen (a mixin of an :class:`~mobileintent_gym.phone.app.App`)."""

    def video_screen(self, ctx: Ctx, entry: Entry, state: VideoState) -> Node:
        """A video's page; the like, coin and favourite buttons show their state and count."""
        t = ctx.theme
        video = state.videos[entry.param("id")]
        root, col = widgets.page(ctx, "watch")
        dark = dataclasses.replace(ctx, theme=dataclasses.replace(t, bar=PLAYER, text=WHITE))
        root.add(widgets.app_bar(dark, col.take(ctx.dp(48)), "", entity=video.id,
                                 actions=[("more", "More options", ("noop",))]))
        root.add(self._player(ctx, col.take(ctx.width * 9 // 16), video))
        intro = Column(ui.inset(col.rest(), ctx.dp(16), 0))
        root.add(self._uploader(ctx, intro.take(ctx.dp(64)), video, state))
        title = widgets.paragraph(ctx, intro.rest(), video.title, 17, lines=2, bold=True,
                                  rid=Rid.VIDEO_TITLE, entity=video.id)
        intro.take(title.frame[3] - title.frame[1] + ctx.dp(6))
        stats = f"{compact(video.views)} views · {video.age} · {compact(video.comments)} comments"
        root.add(title, widgets.text(ctx, intro.take(ctx.dp(22)), stats, 12.5, color=t.muted,
                                     rid=Rid.STATS))
        about = widgets.paragraph(ctx, intro.rest(), video.description, 13.5, lines=2,
                                  color=t.muted, rid=Rid.DESCRIPTION)
        intro.take(about.frame[3] - about.frame[1])
        root.add(about, self._actions(ctx, intro.take(ctx.dp(76)), video, state))
        col.top = intro.top
        root.add(widgets.divider(ctx, col.take(ctx.dp(4))),
                 widgets.section_header(ctx, col.take(ctx.dp(44)), "Up next"))
        items = [(ctx.dp(cards.ROW_DP), lambda r, v=v: cards.row(ctx, r, v))
                 for v in self._up_next(video, state)]
        root.add(self.scroll(entry, col.rest(), Rid.RELATED, items))
        return root

    def _player(self, ctx: Ctx, rect: Rect, video: Video) -> Node:
        """The player: the cover, and a control strip with play and the time."""
        player = Node(ui.IMAGE_VIEW, rect, resource_id=ctx.rid(Rid.PLAYER), desc=video.title,
                      entity=video.id, paint=Avatar(video.id, video.title, PLAYER),
                      on_click=("noop",))
        strip = (rect[0], rect[3] - ctx.dp(36), rect[2], rect[3])
        cells = ui.split_row(strip, [ctx.dp(44), None])
        controls = Node(ui.LINEAR, strip, paint=Fill(PLAYER)).add(
            Node(ui.IMAGE_VIEW, cells[0], desc="Play", paint=Icon("play", WHITE, PLAYER,
                                                                   ctx.dp(22))),
            widgets.text(ctx, cells[1], f"00:00 / {video.duration}", 12, color=WHITE,
                         under=PLAYER))
        return player.add(controls)

    def _uploader(self, ctx: Ctx, rect: Rect, video: Video, state: VideoState) -> Node:
        """The uploader: avatar, name, followers and the Follow button."""
        t = ctx.theme
        name, following = video.uploader, video.uploader in state.follows
        node = Node(ui.LINEAR, rect, paint=Fill(t.background))
        side = ctx.dp(40)
        top = (rect[1] + rect[3] - side) // 2
        cells = ui.split_row(rect, [side, ctx.dp(12), None, ctx.dp(104)])
        body = Column((cells[2][0], top - ctx.dp(2), cells[2][2], top + side + ctx.dp(2)))
        follow = widgets.button(ctx, ui.inset(cells[3], 0, ctx.dp(14)),
                                "Following" if following else "+ Follow", ("follow", name),
                                rid=Rid.FOLLOW, primary=not following)
        follow.checkable, follow.checked = True, following
        return node.add(
            Node(ui.IMAGE_VIEW, (rect[0], top, rect[0] + side, top + side), desc=name,
                 paint=Avatar(name, name, t.background)),
            widgets.text(ctx, body.take(ctx.dp(24)), name, 15, bold=True, rid=Rid.UPLOADER),
            widgets.text(ctx, body.rest(), f"{compact(state.uploaders[name])} followers", 12,
                         color=t.muted), follow)

    def _actions(self, ctx: Ctx, rect: Rect, video: Video, state: VideoState) -> Node:
        """Like, coin, favourite and share, each an icon over its exact count."""
        row = Node(ui.LINEAR, rect)
        cells = ui.split_row(rect, [None] * 4)
        for cell, (toggle, glyph, label, rid) in zip(cells, (
                ("liked", icon.thumb_up, "Like", Rid.LIKE),
                ("coined", icon.coin, "Coin", Rid.COIN),
                ("favorites", icon.star, "Favorite", Rid.FAVORITE)), strict=False):
            on = video.id in getattr(state, toggle)
            row.add(self._action(ctx, cell, glyph, label, f"{state.count(video, toggle):,}",
                                 rid, ("toggle", toggle, video.id), on, video.id))
        return row.add(self._action(ctx, cells[3], "share", "Share", "Share", Rid.SHARE,
                                    ("noop",), None, video.id))

    def _action(self, ctx: Ctx, rect: Rect, glyph: Glyph, label: str, shown: str, rid: str,
                intent: Intent, on: bool | None, video_id: str) -> Node:
        """One action: a toggle when ``on`` is set (checked, in the accent colour when on)."""
        t = ctx.theme
        color = t.accent if on else t.muted
        node = Node(ui.LINEAR, rect, resource_id=ctx.rid(rid), desc=label, on_click=intent,
                    entity=video_id, checkable=on is not None, checked=bool(on))
        col = Column(ui.inset(rect, 0, ctx.dp(8)))
        return node.add(Node(ui.IMAGE_VIEW, col.take(ctx.dp(36)),
                             paint=Icon(glyph, color, t.background, ctx.dp(28))),
                        widgets.text(ctx, col.rest(), shown, 12.5, color=color, align="center"))

    @staticmethod
    def _up_next(video: Video, state: VideoState) -> list[Video]:
        """Other videos of its channel first, then the recommendations."""
        others = [v for v in state.videos.values() if v.id != video.id]
        same = [v for v in others if v.category == video.category]
        rest = [state.videos[v] for v in state.home if v != video.id]
        return list(dict.fromkeys(same + rest))[:UP_NEXT]

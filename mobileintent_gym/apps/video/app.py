"""Video: a video-sharing app that mirrors Bilibili's structure.

Routes (names in :mod:`.ids`): ``video/home`` (recommended videos, two to a row),
``video/following`` (updates of the uploaders you follow; its Videos tab is
``video/following/videos``), ``video/video?id=`` (the video's page: player, uploader with
Follow, title, stats, like, coin, favourite and share, up next), and ``video/me`` →
``video/space`` (your personal space) → ``video/space/liked`` (your liked videos), in
:mod:`.me`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from mobileintent_gym.apps.video import cards, icon, tour
from mobileintent_gym.apps.video.content import CONTEXTS, build_state
from mobileintent_gym.apps.video.ids import APP, PACKAGE, Rid, Route, Text
from mobileintent_gym.apps.video.intents import VideoIntents
from mobileintent_gym.apps.video.me import MeScreens
from mobileintent_gym.apps.video.state import Video, VideoState
from mobileintent_gym.apps.video.watch import WatchScreen
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import App, Entry, Screen
from mobileintent_gym.phone.paint import Avatar, Fill
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx, Theme
from mobileintent_gym.users.pair import random_state

_NAV = (("Home", "home", Route.HOME, Rid.NAV_HOME),
        (Text.FOLLOWING, "contacts", Route.FOLLOWING, Rid.NAV_FOLLOWING),
        (Text.ME, "person", Route.ME, Rid.NAV_ME))
_STRIP = 5  # followed uploaders shown above the updates
UPDATE_DP = 184


class VideoApp(VideoIntents, WatchScreen, MeScreens, App):
    """The video app."""

    id = APP
    package = PACKAGE
    label = "Video"
    icon = staticmethod(icon.draw)
    color = (251, 114, 153)
    theme = Theme(background=(255, 255, 255), surface=(243, 244, 246), text=(24, 25, 28),
                  muted=(128, 134, 142), accent=(240, 84, 135), bar=(255, 255, 255),
                  divider=(227, 229, 231))
    home = Route.HOME
    state_type = VideoState
    routes: ClassVar[dict[str, Screen]] = {
        Route.HOME: Screen("home_screen", tab=True),
        Route.FOLLOWING: Screen("following_screen", tab=True),
        Route.FOLLOWING_VIDEOS: Screen("following_screen"),
        Route.ME: Screen("me_screen", tab=True),
        Route.SPACE: Screen("space_screen"),
        Route.LIKED: Screen("liked_screen"),
        Route.VIDEO: Screen("video_screen", params=("id",)),
    }
    tour = tour.STEPS

    def initial_state(self, seed: int) -> VideoState:
        """Built-in content for ``seed``."""
        return random_state(CONTEXTS, build_state, APP, seed)

    def samples(self, state: VideoState) -> Mapping[str, Mapping[str, Any]]:
        """Parameters that open each parametrised route on ``state``."""
        return {Route.VIDEO: {"id": state.following[0]}}

    def frame(self, ctx: Ctx, tab: int, title: str) -> tuple[Node, Column]:
        """A tab's page: bottom navigation with ``tab`` selected, an app bar titled ``title``."""
        root, col = widgets.page(ctx, "root")
        items = [(label, glyph, ("open", route), "", rid) for label, glyph, route, rid in _NAV]
        root.add(widgets.bottom_nav(ctx, col.take_bottom(ctx.dp(60)), items, tab))
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), title, back=False,
                                 actions=[("search", "Search", ("noop",)),
                                          ("bell", "Messages", ("noop",))]))
        return root, col

    def home_screen(self, ctx: Ctx, entry: Entry, state: VideoState) -> Node:
        """Recommended videos, two to a row."""
        root, col = self.frame(ctx, 0, "Home")
        videos = [state.videos[v] for v in state.home]
        head = (ctx.dp(44), lambda r: widgets.section_header(ctx, r, "Recommended for you"))
        root.add(self.scroll(entry, col.rest(), Rid.FEED, [head, *cards.grid(ctx, videos)]))
        return root

    def following_screen(self, ctx: Ctx, entry: Entry, state: VideoState) -> Node:
        """The followed uploaders' updates (All) or only their videos (Videos)."""
        root, col = self.frame(ctx, 1, Text.FOLLOWING)
        videos_tab = entry.route == Route.FOLLOWING_VIDEOS
        tabs = widgets.tabs(ctx, col.take(ctx.dp(48)), [
            (Text.ALL, ("replace", Route.FOLLOWING)),
            (Text.VIDEOS, ("replace", Route.FOLLOWING_VIDEOS))], int(videos_tab))
        for tab, rid in zip(tabs.children, (Rid.TAB_ALL, Rid.TAB_VIDEOS), strict=True):
            tab.resource_id = ctx.rid(rid)
        root.add(tabs, widgets.divider(ctx, tabs.frame))
        feed = [state.videos[v] for v in state.feed()]
        if not feed:
            root.add(widgets.text(ctx, col.take(ctx.dp(96)), "Follow uploaders to see their "
                                  "videos here", 15, color=ctx.theme.muted, align="center"))
        elif videos_tab:
            items = [(ctx.dp(cards.ROW_DP), lambda r, v=v: cards.row(ctx, r, v)) for v in feed]
            root.add(self.scroll(entry, col.rest(), Rid.FEED, items))
        else:
            root.add(self._strip(ctx, col.take(ctx.dp(92)), state))
            items = [(ctx.dp(UPDATE_DP), lambda r, v=v: self._update(ctx, r, v)) for v in feed]
            root.add(self.scroll(entry, col.rest(), Rid.UPDATES, items))
        return root

    def _strip(self, ctx: Ctx, rect: Rect, state: VideoState) -> Node:
        """The first followed uploaders: avatar and name."""
        t = ctx.theme
        strip = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.UPLOADERS), paint=Fill(t.background))
        cells = ui.split_row(ui.inset(rect, ctx.dp(8), ctx.dp(8)), [None] * _STRIP)
        for cell, name in zip(cells, state.follows, strict=False):
            side = ctx.dp(48)
            left = (cell[0] + cell[2] - side) // 2
            strip.add(Node(ui.IMAGE_VIEW, (left, cell[1], left + side, cell[1] + side),
                           desc=name, paint=Avatar(name, name, t.background)),
                      widgets.text(ctx, (cell[0] + ctx.dp(2), cell[1] + side + ctx.dp(4),
                                         cell[2] - ctx.dp(2), cell[3]), name, 11.5,
                                   color=t.muted, align="center"))
        return strip.add(widgets.divider(ctx, rect))

    def _update(self, ctx: Ctx, rect: Rect, video: Video) -> Node:
        """An update: the uploader posted a video (a card that opens it)."""
        t = ctx.theme
        card = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.UPDATE), entity=video.id,
                    on_click=cards.open_video(video), paint=Fill(t.background))
        pad, side = ctx.dp(12), ctx.dp(40)
        x, y = rect[0] + pad, rect[1] + pad
        card.add(Node(ui.IMAGE_VIEW, (x, y, x + side, y + side), desc=video.uploader,
                      paint=Avatar(video.uploader, video.uploader, t.background)))
        head = Column((x + side + pad, y, rect[2] - pad, y + side))
        card.add(widgets.text(ctx, head.take(ctx.dp(22)), video.uploader, 15, bold=True,
                              rid=Rid.UPLOADER),
                 widgets.text(ctx, head.rest(), f"Posted a video · {video.age}", 12,
                              color=t.muted))
        top = y + side + pad
        box = (x, top, rect[2] - pad, top + ctx.dp(cards.ROW_DP))
        return card.add(cards.row(ctx, box, video, under=t.surface, clickable=False),
                        widgets.divider(ctx, rect))

"""The forum app's communities: the Communities tab and a community's page.

:class:`~mobileintent_gym.apps.forum.app.ForumApp` takes them as a mixin (it uses
``App.scroll``, the tab frame and the post cards). The tab lists the communities you
joined, then the other communities of your feed; a community's page shows a banner with
Join (Joined once you are in) over its posts in your feed.
"""

from __future__ import annotations

from mobileintent_gym.apps.forum.ids import Rid, Route
from mobileintent_gym.apps.forum.state import ForumState, count
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Avatar, Fill, seed_color
from mobileintent_gym.phone.ui import Node, Rect
from mobileintent_gym.phone.widgets import Ctx

JOINED, MORE = "Joined", "More from your feed"
_BAND, _FACE, _HEAD, _GAP = 64, 64, 156, 8  # dp


def _in_feed(state: ForumState, name: str) -> str:
    return f"{count(state.in_feed(name), 'post')} in your feed"


class CommunityScreens:
    """The Communities tab and community pages (a mixin of the forum app)."""

    def communities_screen(self, ctx: Ctx, entry: Entry, state: ForumState) -> Node:
        """Your communities, then the other communities of your feed."""
        root, col = self._tab(ctx, 1, "Communities")
        feed = dict.fromkeys(state.posts[i].community for i in state.feed)
        items = []
        for title, names in ((JOINED, state.joined),
                             (MORE, [n for n in feed if n not in state.joined])):
            if names:
                items.append((ctx.dp(52), lambda r, s=title: widgets.section_header(ctx, r, s)))
                items += [(ctx.dp(68), lambda r, n=n: self._community_row(ctx, r, n, state))
                          for n in names]
        root.add(self.scroll(entry, col.rest(), Rid.COMMUNITY_LIST, items))
        return root

    def _community_row(self, ctx: Ctx, rect: Rect, name: str, state: ForumState) -> Node:
        row = widgets.list_row(ctx, rect, name, _in_feed(state, name),
                               thumb=Avatar(name, name[2:], ctx.theme.background),
                               entity=name, rid=Rid.COMMUNITY,
                               on_click=("open", Route.COMMUNITY, (("id", name),)))
        return row.add(widgets.divider(ctx, rect))

    def community_screen(self, ctx: Ctx, entry: Entry, state: ForumState) -> Node:
        """A community's banner with Join, over its posts in your feed."""
        name = entry.param("id")
        ids = tuple(i for i in state.feed if state.posts[i].community == name)
        if not ids:
            raise KeyError(f"no community {name!r} in the feed")
        root, col = widgets.page(ctx, "community", ctx.theme.surface)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), name, entity=name))
        head = [(ctx.dp(_HEAD), lambda r: self._banner(ctx, r, name, state))]
        root.add(self._cards(ctx, entry, col.rest(), Rid.FEED, ids, state, "", head))
        return root

    def _banner(self, ctx: Ctx, rect: Rect, name: str, state: ForumState) -> Node:
        """The community's colour band, its badge and name, and Join or Joined."""
        t, pad = ctx.theme, ctx.dp(16)
        band = rect[1] + ctx.dp(_BAND)
        head = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.COMMUNITY_HEADER), entity=name,
                    paint=Fill(t.surface))
        body = (rect[0], band, rect[2], rect[3] - ctx.dp(_GAP))
        x, y = rect[0] + pad, band - ctx.dp(_FACE) // 2
        ring = (x - ctx.dp(3), y - ctx.dp(3), x + ctx.dp(_FACE + 3), y + ctx.dp(_FACE + 3))
        joined = name in state.joined
        button = widgets.button(ctx, (rect[2] - pad - ctx.dp(104), band + ctx.dp(12),
                                      rect[2] - pad, band + ctx.dp(52)),
                                JOINED if joined else "Join", ("join", name), rid=Rid.JOIN,
                                primary=not joined)
        button.checkable, button.checked, button.entity = True, joined, name
        left = x + ctx.dp(_FACE) + ctx.dp(12)
        lines = ui.Column((left, band + ctx.dp(8), button.frame[0] - ctx.dp(8), body[3]))
        return head.add(
            Node(ui.VIEW_GROUP, (rect[0], rect[1], rect[2], band), paint=Fill(seed_color(name))),
            Node(ui.VIEW_GROUP, body, paint=Fill(t.background)),
            Node(ui.VIEW_GROUP, ring, paint=Fill(t.background)),
            Node(ui.IMAGE_VIEW, (x, y, x + ctx.dp(_FACE), y + ctx.dp(_FACE)),
                 paint=Avatar(name, name[2:], t.background)),
            widgets.text(ctx, lines.take(ctx.dp(30)), name, 20, bold=True, rid=Rid.COMMUNITY_NAME),
            widgets.text(ctx, lines.take(ctx.dp(22)), _in_feed(state, name), 13.5,
                         color=t.muted, rid=Rid.SUBTITLE),
            button)

"""Forum: a community discussion app that mirrors Reddit's structure.

Routes (names in :mod:`.ids`): three tabs — ``forum/home`` (the home feed: posts of
followed communities interleaved with suggested ones, each card with votes and comments),
``forum/communities`` (the communities you joined and the others of the feed) and
``forum/profile`` (your comments; its Saved tab is ``forum/profile/saved``) — and
``forum/community?id=`` (a community's banner with Join, over its posts;
:mod:`.community`) and ``forum/post?id=`` (the post, its comments and a comment box;
:mod:`.post`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import timedelta
from typing import Any, ClassVar

from mobileintent_gym.apps.forum import icon, tour
from mobileintent_gym.apps.forum.community import CommunityScreens
from mobileintent_gym.apps.forum.content import CONTEXTS, build_state
from mobileintent_gym.apps.forum.feed import FeedCards
from mobileintent_gym.apps.forum.ids import APP, PACKAGE, Desc, Rid, Route
from mobileintent_gym.apps.forum.intents import ForumIntents
from mobileintent_gym.apps.forum.post import PostPage
from mobileintent_gym.apps.forum.state import ForumState
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import App, Entry, Screen
from mobileintent_gym.phone.paint import Avatar, Fill
from mobileintent_gym.phone.state import moved_within
from mobileintent_gym.phone.ui import Column, Node
from mobileintent_gym.phone.widgets import Ctx, Theme
from mobileintent_gym.users.pair import random_state

_NAV = ((Desc.HOME, "home", ("open", Route.HOME), "", Rid.NAV_HOME),
        ("Communities", "contacts", ("open", Route.COMMUNITIES), "", Rid.NAV_COMMUNITIES),
        ("You", "person", ("open", Route.PROFILE), "", Rid.NAV_PROFILE))


class ForumApp(ForumIntents, FeedCards, CommunityScreens, PostPage, App):
    """The forum app."""

    id = APP
    package = PACKAGE
    label = "Forum"
    icon = staticmethod(icon.draw)
    color = (255, 69, 0)
    theme = Theme(background=(255, 255, 255), surface=(240, 242, 244), text=(28, 28, 28),
                  muted=(104, 108, 112), accent=(0, 121, 211), bar=(255, 255, 255),
                  divider=(226, 229, 232))
    home = Route.HOME
    state_type = ForumState
    routes: ClassVar[dict[str, Screen]] = {
        Route.HOME: Screen("home_screen", tab=True),
        Route.COMMUNITIES: Screen("communities_screen", tab=True),
        Route.PROFILE: Screen("profile_screen", tab=True),
        Route.SAVED: Screen("profile_screen"),
        Route.COMMUNITY: Screen("community_screen", params=("id",)),
        Route.POST: Screen("post_screen", params=("id",)),
    }
    tour = tour.STEPS

    def initial_state(self, seed: int) -> ForumState:
        """Built-in content for ``seed``."""
        return random_state(CONTEXTS, build_state, APP, seed)

    def moved(self, state: ForumState, by: timedelta) -> ForumState:
        """``state`` with the times of the user's comments moved by ``by``."""
        return replace(state, posts=moved_within(state.posts, "comments", by))

    def samples(self, state: ForumState) -> Mapping[str, Mapping[str, Any]]:
        """Parameters that open each parametrised route on ``state``."""
        return {Route.POST: {"id": state.feed[0]},
                Route.COMMUNITY: {"id": state.posts[state.feed[0]].community}}

    def _tab(self, ctx: Ctx, tab: int, title: str) -> tuple[Node, Column]:
        root, col = widgets.page(ctx, "root")
        root.add(widgets.bottom_nav(ctx, col.take_bottom(ctx.dp(64)), _NAV, tab))
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), title, back=False,
                                 actions=[("search", "Search", ("noop",))]))
        return root, col

    def home_screen(self, ctx: Ctx, entry: Entry, state: ForumState) -> Node:
        """The home feed."""
        root, col = self._tab(ctx, 0, Desc.HOME)
        root.paint = Fill(ctx.theme.surface)
        root.add(self._cards(ctx, entry, col.rest(), Rid.FEED, state.feed, state,
                             "Nothing here yet."))
        return root

    def profile_screen(self, ctx: Ctx, entry: Entry, state: ForumState) -> Node:
        """You: your name and karma; your comments, or (its Saved tab) your saved posts."""
        t = ctx.theme
        root, col = self._tab(ctx, 2, "You")
        head = col.take(ctx.dp(88))
        card = Node(ui.LINEAR, head, resource_id=ctx.rid(Rid.PROFILE_HEADER))
        face, body = ui.split_row(ui.inset(head, ctx.dp(16), ctx.dp(12)), [ctx.dp(64), None])
        lines = Column(ui.inset(body, ctx.dp(14), ctx.dp(6)))
        root.add(card.add(Node(ui.IMAGE_VIEW, face, paint=Avatar(state.me, state.me,
                                                                  t.background)),
                          widgets.text(ctx, lines.take(ctx.dp(28)), state.me, 20, bold=True,
                                       rid=Rid.TITLE),
                          widgets.text(ctx, lines.take(ctx.dp(22)),
                                       f"{state.karma + len(state.mine):,} karma", 14,
                                       color=t.muted)))
        saved = entry.route == Route.SAVED
        root.add(widgets.tabs(ctx, col.take(ctx.dp(48)), [
            ("Comments", ("replace", Route.PROFILE)), ("Saved", ("replace", Route.SAVED))],
            int(saved)))
        if saved:
            root.add(self._cards(ctx, entry, col.rest(), Rid.FEED, state.saved, state,
                                 "No saved posts yet. Tap Save on a post to keep it here."))
            return root
        items = [(ctx.dp(72), lambda r, p=p, text=text: widgets.list_row(
            ctx, r, text, f"on {state.posts[p].title}", entity=p, rid=Rid.MY_COMMENT,
            on_click=("open", Route.POST, (("id", p),))).add(widgets.divider(ctx, r)))
            for p, text in state.mine]
        root.add(self.scroll(entry, col.rest(), Rid.MY_COMMENTS, items) if items else
                 widgets.paragraph(ctx, ui.inset(col.rest(), ctx.dp(24), ctx.dp(24)),
                                   "You have not commented yet.", 15, color=t.muted,
                                   rid=Rid.EMPTY))
        return root

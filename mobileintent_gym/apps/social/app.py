"""Social: a microblogging app that mirrors X's structure.

Routes (names in :mod:`.ids`): ``social/home`` (the For you timeline, which mixes people's
posts, news and posts of topics; its Following tab is ``social/home/following``),
``social/explore`` (search, and trends that search for themselves), ``social/bookmarks``,
``social/me`` (the user's profile and likes), and the pages of :mod:`.pages`:
``social/post?id=`` (a post, its counts, its action bar, its replies, a reply box and
posts to discover) and ``social/profile?id=`` (an account with Follow and its posts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any, ClassVar

from mobileintent_gym.apps.social import glyphs, icon, tour
from mobileintent_gym.apps.social.content import CONTEXTS, build_state
from mobileintent_gym.apps.social.ids import APP, PACKAGE, Desc, Rid, Route
from mobileintent_gym.apps.social.intents import SocialIntents
from mobileintent_gym.apps.social.pages import PageScreens, profile_height
from mobileintent_gym.apps.social.rows import post_height, post_row
from mobileintent_gym.apps.social.state import ME, SocialState
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import App, Entry, Screen
from mobileintent_gym.phone.characters import folded
from mobileintent_gym.phone.state import moved_within
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx, Theme
from mobileintent_gym.users.pair import random_state

_NAV = ((Desc.HOME, "home", ("open", Route.HOME), "", Rid.NAV_HOME),
        ("Explore", "search", ("open", Route.EXPLORE), "", Rid.NAV_EXPLORE),
        ("Bookmarks", glyphs.bookmark, ("open", Route.BOOKMARKS), "", Rid.NAV_BOOKMARKS),
        ("Me", "person", ("open", Route.ME), "", Rid.NAV_ME))


class SocialApp(SocialIntents, PageScreens, App):
    """The social app."""

    id = APP
    package = PACKAGE
    label = "Social"
    icon = staticmethod(icon.draw)
    color = (29, 155, 240)
    theme = Theme(background=(255, 255, 255), surface=(247, 249, 249), text=(15, 20, 25),
                  muted=(83, 100, 113), accent=(29, 155, 240), bar=(255, 255, 255),
                  divider=(239, 243, 244))
    home = Route.HOME
    state_type = SocialState
    routes: ClassVar[dict[str, Screen]] = {
        Route.HOME: Screen("home_screen", tab=True),
        Route.FOLLOWING: Screen("home_screen", tab=True),
        Route.EXPLORE: Screen("explore_screen", tab=True),
        Route.BOOKMARKS: Screen("bookmarks_screen", tab=True),
        Route.ME: Screen("me_screen", tab=True),
        Route.POST: Screen("post_screen", params=("id",)),
        Route.PROFILE: Screen("profile_screen", params=("id",)),
    }
    tour = tour.STEPS

    def initial_state(self, seed: int) -> SocialState:
        """Built-in content for ``seed``."""
        return random_state(CONTEXTS, build_state, APP, seed)

    def moved(self, state: SocialState, by: timedelta) -> SocialState:
        """``state`` with the times of the user's replies moved by ``by``."""
        return replace(state, posts=moved_within(state.posts, "replies", by))

    def samples(self, state: SocialState) -> Mapping[str, Mapping[str, Any]]:
        """Parameters that open each parametrised route on ``state``."""
        post = state.posts[state.feed[0]]
        return {Route.POST: {"id": post.id}, Route.PROFILE: {"id": post.author}}

    def _tab(self, ctx: Ctx, tab: int, title: str) -> tuple[Node, Column]:
        root, col = widgets.page(ctx, "root")
        root.add(widgets.bottom_nav(ctx, col.take_bottom(ctx.dp(60)), _NAV, tab))
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), title, back=False))
        return root, col

    def timeline(self, ctx: Ctx, entry: Entry, rect: Rect, key: str, ids: Sequence[str],
                 state: SocialState, empty: str, head: list | None = None) -> Node:
        """A scrolling list of posts under ``head`` rows, or ``empty`` when it has none."""
        if not ids and not head:
            return widgets.paragraph(ctx, ui.inset(rect, ctx.dp(24), ctx.dp(32)), empty, 16,
                                     color=ctx.theme.muted, rid=Rid.EMPTY)
        posts = [state.posts[i] for i in ids]
        items = list(head or []) + [
            (post_height(ctx, p), lambda r, p=p: post_row(ctx, r, p, state)) for p in posts]
        return self.scroll(entry, rect, key, items)

    def home_screen(self, ctx: Ctx, entry: Entry, state: SocialState) -> Node:
        """The For you timeline, or (its second tab) the posts of the accounts followed."""
        following = entry.route == Route.FOLLOWING
        root, col = self._tab(ctx, 0, Desc.HOME)
        root.add(widgets.tabs(ctx, col.take(ctx.dp(48)), [
            (Desc.FOR_YOU, ("replace", Route.HOME)),
            ("Following", ("replace", Route.FOLLOWING))], int(following)))
        ids = sorted((p.id for p in state.posts.values() if p.author in state.following),
                     key=lambda i: state.posts[i].minutes) if following else state.feed
        root.add(self.timeline(ctx, entry, col.rest(), Rid.FEED, ids, state,
                               "Posts of the accounts you follow show up here."))
        return root

    def explore_screen(self, ctx: Ctx, entry: Entry, state: SocialState) -> Node:
        """A search field; trends while it is empty, else the posts that match it."""
        root, col = self._tab(ctx, 1, "Explore")
        query = entry.fields.get("query", "")
        root.add(widgets.text_field(ctx, ui.inset(col.take(ctx.dp(64)), ctx.dp(16), ctx.dp(8)),
                                    "query", query, "Search", focused=entry.focus == "query",
                                    rid=Rid.SEARCH_FIELD))
        if query.strip():
            root.add(self.timeline(ctx, entry, col.rest(), Rid.RESULTS, search(state, query),
                                   state, f'No posts match "{query.strip()}".'))
            return root
        items = [(ctx.dp(52), lambda r: widgets.section_header(ctx, r, "Trends for you"))]
        items += [(ctx.dp(72), lambda r, t=trend, n=count: self._trend(ctx, r, t, n))
                  for trend, count in trends(state).items()]
        root.add(self.scroll(entry, col.rest(), Rid.TRENDS, items))
        return root

    @staticmethod
    def _trend(ctx: Ctx, rect: Rect, trend: str, count: int) -> Node:
        kind, _, name = trend.partition(" · ")
        row = widgets.list_row(ctx, rect, name, f"{kind} · {widgets.counted(count, 'post')}",
                               on_click=("search", name), rid=Rid.TREND)
        return row.add(widgets.divider(ctx, rect))

    def bookmarks_screen(self, ctx: Ctx, entry: Entry, state: SocialState) -> Node:
        """The posts the user bookmarked, most recent first."""
        root, col = self._tab(ctx, 2, "Bookmarks")
        root.add(self.timeline(ctx, entry, col.rest(), Rid.FEED, state.bookmarks, state,
                               "Nothing saved yet. Bookmark a post to find it here."))
        return root

    def me_screen(self, ctx: Ctx, entry: Entry, state: SocialState) -> Node:
        """The user's profile: name, handle, who they follow, then the posts they liked."""
        root, col = self._tab(ctx, 3, "Me")
        me = state.account(ME)
        head = [(profile_height(ctx, me), lambda r: self.profile_header(
            ctx, r, me, f"{len(state.following)} Following", None)),
            (ctx.dp(52), lambda r: widgets.section_header(ctx, r, "Likes"))]
        root.add(self.timeline(ctx, entry, col.rest(), Rid.POSTS, state.liked, state, "",
                               head))
        return root


def search(state: SocialState, query: str) -> list[str]:
    """Ids of the posts whose text, topic, author's name or handle holds ``query`` (any case)."""
    needle = folded(query)
    return [p.id for p in state.posts.values() if needle in folded(" ".join(
        (p.text, p.context, state.accounts[p.author].name,
         state.accounts[p.author].handle)))]


def trends(state: SocialState) -> dict[str, int]:
    """The reasons the For you timeline gives for its posts, with their posts' counts.

    Topics and news sections, in timeline order, each with the number of posts that
    tapping it finds (it searches for its name).
    """
    contexts = dict.fromkeys(c for c in (state.posts[p].context for p in state.feed) if c)
    return {c: len(search(state, c.partition(" · ")[2])) for c in contexts}

"""How the forum app draws a post in a list: the card of the home feed and community pages.

:class:`~mobileintent_gym.apps.forum.app.ForumApp` takes it as a mixin (it uses
``App.scroll``). A card shows where and when the post was made (and that it is suggested,
when it is and the user has not joined its community), its title and the start of its
text, each wrapped, and a bar with the votes, the comments and Share; its height follows
its text.
"""

from __future__ import annotations

from mobileintent_gym.apps.forum import glyphs
from mobileintent_gym.apps.forum.ids import Rid, Route, Text
from mobileintent_gym.apps.forum.state import ForumState, Post, count
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.icons import Glyph
from mobileintent_gym.phone.paint import Avatar, Color, Fill, Icon, Round, text_width
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

VOTED = (255, 69, 0)
TITLE_SP, BODY_SP, TITLE_LINES, BODY_LINES = 17, 14, 3, 3
_PAD, _META, _MARK, _BAR, _GAP = 14, 26, 20, 44, 8  # dp


def _pill_icon(ctx: Ctx, x: int, top: int, bottom: int, glyph: Glyph, color: Color) -> Node:
    """The icon at the start of a pill spanning ``top``..``bottom`` from ``x``.

    Its tile is a square inside the pill's round end, so it leaves the end's curve alone.
    """
    mid, half = (top + bottom) // 2, ctx.dp(12)
    return Node(ui.IMAGE_VIEW, (x + ctx.dp(8), mid - half, x + ctx.dp(32), mid + half),
                paint=Icon(glyph, color, ctx.theme.surface, ctx.dp(18)))


class FeedCards:
    """Post cards and lists of them (a mixin of the forum app)."""

    def _card_height(self, ctx: Ctx, post: Post, state: ForumState) -> int:
        """A card's height: its lines, its wrapped title and text, its bar and the gap."""
        room = ctx.width - 2 * ctx.dp(_PAD)
        title = widgets.text_height(ctx, post.title, TITLE_SP, room, lines=TITLE_LINES,
                                    bold=True)
        body = widgets.text_height(ctx, post.body, BODY_SP, room, lines=BODY_LINES)
        marks = ctx.dp(_MARK) if _suggested(post, state) else 0
        return (2 * ctx.dp(_PAD) + marks + ctx.dp(_META) + title + ctx.dp(6) + body
                + ctx.dp(_BAR) + ctx.dp(_GAP))

    def _card(self, ctx: Ctx, rect: Rect, post: Post, state: ForumState) -> Node:
        t = ctx.theme
        card = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.POST), entity=post.id,
                    on_click=("open", Route.POST, (("id", post.id),)), paint=Fill(t.background))
        col = Column(ui.inset((rect[0], rect[1], rect[2], rect[3] - ctx.dp(_GAP)),
                              ctx.dp(_PAD)))
        if _suggested(post, state):
            card.add(widgets.text(ctx, col.take(ctx.dp(_MARK)), Text.SUGGESTED, 12,
                                  color=t.muted, rid=Rid.SUGGESTED))
        card.add(self._meta(ctx, col.take(ctx.dp(_META)), post.community, post.age))
        title = widgets.paragraph(ctx, col.rest(), post.title, TITLE_SP, lines=TITLE_LINES,
                                  bold=True, rid=Rid.POST_TITLE)
        col.take(title.frame[3] - title.frame[1] + ctx.dp(6))
        body = widgets.paragraph(ctx, col.rest(), post.body, BODY_SP, lines=BODY_LINES,
                                 color=t.muted, rid=Rid.POST_BODY)
        col.take(body.frame[3] - body.frame[1])
        card.add(title, body, self._bar(ctx, col.take(ctx.dp(_BAR)), post, state))
        gap = (rect[0], rect[3] - ctx.dp(_GAP), rect[2], rect[3])
        return card.add(Node(ui.VIEW_GROUP, gap, paint=Fill(t.surface)))

    def _meta(self, ctx: Ctx, rect: Rect, community: str, age: str) -> Node:
        """The community's badge, its name and how old the post is."""
        t = ctx.theme
        side = ctx.dp(20)
        top = (rect[1] + rect[3] - side) // 2
        row = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.POST_META))
        row.add(Node(ui.IMAGE_VIEW, (rect[0], top, rect[0] + side, top + side),
                     paint=Avatar(community, community[2:], t.background)),
                widgets.text(ctx, (rect[0] + side + ctx.dp(8), rect[1], rect[2], rect[3]),
                             f"{community} · {age}", 13, color=t.muted))
        return row

    def _bar(self, ctx: Ctx, rect: Rect, post: Post, state: ForumState,
             extra: Node | None = None) -> Node:
        """Votes (a tap upvotes or takes the upvote back), comments and Share."""
        t = ctx.theme
        bar = Node(ui.LINEAR, ui.inset(rect, 0, ctx.dp(4)))
        voted = post.id in state.upvoted
        score = str(state.score(post.id))
        x, top, bottom = rect[0], rect[1] + ctx.dp(4), rect[3] - ctx.dp(4)
        width = ctx.dp(44) + text_width(score, ctx.dp(14), True)
        vote = Node(ui.LINEAR, (x, top, x + width, bottom), resource_id=ctx.rid(Rid.UPVOTE),
                    desc="Remove upvote" if voted else "Upvote", selected=voted,
                    entity=post.id, on_click=("vote", post.id),
                    paint=Round(t.surface, t.background, ctx.dp(18)))
        vote.add(_pill_icon(ctx, x, top, bottom, glyphs.upvoted if voted else glyphs.upvote,
                            VOTED if voted else t.muted),
                 widgets.text(ctx, (x + ctx.dp(34), top, x + width, bottom), score, 14,
                              bold=True, color=VOTED if voted else t.text, under=t.surface,
                              rid=Rid.SCORE))
        x += width + ctx.dp(8)
        said = count(len(post.comments), "comment")
        width = ctx.dp(44) + text_width(said, ctx.dp(14))
        talk = Node(ui.LINEAR, (x, top, x + width, bottom), resource_id=ctx.rid(Rid.COMMENTS),
                    desc=said, on_click=("open", Route.POST, (("id", post.id),)),
                    paint=Round(t.surface, t.background, ctx.dp(18)))
        talk.add(_pill_icon(ctx, x, top, bottom, "bubble", t.muted),
                 widgets.text(ctx, (x + ctx.dp(36), top, x + width, bottom), said, 14,
                              under=t.surface))
        share = (rect[2] - ctx.dp(44), top, rect[2], bottom)
        return bar.add(vote, talk, extra, widgets.icon_button(ctx, share, "share", "Share",
                                                              ("noop",), rid=Rid.SHARE,
                                                              color=t.muted))

    def _cards(self, ctx: Ctx, entry: Entry, rect: Rect, key: str, ids: tuple[str, ...],
               state: ForumState, empty: str, head: list | None = None) -> Node:
        """A scrolling list of post cards under ``head`` (rows); ``empty`` when it is empty."""
        if not ids and not head:
            return widgets.paragraph(ctx, ui.inset(rect, ctx.dp(24), ctx.dp(24)), empty, 15,
                                     color=ctx.theme.muted, rid=Rid.EMPTY)
        items = list(head or []) + [
            (self._card_height(ctx, p, state), lambda r, p=p: self._card(ctx, r, p, state))
            for p in (state.posts[i] for i in ids)]
        return self.scroll(entry, rect, key, items)


def _suggested(post: Post, state: ForumState) -> bool:
    """Whether a card says "Suggested for you": a suggested post of a community not joined."""
    return post.suggested and post.community not in state.joined

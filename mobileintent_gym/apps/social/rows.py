"""How the social app draws a post in a timeline.

A row holds why the timeline shows the post, the author's avatar and name, the text and
an action bar whose toggles show the user's repost, like and bookmark.
"""

from __future__ import annotations

from dataclasses import dataclass

from mobileintent_gym.apps.social import glyphs
from mobileintent_gym.apps.social.ids import Rid, Route
from mobileintent_gym.apps.social.state import ME, Account, Post, SocialState, age_text, compact
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.icons import Glyph
from mobileintent_gym.phone.paint import Avatar, Color, Fill, Icon, text_width
from mobileintent_gym.phone.ui import Column, Intent, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

TEXT_SIZE, TEXT_LINES = 15, 8  # a timeline post's text size and the most lines it shows
PAD, AVATAR = 16, 44  # dp: a row's side padding and its avatar's size


@dataclass(frozen=True, slots=True)
class _Action:
    """A control of a post's action bar: its id, the count it shows and its two looks."""

    rid: str
    count: str
    label: str
    done_label: str
    glyph: Glyph
    done_glyph: Glyph
    color: Color


_ACTIONS = (
    _Action(Rid.REPLY, "replies", "Reply", "Reply", "bubble", "bubble", (29, 155, 240)),
    _Action(Rid.REPOST, "reposts", "Repost", "Reposted", glyphs.repost, glyphs.repost,
            (0, 186, 124)),
    _Action(Rid.LIKE, "likes", "Like", "Liked", "heart_outline", "heart", (249, 24, 128)),
    _Action(Rid.BOOKMARK, "bookmarks", "Bookmark", "Bookmarked", glyphs.bookmark,
            glyphs.bookmarked, (29, 155, 240)),
)


def open_post(post_id: str) -> Intent:
    """The intent that opens a post's page."""
    return ("open", Route.POST, (("id", post_id),))


def open_profile(account_id: str) -> Intent:
    """The intent that opens an account's profile: the user's own is the Me tab."""
    if account_id == ME:
        return ("open", Route.ME)
    return ("open", Route.PROFILE, (("id", account_id),))


def avatar(account: Account, under: Color) -> Avatar:
    """An account's avatar: its colour and initials."""
    return Avatar(account.id, account.name, under)


def _text_width(ctx: Ctx) -> int:
    return ctx.width - ctx.dp(2 * PAD + AVATAR + 12)


def post_height(ctx: Ctx, post: Post) -> int:
    """The height of :func:`post_row` for ``post``."""
    text = widgets.text_height(ctx, post.text, TEXT_SIZE, _text_width(ctx), lines=TEXT_LINES)
    return ctx.dp(12 + (22 if post.context else 0) + 24 + 4 + 4 + 40 + 6) + text


def post_row(ctx: Ctx, rect: Rect, post: Post, state: SocialState) -> Node:
    """A post in a timeline; a tap opens it, its avatar and name open the author."""
    t = ctx.theme
    author = state.accounts[post.author]
    row = Node(ui.VIEW_GROUP, rect, resource_id=ctx.rid(Rid.POST), entity=post.id,
               on_click=open_post(post.id), paint=Fill(t.background))
    left = rect[0] + ctx.dp(PAD)
    col = Column((left + ctx.dp(AVATAR + 12), rect[1] + ctx.dp(12), rect[2] - ctx.dp(PAD),
                  rect[3] - ctx.dp(6)))
    if post.context:
        row.add(widgets.text(ctx, col.take(ctx.dp(22)), post.context, 13, color=t.muted,
                             bold=True, rid=Rid.CONTEXT))
    top = col.top
    row.add(Node(ui.IMAGE_VIEW, (left, top, left + ctx.dp(AVATAR), top + ctx.dp(AVATAR)),
                 desc=author.name, resource_id=ctx.rid(Rid.AVATAR), entity=author.id,
                 on_click=open_profile(author.id), paint=avatar(author, t.background)))
    row.add(*byline(ctx, col.take(ctx.dp(24)), author, age_text(post.minutes)))
    col.take(ctx.dp(4))
    text = widgets.paragraph(ctx, col.rest(), post.text, TEXT_SIZE, lines=TEXT_LINES,
                             rid=Rid.TEXT)
    col.take(text.frame[3] - text.frame[1] + ctx.dp(4))
    row.add(text, action_bar(ctx, col.take(ctx.dp(40)), post, state))
    return row.add(widgets.divider(ctx, rect))


def byline(ctx: Ctx, rect: Rect, author: Account, age: str) -> tuple[Node, Node]:
    """The author's name (it opens the profile), then ``@handle · age`` in grey."""
    t = ctx.theme
    width = min(text_width(author.name, ctx.dp(15), True) + ctx.dp(6), (rect[2] - rect[0]) * 2 // 3)
    name, meta = ui.split_row(rect, [width, None])
    return (widgets.text(ctx, name, author.name, 15, bold=True, rid=Rid.AUTHOR, entity=author.id,
                         on_click=open_profile(author.id)),
            widgets.text(ctx, meta, f"@{author.handle} · {age}" if age else f"@{author.handle}",
                         14, color=t.muted, rid=Rid.META))


def action_bar(ctx: Ctx, rect: Rect, post: Post, state: SocialState) -> Node:
    """Reply, repost, like and bookmark with their counts; the user's own show in colour.

    Reply opens the post (where the reply box is); the others toggle, and a toggle is
    checked when the user took it.
    """
    t = ctx.theme
    counts = state.counts(post)
    taken = {Rid.REPOST: state.reposted, Rid.LIKE: state.liked, Rid.BOOKMARK: state.bookmarks}
    bar = Node(ui.LINEAR, rect)
    for cell, action in zip(ui.split_row(rect, [None] * len(_ACTIONS)), _ACTIONS, strict=True):
        done = post.id in taken.get(action.rid, ())
        color = action.color if done else t.muted
        intent = open_post(post.id) if action.rid == Rid.REPLY else (action.rid, post.id)
        node = Node(ui.LINEAR, cell, desc=action.done_label if done else action.label,
                    resource_id=ctx.rid(action.rid), on_click=intent, entity=post.id,
                    checkable=action.rid in taken, checked=done)
        icon, number = ui.split_row(cell, [ctx.dp(28), None])
        count = counts[action.count]
        node.add(Node(ui.IMAGE_VIEW, icon, paint=Icon(action.done_glyph if done else action.glyph,
                                                      color, t.background, ctx.dp(19))),
                 widgets.text(ctx, ui.inset(number, ctx.dp(4), 0), compact(count) if count else "",
                              13, color=color, rid=Rid.COUNT))
        bar.add(node)
    return bar

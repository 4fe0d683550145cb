"""The social app's pages: a post with its replies and reply box, and an account's profile.

Below a post's replies, Discover more shows a few other posts (:func:`discover_more`).

:class:`~mobileintent_gym.apps.social.app.SocialApp` takes them as a mixin (they use
``App.scroll`` and the app's timeline).
"""

from __future__ import annotations

from mobileintent_gym.apps.social.ids import Rid
from mobileintent_gym.apps.social.rows import (
    action_bar,
    avatar,
    byline,
    open_profile,
    post_height,
    post_row,
)
from mobileintent_gym.apps.social.state import Account, Post, Reply, SocialState, age_text, compact
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Fill
from mobileintent_gym.phone.state import day_age
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

BODY_SIZE, REPLY_SIZE = 17, 15  # text sizes of a post's page and of its replies
PAD = 16  # dp
DISCOVER_MORE = 3  # posts under a post's replies


def discover_more(post: Post, state: SocialState) -> list[Post]:
    """The posts shown under a post's replies: the author's others, then the same reason's.

    Then the For you timeline's, in its order, until there are :data:`DISCOVER_MORE`.
    """
    order = [p for p in state.posts.values() if p.author == post.author]
    order += [p for p in state.posts.values() if post.context and p.context == post.context]
    order += [state.posts[i] for i in state.feed]
    return [p for p in dict.fromkeys(order) if p.id != post.id][:DISCOVER_MORE]


def profile_height(ctx: Ctx, account: Account) -> int:
    """The height of :meth:`PageScreens.profile_header` for ``account``."""
    bio = widgets.text_height(ctx, account.bio, 15, ctx.width - ctx.dp(2 * PAD), lines=2)
    return ctx.dp(12 + 64 + 8 + 28 + 22 + 22 + 12) + (bio + ctx.dp(4) if account.bio else 0)


class PageScreens:
    """A post's page and a profile (a mixin of the social app)."""

    def post_screen(self, ctx: Ctx, entry: Entry, state: SocialState) -> Node:
        """A post: author and Follow, text, counts, actions, replies, more posts; reply box."""
        t = ctx.theme
        post = state.posts[entry.param("id")]
        author = state.accounts[post.author]
        root, col = widgets.page(ctx, "post_page")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), "Post", entity=post.id))
        bar = col.take_bottom(ctx.dp(64))
        draft = entry.fields.get("reply", "")
        field_cell, send_cell = ui.split_row(ui.inset(bar, ctx.dp(8), ctx.dp(10)),
                                             [None, ctx.dp(92)])
        reply_bar = Node(ui.LINEAR, bar, paint=Fill(t.background))
        reply_bar.add(
            widgets.divider(ctx, (bar[0], bar[1], bar[2], bar[1] + ctx.dp(1))),
            widgets.text_field(ctx, ui.inset(field_cell, ctx.dp(4), 0), "reply", draft,
                               "Post your reply", focused=entry.focus == "reply",
                               on_submit=("reply", post.id), rid=Rid.REPLY_INPUT),
            widgets.button(ctx, ui.inset(send_cell, ctx.dp(4), ctx.dp(2)), "Reply",
                           ("reply", post.id), rid=Rid.REPLY_SEND, enabled=bool(draft.strip())))
        width = ctx.width - 2 * ctx.dp(PAD)
        text_h = widgets.text_height(ctx, post.text, BODY_SIZE, width)
        items = [(ctx.dp(28), lambda r: widgets.text(
            ctx, ui.inset(r, ctx.dp(PAD), ctx.dp(4)), post.context, 13, color=t.muted,
            bold=True, rid=Rid.CONTEXT))] if post.context else []
        items += [
            (ctx.dp(68), lambda r: self._post_header(ctx, r, post, author, state)),
            (text_h + ctx.dp(12), lambda r: widgets.paragraph(
                ctx, ui.inset(r, ctx.dp(PAD), 0), post.text, BODY_SIZE, rid=Rid.POST_TEXT,
                entity=post.id)),
            (ctx.dp(36), lambda r: widgets.text(
                ctx, ui.inset(r, ctx.dp(PAD), ctx.dp(6)),
                f"{age_text(post.minutes)} ago · {compact(post.views)} Views", 14,
                color=t.muted)),
            (ctx.dp(48), lambda r: self._stats(ctx, r, post, state)),
            (ctx.dp(52), lambda r: action_bar(ctx, ui.inset(r, ctx.dp(PAD), ctx.dp(6)), post,
                                              state).add(widgets.divider(ctx, r)))]
        items += [(self._reply_height(ctx, reply), lambda r, reply=reply: self._reply(
            ctx, r, reply, state)) for reply in post.replies]
        if not post.replies:
            items.append((ctx.dp(64), lambda r: widgets.text(
                ctx, ui.inset(r, ctx.dp(PAD), ctx.dp(16)), "No replies yet. Be the first.",
                15, color=t.muted, rid=Rid.EMPTY)))
        items.append((ctx.dp(56), lambda r: widgets.section_header(ctx, r, "Discover more")))
        items += [(post_height(ctx, p), lambda r, p=p: post_row(ctx, r, p, state))
                  for p in discover_more(post, state)]
        root.add(self.scroll(entry, col.rest(), Rid.THREAD, items), reply_bar)
        return root

    def _post_header(self, ctx: Ctx, rect: Rect, post: Post, author: Account,
                     state: SocialState) -> Node:
        """The author's avatar, name and handle, and Follow."""
        head = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.POST_HEADER), entity=post.id)
        side, pad = ctx.dp(48), ctx.dp(PAD)
        top = rect[1] + (rect[3] - rect[1] - side) // 2
        head.add(Node(ui.IMAGE_VIEW, (rect[0] + pad, top, rect[0] + pad + side, top + side),
                      desc=author.name, resource_id=ctx.rid(Rid.AVATAR), entity=author.id,
                      on_click=open_profile(author.id),
                      paint=avatar(author, ctx.theme.background)))
        body = (rect[0] + 2 * pad + side, top + ctx.dp(12), rect[2] - ctx.dp(124),
                top + ctx.dp(36))
        head.add(*byline(ctx, body, author, ""))
        button = (rect[2] - pad - ctx.dp(104), top + ctx.dp(6), rect[2] - pad, top + side -
                  ctx.dp(6))
        return head.add(self._follow(ctx, button, author, state))

    @staticmethod
    def _follow(ctx: Ctx, rect: Rect, account: Account, state: SocialState) -> Node:
        """Follow, or Following (outlined) once the user follows the account."""
        followed = account.id in state.following
        button = widgets.button(ctx, rect, "Following" if followed else "Follow",
                                ("follow", account.id), rid=Rid.FOLLOW, primary=not followed)
        button.entity, button.checkable, button.checked = account.id, True, followed
        return button

    @staticmethod
    def _stats(ctx: Ctx, rect: Rect, post: Post, state: SocialState) -> Node:
        """``3 Reposts · 41 Likes · 2 Bookmarks`` between hairlines."""
        counts = state.counts(post)
        text = " · ".join(f"{compact(counts[k])} {k.capitalize()}"
                          for k in ("reposts", "likes", "bookmarks"))
        inner = ui.inset(rect, ctx.dp(PAD), 0)
        return widgets.text(ctx, inner, text, 14.5, rid=Rid.STATS).add(
            widgets.divider(ctx, (inner[0], rect[1], inner[2], rect[1] + ctx.dp(1))),
            widgets.divider(ctx, (inner[0], rect[1], inner[2], rect[3])))

    @staticmethod
    def _reply_width(ctx: Ctx) -> int:
        return ctx.width - ctx.dp(2 * PAD + 36 + 12)

    def _reply_height(self, ctx: Ctx, reply: Reply) -> int:
        text = widgets.text_height(ctx, reply.text, REPLY_SIZE, self._reply_width(ctx))
        return ctx.dp(12 + 24 + 4 + 14) + text

    def _reply(self, ctx: Ctx, rect: Rect, reply: Reply, state: SocialState) -> Node:
        """A reply: avatar, name, handle and age, and its text."""
        t = ctx.theme
        who = state.account(reply.author)
        row = Node(ui.VIEW_GROUP, rect, resource_id=ctx.rid(Rid.REPLY_ROW), entity=who.id,
                   paint=Fill(t.background))
        left, top = rect[0] + ctx.dp(PAD), rect[1] + ctx.dp(12)
        row.add(Node(ui.IMAGE_VIEW, (left, top, left + ctx.dp(36), top + ctx.dp(36)),
                     desc=who.name, paint=avatar(who, t.background)))
        col = Column((left + ctx.dp(48), top, rect[2] - ctx.dp(PAD), rect[3]))
        row.add(*byline(ctx, col.take(ctx.dp(24)), who, day_age(reply.time, ctx.today, reply.age)))
        col.take(ctx.dp(4))
        row.add(widgets.paragraph(ctx, col.rest(), reply.text, REPLY_SIZE, rid=Rid.TEXT))
        return row.add(widgets.divider(ctx, rect))

    def profile_header(self, ctx: Ctx, rect: Rect, account: Account, stats: str,
                       follow: Node | None) -> Node:
        """An account's header: avatar, name, handle, bio, ``stats`` and a Follow button."""
        t = ctx.theme
        head = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.PROFILE_HEADER),
                    entity=account.id, paint=Fill(t.background))
        pad, side = ctx.dp(PAD), ctx.dp(64)
        top = rect[1] + ctx.dp(12)
        head.add(Node(ui.IMAGE_VIEW, (rect[0] + pad, top, rect[0] + pad + side, top + side),
                      desc=account.name, paint=avatar(account, t.background)), follow)
        col = Column((rect[0] + pad, top + side + ctx.dp(8), rect[2] - pad, rect[3]))
        head.add(widgets.text(ctx, col.take(ctx.dp(28)), account.name, 20, bold=True,
                              rid=Rid.NAME),
                 widgets.text(ctx, col.take(ctx.dp(22)), f"@{account.handle}", 14,
                              color=t.muted, rid=Rid.HANDLE))
        if account.bio:
            bio = widgets.paragraph(ctx, col.rest(), account.bio, 15, lines=2, rid=Rid.BIO)
            col.take(bio.frame[3] - bio.frame[1] + ctx.dp(4))
            head.add(bio)
        head.add(widgets.text(ctx, col.take(ctx.dp(22)), stats, 14, color=t.muted))
        return head.add(widgets.divider(ctx, rect))

    def profile_screen(self, ctx: Ctx, entry: Entry, state: SocialState) -> Node:
        """An account: its header with Follow, then its posts, newest first."""
        account = state.accounts[entry.param("id")]
        root, col = widgets.page(ctx, "profile")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), account.name, entity=account.id))
        pad = ctx.dp(PAD)
        followers = account.followers + (account.id in state.following)

        def header(r: Rect) -> Node:
            button = (r[2] - pad - ctx.dp(112), r[1] + ctx.dp(24), r[2] - pad,
                      r[1] + ctx.dp(64))
            return self.profile_header(ctx, r, account, f"{compact(followers)} Followers",
                                       self._follow(ctx, button, account, state))

        ids = sorted((p.id for p in state.posts.values() if p.author == account.id),
                     key=lambda i: state.posts[i].minutes)
        head = [(profile_height(ctx, account), header),
                (ctx.dp(52), lambda r: widgets.section_header(ctx, r, "Posts"))]
        root.add(self.timeline(ctx, entry, col.rest(), Rid.POSTS, ids, state, "", head))
        return root

"""The forum app's post page: the whole post, its comments and the comment box.

:class:`~mobileintent_gym.apps.forum.app.ForumApp` takes it as a mixin (it uses
``App.scroll`` and the cards' vote bar). Comments are listed oldest first; posting one
adds it at the end of the thread, scrolled into view, and clears the box.
"""

from __future__ import annotations

from mobileintent_gym.apps.forum.ids import Rid, Text
from mobileintent_gym.apps.forum.state import Comment, ForumState, Post, count
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Fill
from mobileintent_gym.phone.state import day_age
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

_PAD, _COMMENT_SP = 16, 15  # dp, sp


class PostPage:
    """The post page (a mixin of the forum app)."""

    def post_screen(self, ctx: Ctx, entry: Entry, state: ForumState) -> Node:
        """The post in full, its vote bar with Save, its comments and a comment box."""
        t = ctx.theme
        post = state.posts[entry.param("id")]
        root, col = widgets.page(ctx, "post")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), post.community, entity=post.id,
                                 desc=post.title,
                                 actions=[("more", "More options", ("noop",))]))
        root.add(self._comment_box(ctx, col.take_bottom(ctx.dp(64)), entry, post))
        room = ctx.width - 2 * ctx.dp(_PAD)
        title_h = widgets.text_height(ctx, post.title, 20, room, bold=True)
        body_h = widgets.text_height(ctx, post.body, 16, room)
        pad = ctx.dp(_PAD)
        items = [
            (ctx.dp(40), lambda r: widgets.text(ctx, ui.inset(r, pad, ctx.dp(8)),
                                                f"{post.author} · {post.age}", 13,
                                                color=t.muted, rid=Rid.POST_META)),
            (title_h + ctx.dp(8), lambda r: widgets.paragraph(
                ctx, ui.inset(r, pad, 0), post.title, 20, bold=True, rid=Rid.POST_TITLE,
                entity=post.id)),
            (body_h + ctx.dp(12), lambda r: widgets.paragraph(
                ctx, ui.inset(r, pad, ctx.dp(4)), post.body, 16, rid=Rid.POST_BODY)),
            (ctx.dp(52), lambda r: self._bar(ctx, ui.inset(r, pad, 0), post, state,
                                             self._save(ctx, r, post, state))),
            (ctx.dp(52), lambda r: widgets.section_header(
                ctx, r, count(len(post.comments), "comment"))),
        ]
        items += [(self._comment_height(ctx, c), lambda r, c=c: self._comment(ctx, r, c, state))
                  for c in post.comments]
        root.add(self.scroll(entry, col.rest(), Rid.THREAD, items))
        return root

    def _save(self, ctx: Ctx, rect: Rect, post: Post, state: ForumState) -> Node:
        """Save or Saved, left of Share."""
        saved = post.id in state.saved
        cell = (rect[2] - ctx.dp(_PAD) - ctx.dp(148), rect[1] + ctx.dp(8),
                rect[2] - ctx.dp(_PAD) - ctx.dp(52), rect[3] - ctx.dp(8))
        button = widgets.button(ctx, cell, "Saved" if saved else "Save", ("save", post.id),
                                rid=Rid.SAVE, primary=saved)
        button.checkable, button.checked, button.entity = True, saved, post.id
        return button

    def _comment_height(self, ctx: Ctx, comment: Comment) -> int:
        text = widgets.text_height(ctx, comment.text, _COMMENT_SP,
                                   ctx.width - 3 * ctx.dp(_PAD))
        return ctx.dp(12) + ctx.dp(24) + text + ctx.dp(28)

    def _comment(self, ctx: Ctx, rect: Rect, comment: Comment, state: ForumState) -> Node:
        """A comment: who and when, the text, its votes; the user's own are marked."""
        t = ctx.theme
        mine = comment.author == state.me
        row = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.COMMENT), paint=Fill(t.background))
        row.add(Node(ui.VIEW_GROUP, (rect[0] + ctx.dp(_PAD), rect[1] + ctx.dp(8),
                                     rect[0] + ctx.dp(_PAD) + ctx.dp(2), rect[3] - ctx.dp(8)),
                     paint=Fill(t.accent if mine else t.divider)))
        col = Column((rect[0] + 2 * ctx.dp(_PAD), rect[1] + ctx.dp(12), rect[2] - ctx.dp(_PAD),
                      rect[3]))
        who = f"{comment.author} (you)" if mine else comment.author
        age = day_age(comment.time, ctx.today, comment.age)
        row.add(widgets.text(ctx, col.take(ctx.dp(24)), f"{who} · {age}", 13,
                             bold=True, color=t.accent if mine else t.muted,
                             rid=Rid.COMMENT_AUTHOR))
        text = widgets.paragraph(ctx, col.rest(), comment.text, _COMMENT_SP,
                                 rid=Rid.COMMENT_TEXT)
        col.take(text.frame[3] - text.frame[1])
        return row.add(text, widgets.text(ctx, col.take(ctx.dp(24)),
                                          count(comment.score, "vote"), 12, color=t.muted))

    def _comment_box(self, ctx: Ctx, rect: Rect, entry: Entry, post: Post) -> Node:
        """The comment field and Post (enabled once something is written)."""
        t = ctx.theme
        draft = entry.fields.get("comment", "")
        box = Node(ui.LINEAR, rect, paint=Fill(t.surface))
        field, send = ui.split_row(ui.inset(rect, ctx.dp(8), ctx.dp(10)), [None, ctx.dp(84)])
        return box.add(
            widgets.text_field(ctx, ui.inset(field, ctx.dp(4), 0), "comment", draft,
                               Text.COMMENT_HINT, focused=entry.focus == "comment",
                               on_submit=("comment", post.id), rid=Rid.COMMENT_INPUT,
                               under=t.surface),
            widgets.button(ctx, ui.inset(send, ctx.dp(4), ctx.dp(2)), Text.SUBMIT,
                           ("comment", post.id), rid=Rid.SUBMIT, under=t.surface,
                           enabled=bool(draft.strip())))

"""The notes app's note page: the author's bar, the note, your comments, like and save.

The comment box, like and save sit at the bottom; the user's comments show under the note.

:class:`~mobileintent_gym.apps.notes.app.NotesApp` takes it as a mixin.
"""

from __future__ import annotations

from mobileintent_gym.apps.notes import icon
from mobileintent_gym.apps.notes.ids import COMMENT_FIELD, Rid
from mobileintent_gym.apps.notes.state import ME, Comment, Note, NotesState, posted_text
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.icons import Glyph
from mobileintent_gym.phone.paint import Avatar, Fill, Icon
from mobileintent_gym.phone.state import when
from mobileintent_gym.phone.ui import Column, ItemBuilder, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

SAVED = (255, 181, 0)  # a saved note's bookmark
LINK = (19, 56, 110)  # hashtags
_TEXT_LEFT = 60  # dp from the left edge to a comment's text, right of its avatar


class NoteScreen:
    """The ``notes/note?id=`` screen (a mixin of an :class:`~mobileintent_gym.phone.app.App`)."""

    def note_screen(self, ctx: Ctx, entry: Entry, state: NotesState) -> Node:
        """A note; its like and save buttons show their state and count.

        While the comment box has the focus, a Send button takes the place of the counts.
        """
        note = state.notes[entry.param("id")]
        root, col = widgets.page(ctx, "note")
        root.add(self._author_bar(ctx, col.take(ctx.dp(56)), note, state))
        bar = col.take_bottom(ctx.dp(60))
        items = self._content(ctx, note) + self._comments(ctx, note, state)
        root.add(self.scroll(entry, col.rest(), Rid.NOTE_CONTENT, items))
        return root.add(self._bottom_bar(ctx, bar, note, state, entry))

    def _author_bar(self, ctx: Ctx, rect: Rect, note: Note, state: NotesState) -> Node:
        """The toolbar: up, the author's avatar and name, Follow and share."""
        t = ctx.theme
        author = state.author(note)
        bar = Node(ui.TOOLBAR, rect, resource_id=ctx.rid(Rid.TOOLBAR), entity=note.id,
                   desc=note.title, paint=Fill(t.bar))
        up, face, _, name, follow, share = ui.split_row(rect, [ctx.dp(48), ctx.dp(36),
                                                               ctx.dp(10), None, ctx.dp(92),
                                                               ctx.dp(52)])
        bar.add(widgets.icon_button(ctx, up, "back", "Navigate up", ("back",), rid=widgets.UP),
                Node(ui.IMAGE_VIEW, ui.inset(face, 0, ctx.dp(10)), desc=author,
                     paint=Avatar(author, author, t.bar)),
                widgets.text(ctx, name, author, 15, bold=True, rid=Rid.AUTHOR),
                widgets.icon_button(ctx, share, "share", "Share", ("noop",)))
        if note.author != ME:
            following = note.author in state.follows
            button = widgets.button(ctx, ui.inset(follow, 0, ctx.dp(12)),
                                    "Following" if following else "Follow",
                                    ("toggle", "follows", note.author), rid=Rid.FOLLOW,
                                    primary=not following)
            button.checkable, button.checked = True, following
            bar.add(button)
        return bar.add(widgets.divider(ctx, rect))

    def _content(self, ctx: Ctx, note: Note) -> list[tuple[int, ItemBuilder]]:
        """The note's parts, top to bottom, as items of its scrolling page."""
        t = ctx.theme
        where = f" · {note.location}" if note.location else ""
        return [(ctx.width * 5 // 4, lambda r: Node(
                    ui.IMAGE_VIEW, r, resource_id=ctx.rid(Rid.COVER), desc=note.title,
                    entity=note.id, paint=Avatar(note.id, note.title, t.background))),
                _block(ctx, note.title, 18, Rid.NOTE_TITLE, lines=3, bold=True, gap=14),
                _block(ctx, note.body, 15, Rid.BODY),
                _block(ctx, " ".join(f"#{tag}" for tag in note.tags), 15, Rid.TAGS,
                       color=LINK),
                _block(ctx, f"{posted_text(note.posted, ctx.today)}{where}", 12.5,
                       color=t.muted, gap=12)]

    def _comments(self, ctx: Ctx, note: Note, state: NotesState) -> list[tuple[int, ItemBuilder]]:
        """The comments' header with their count, then the user's own comments."""
        head = (ctx.dp(60), lambda r: widgets.section_header(
            ctx, ui.inset(r, 0, ctx.dp(6)), widgets.counted(state.comment_count(note), "comment")))
        width = ctx.width - ctx.dp(_TEXT_LEFT + 16)
        return [head, *((widgets.text_height(ctx, c.text, 15, width) + ctx.dp(64),
                         lambda r, c=c: self._comment(ctx, r, c, state.me))
                        for c in state.comments_on(note))]

    def _comment(self, ctx: Ctx, rect: Rect, comment: Comment, me: str) -> Node:
        """One of the user's comments: avatar, name, text and time."""
        t = ctx.theme
        node = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.MY_COMMENT), paint=Fill(t.background))
        side, top = ctx.dp(32), rect[1] + ctx.dp(10)
        left = rect[0] + ctx.dp(16)
        col = Column((rect[0] + ctx.dp(_TEXT_LEFT), top, rect[2] - ctx.dp(16), rect[3]))
        name = widgets.text(ctx, col.take(ctx.dp(20)), me, 13, color=t.muted)
        time = widgets.text(ctx, col.take_bottom(ctx.dp(30)), when(comment.time, ctx.today),
                            12, color=t.muted)
        return node.add(Node(ui.IMAGE_VIEW, (left, top, left + side, top + side), desc=me,
                             paint=Avatar(ME, me, t.background)), name,
                        widgets.paragraph(ctx, col.rest(), comment.text, 15), time)

    def _bottom_bar(self, ctx: Ctx, rect: Rect, note: Note, state: NotesState,
                    entry: Entry) -> Node:
        """The comment box, then like, save and comment, each an icon beside its count.

        While the box has the focus, a Send button takes the place of the counts.
        """
        t = ctx.theme
        bar = Node(ui.LINEAR, rect, paint=Fill(t.background))
        bar.add(widgets.divider(ctx, (rect[0], rect[1], rect[2], rect[1] + ctx.dp(1))))
        inner = ui.inset(rect, ctx.dp(12), ctx.dp(10))
        draft, focused = entry.fields.get(COMMENT_FIELD, ""), entry.focus == COMMENT_FIELD
        if focused:
            box, send = ui.split_row(inner, [None, ctx.dp(88)])
            return bar.add(self._box(ctx, box, note, draft, focused), widgets.button(
                ctx, ui.inset(send, ctx.dp(8), 0), "Send", ("comment", note.id), rid=Rid.SEND,
                enabled=bool(draft.strip())))
        box, like, save, comment = ui.split_row(inner, [None, ctx.dp(76), ctx.dp(76),
                                                        ctx.dp(64)])
        liked, saved = note.id in state.liked, note.id in state.saved
        return bar.add(
            self._box(ctx, box, note, draft, focused),
            self._count(ctx, like, "heart" if liked else "heart_outline", "Like",
                        state.likes(note), Rid.LIKE, t.accent if liked else t.text,
                        ("toggle", "liked", note.id), liked, note.id),
            self._count(ctx, save, icon.bookmark, "Save", state.saves(note), Rid.SAVE,
                        SAVED if saved else t.muted, ("toggle", "saved", note.id), saved,
                        note.id),
            self._count(ctx, comment, "bubble", "Comment", state.comment_count(note),
                        Rid.COMMENT, t.text, ("noop",), None, note.id))

    @staticmethod
    def _box(ctx: Ctx, rect: Rect, note: Note, draft: str, focused: bool) -> Node:
        """The comment box: a text field that sends its comment on ENTER."""
        return widgets.text_field(ctx, ui.inset(rect, 0, ctx.dp(2)), COMMENT_FIELD, draft,
                                  "Say something…", focused=focused,
                                  on_submit=("comment", note.id), rid=Rid.COMMENT_BOX)

    def _count(self, ctx: Ctx, rect: Rect, glyph: Glyph, label: str, count: int, rid: str,
               color: tuple, intent: tuple, on: bool | None, note_id: str) -> Node:
        """An icon beside a count; a toggle (checked when on) when ``on`` is set."""
        t = ctx.theme
        node = Node(ui.LINEAR, rect, resource_id=ctx.rid(rid), desc=label, on_click=intent,
                    entity=note_id, checkable=on is not None, checked=bool(on))
        glyph_cell, text_cell = ui.split_row(rect, [ctx.dp(30), None])
        return node.add(Node(ui.IMAGE_VIEW, glyph_cell,
                             paint=Icon(glyph, color, t.background, ctx.dp(24))),
                        widgets.text(ctx, text_cell, f"{count:,}", 13, color=t.text))


def _block(ctx: Ctx, value: str, size: float, rid: str = "", *, lines: int = 99,
           bold: bool = False, color: tuple | None = None, gap: int = 8
           ) -> tuple[int, ItemBuilder]:
    """An item of the page: ``value`` wrapped to the page's width, ``gap`` dp below the last."""
    pad = ctx.dp(16)
    height = widgets.text_height(ctx, value, size, ctx.width - 2 * pad, lines=lines, bold=bold)
    return (height + ctx.dp(gap), lambda r: widgets.paragraph(
        ctx, (r[0] + pad, r[1] + ctx.dp(gap), r[2] - pad, r[3]), value, size, lines=lines,
        bold=bold, color=color, rid=rid))

"""How the reader app draws a book: its cover, a row of a book list and a progress bar."""

from __future__ import annotations

from mobileintent_gym.apps.reader.ids import Rid
from mobileintent_gym.apps.reader.state import Book
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.paint import Avatar, Color, Fill
from mobileintent_gym.phone.ui import Column, Intent, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

ROW_PAD = 12  # dp above and below a row's cover
BLURB_SIZE = 13.5


def cover(book: Book, under: Color) -> Avatar:
    """A book's cover: its colour and the initials of the title shown beside it."""
    return Avatar(book.id, book.title, under)


def genre(book: Book) -> str:
    """The book's genre as a label: ``Science fiction``."""
    return book.genre[:1].upper() + book.genre[1:]


def row_height(ctx: Ctx, blurb_lines: int = 0) -> int:
    """The height of a :func:`book_row` showing up to ``blurb_lines`` lines of blurb."""
    blurb = blurb_lines * widgets.text_height(ctx, "A", BLURB_SIZE, ctx.width)
    return max(ctx.dp(96), ctx.dp(2 * ROW_PAD + 48) + blurb + ctx.dp(4))


def progress_bar(ctx: Ctx, rect: Rect, percent: int) -> Node:
    """A thin bar filled to ``percent`` with the percentage after it."""
    t = ctx.theme
    bar, label = ui.split_row(rect, [None, ctx.dp(48)])
    mid = (bar[1] + bar[3]) // 2
    track = (bar[0], mid - ctx.dp(2), bar[2], mid + ctx.dp(2))
    done = (track[0], track[1], track[0] + (track[2] - track[0]) * percent // 100, track[3])
    node = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.PROGRESS), desc=f"{percent}% read")
    node.add(Node(ui.VIEW_GROUP, track, paint=Fill(t.divider)),
             Node(ui.VIEW_GROUP, done, paint=Fill(t.accent)) if percent else None,
             widgets.text(ctx, label, f"{percent}%", 12, color=t.muted, align="right"))
    return node


def book_row(ctx: Ctx, rect: Rect, book: Book, subtitle: str, intent: Intent | None, rid: str,
             *, blurb_lines: int = 0, progress: int | None = None,
             trailing: tuple[str, str, Intent | None, str] | None = None) -> Node:
    """A row of a book list: cover, title, ``subtitle`` and optionally blurb or progress.

    ``trailing`` is an ``(icon, description, intent, resource id name)`` button at the end
    of the row, acting on the same book (greyed without an intent).
    """
    t = ctx.theme
    row = Node(ui.VIEW_GROUP, rect, resource_id=ctx.rid(rid), entity=book.id,
               on_click=intent, paint=Fill(t.background))
    pad, top = ctx.dp(16), rect[1] + ctx.dp(ROW_PAD)
    height = min(rect[3] - ctx.dp(ROW_PAD) - top, ctx.dp(84))
    left = rect[0] + pad
    row.add(Node(ui.IMAGE_VIEW, (left, top, left + height * 3 // 4, top + height),
                 resource_id=ctx.rid(Rid.COVER), paint=cover(book, t.background)))
    right = rect[2] - (ctx.dp(56) if trailing else pad)
    body = Column((left + height * 3 // 4 + pad, top, right, rect[3] - ctx.dp(ROW_PAD)))
    row.add(widgets.text(ctx, body.take(ctx.dp(24)), book.title, 16, bold=True,
                         rid=Rid.TITLE),
            widgets.text(ctx, body.take(ctx.dp(22)), subtitle, 13.5, color=t.muted,
                         rid=Rid.SUBTITLE))
    if blurb_lines:
        body.take(ctx.dp(4))
        row.add(widgets.paragraph(ctx, body.rest(), book.blurb, BLURB_SIZE, lines=blurb_lines,
                                  rid=Rid.BLURB))
    if progress is not None:
        row.add(progress_bar(ctx, body.take(ctx.dp(24)), progress))
    if trailing:
        icon, desc, action, name = trailing
        button = widgets.icon_button(ctx, (right, rect[1], rect[2] - ctx.dp(8), rect[3]), icon,
                                     desc, action, color=t.accent if action else t.muted,
                                     rid=name)
        button.entity = book.id
        row.add(button)
    return row.add(widgets.divider(ctx, rect))

"""The reader app's book page.

Cover, title and author, facts, progress, blurb, topics and the books readers also
enjoyed scroll above a Read button.

:class:`~mobileintent_gym.apps.reader.app.ReaderApp` takes it as a mixin (it uses
``App.scroll``).
"""

from __future__ import annotations

from mobileintent_gym.apps.reader.ids import Rid, Route
from mobileintent_gym.apps.reader.rows import book_row, cover, genre, progress_bar, row_height
from mobileintent_gym.apps.reader.state import Book, ReaderState
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx

BLURB_SIZE, BLURB_LINES = 15, 8  # the blurb's text size and the most lines the page shows
ALSO_ENJOYED = 3  # books under "Readers also enjoyed"


def open_book(book_id: str) -> tuple:
    """The intent that opens a book's page."""
    return ("open", Route.BOOK, (("id", book_id),))


def also_enjoyed(book: Book, state: ReaderState) -> list[Book]:
    """The books a book's page suggests: same genre first, then most topics shared.

    Ties keep the order of ``state.books``; the book itself is never among them.
    """
    others = [b for b in state.books.values() if b.id != book.id]
    others.sort(key=lambda b: (b.genre != book.genre, -len(set(b.topics) & set(book.topics))))
    return others[:ALSO_ENJOYED]


class BookScreen:
    """A book's page (a mixin of the reader app)."""

    def book_screen(self, ctx: Ctx, entry: Entry, state: ReaderState) -> Node:
        """A book's page: header, facts, progress, blurb, topics, suggestions; Read below."""
        book = state.books[entry.param("id")]
        pad = ctx.dp(20)
        root, col = widgets.page(ctx, "book")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(56)), "", entity=book.id,
                                 actions=[("share", "Share", ("noop",)),
                                          ("more", "More options", ("noop",))]))
        read = state.progress.get(book.id)
        bottom = ui.inset(col.take_bottom(ctx.dp(76)), pad, ctx.dp(12))
        root.add(widgets.button(ctx, bottom, "Read" if read is None else "Continue reading",
                                ("read", book.id), rid=Rid.READ))
        facts = ((f"{book.rating:.1f}", "Rating"), (genre(book), "Genre"),
                 ("Not started" if read is None else f"{read}%", "Read"))
        width = ctx.width - 2 * pad
        blurb_h = widgets.text_height(ctx, book.blurb, BLURB_SIZE, width, lines=BLURB_LINES)
        items = [(ctx.dp(168), lambda r: self._book_header(ctx, r, book)),
                 (ctx.dp(72), lambda r: self._facts(ctx, r, facts))]
        if read is not None:
            items.append((ctx.dp(32), lambda r: progress_bar(ctx, ui.inset(r, pad, ctx.dp(4)),
                                                             read)))
        items += [(ctx.dp(48), lambda r: widgets.section_header(ctx, r, "About this book")),
                  (blurb_h + ctx.dp(8), lambda r: widgets.paragraph(
                      ctx, ui.inset(r, pad, 0), book.blurb, BLURB_SIZE, lines=BLURB_LINES,
                      rid=Rid.ABOUT)),
                  (ctx.dp(40), lambda r: widgets.text(
                      ctx, ui.inset(r, pad, ctx.dp(8)), "  ".join(f"#{t}" for t in book.topics),
                      14, color=ctx.theme.accent, rid=Rid.TOPICS)),
                  (ctx.dp(56), lambda r: widgets.section_header(ctx, r, "Readers also enjoyed"))]
        items += [(row_height(ctx), lambda r, b=b: book_row(
            ctx, r, b, f"{b.author} · {genre(b)}", open_book(b.id), Rid.SIMILAR_BOOK))
            for b in also_enjoyed(book, state)]
        root.add(self.scroll(entry, col.rest(), Rid.BOOK_PAGE, items))
        return root

    @staticmethod
    def _book_header(ctx: Ctx, rect: Rect, book: Book) -> Node:
        """The cover beside the title (up to three lines) and the author."""
        t, pad = ctx.theme, ctx.dp(20)
        header = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.BOOK_HEADER), entity=book.id)
        art = (rect[0] + pad, rect[1] + ctx.dp(12), rect[0] + pad + ctx.dp(108),
               rect[1] + ctx.dp(156))
        header.add(Node(ui.IMAGE_VIEW, art, desc=f"Cover of {book.title}",
                        resource_id=ctx.rid(Rid.COVER), paint=cover(book, t.background)))
        body = Column((art[2] + pad, art[1], rect[2] - pad, art[3]))
        title = widgets.paragraph(ctx, body.rest(), book.title, 21, lines=3, bold=True,
                                  rid=Rid.TITLE)
        body.take(title.frame[3] - title.frame[1] + ctx.dp(6))
        return header.add(title, widgets.text(ctx, body.take(ctx.dp(24)), book.author, 15,
                                              color=t.accent))

    @staticmethod
    def _facts(ctx: Ctx, rect: Rect, facts: tuple[tuple[str, str], ...]) -> Node:
        """A row of ``(value, caption)`` cells between hairlines (rating, genre, progress)."""
        t = ctx.theme
        row = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.FACTS))
        for cell, (value, caption) in zip(ui.split_row(rect, [None] * len(facts)), facts,
                                          strict=True):
            col = Column(ui.inset(cell, ctx.dp(8), ctx.dp(12)))
            row.add(widgets.text(ctx, col.take(ctx.dp(26)), value, 17, bold=True,
                                 align="center"),
                    widgets.text(ctx, col.rest(), caption, 12.5, color=t.muted,
                                 align="center"))
        left, right = rect[0] + ctx.dp(20), rect[2] - ctx.dp(20)
        return row.add(widgets.divider(ctx, (left, rect[1], right, rect[1] + ctx.dp(1))),
                       widgets.divider(ctx, (left, rect[1], right, rect[3])))

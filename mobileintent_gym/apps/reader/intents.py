"""What the reader app's controls do to its data: its intent handlers.

:class:`~mobileintent_gym.apps.reader.app.ReaderApp` takes them as a mixin. The state is
immutable: each handler gives ``nav`` a new one, and the phone notices the change.
"""

from __future__ import annotations

from mobileintent_gym.apps.reader.ids import Rid
from mobileintent_gym.apps.reader.state import ReaderState
from mobileintent_gym.phone.backstack import Nav

READ_PERCENT = 1  # how far one reading session gets: a book just begun is that far


class ReaderIntents:
    """The ``on_<intent>`` handlers of the reader app (see :meth:`App.handle`)."""

    def on_read(self, nav: Nav, book_id: str) -> None:
        """Read a book: it tops the reading list and is read :data:`READ_PERCENT` further."""
        state: ReaderState = nav.state
        read = min(100, state.progress.get(book_id, 0) + READ_PERCENT)
        nav.update(reading=(book_id, *(b for b in state.reading if b != book_id)),
                   progress={**state.progress, book_id: read})

    def on_add_favorite(self, nav: Nav, book_id: str) -> None:
        """Put a book on top of the book list; back to the editor, scrolled to the top."""
        state: ReaderState = nav.state
        if book_id not in state.favorites:
            nav.update(favorites=(book_id, *state.favorites))
        nav.pop(2)
        nav.stack[-1].scroll.pop(Rid.LIST_BOOKS, None)

    def on_remove(self, nav: Nav, book_id: str) -> None:
        """Take a book off the book list."""
        nav.update(favorites=tuple(b for b in nav.state.favorites if b != book_id))

    def on_noop(self, nav: Nav) -> None:
        """A control this simulation does not model."""

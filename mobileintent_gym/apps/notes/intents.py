"""What the notes app's controls do to its data: its intent handlers.

:class:`~mobileintent_gym.apps.notes.app.NotesApp` takes them as a mixin. The state is
immutable: each handler gives ``nav`` a new one, and the phone notices the change.
"""

from __future__ import annotations

from mobileintent_gym.apps.notes.ids import COMMENT_FIELD, Rid
from mobileintent_gym.apps.notes.state import Comment, NotesState
from mobileintent_gym.phone.backstack import Nav
from mobileintent_gym.phone.state import MINUTE_FORMAT, toggled


class NotesIntents:
    """The ``on_<intent>`` handlers of the notes app (see :meth:`App.handle`)."""

    def on_toggle(self, nav: Nav, field: str, item: str) -> None:
        """Like or save a note, or follow an author; a second time takes it back.

        ``field`` is ``liked``, ``saved`` or ``follows``; new ones go first.
        """
        state: NotesState = nav.state
        nav.update(**{field: toggled(getattr(state, field), item)})

    def on_comment(self, nav: Nav, note_id: str) -> None:
        """Post the comment box's text under a note (nothing when it is blank).

        The box empties and gives up the focus, and the page scrolls to the comments.
        """
        entry = nav.stack[-1]
        text = entry.fields.get(COMMENT_FIELD, "").strip()
        if not text:
            return
        state: NotesState = nav.state
        comment = Comment(note_id, text, nav.clock.strftime(MINUTE_FORMAT))
        nav.update(comments=(comment, *state.comments))
        entry.fields[COMMENT_FIELD], entry.focus, entry.keyboard = "", None, False
        entry.scroll[Rid.NOTE_CONTENT] = 1 << 30

    def on_noop(self, nav: Nav) -> None:
        """A control this simulation does not model: it does nothing, as a stub app would."""

"""The notes app's data: immutable records in an immutable state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from mobileintent_gym.apps.plugin import DEFAULT_OWNER
from mobileintent_gym.phone.state import MINUTE_FORMAT, frozen_fields, moved_each

ME = "me"  # the author id of the user's own notes


@dataclass(frozen=True, slots=True)
class Note:
    """A note: a picture post with a title, text and tags.

    Attributes:
        id: Its record id.
        title: Its title.
        author: The author's name (:data:`ME` for the user's own notes).
        topic: What it is about (``food``, ``travel`` …).
        tags: Its hashtags, without ``#``.
        location: Where it was posted from (``""``: nowhere given).
        body: Its text.
        likes: Likes by others (the user's own like adds one).
        saves: Saves by others (the user's own save adds one).
        comments: Comments under it.
        posted: When it was posted, as ``YYYY-MM-DD HH:MM`` (shown against the phone's
            date by :func:`posted_text`).
    """

    id: str
    title: str
    author: str
    topic: str
    tags: tuple[str, ...]
    location: str
    body: str
    likes: int
    saves: int
    comments: int
    posted: str


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment the user left under a note.

    Attributes:
        note: The note's id.
        text: What the user wrote.
        time: When, as ``YYYY-MM-DD HH:MM`` (shown against the phone's date:
            ``Today 09:43``).
    """

    note: str
    text: str
    time: str


@dataclass(frozen=True, slots=True)
class NotesState:
    """The notes app's data (lists given as lists are kept as tuples).

    Attributes:
        notes: Every note the app shows, by id.
        discover: Ids of the notes of the Discover feed.
        saved: Ids of the notes the user saved, most recent first.
        liked: Ids of the notes the user liked, most recent first.
        mine: Ids of the user's own notes, newest first.
        follows: Names of the authors the user follows.
        comments: The user's comments, newest first.
        me: The owner's name (the profile's ``name``).
        followers: The user's followers.
        bio: The line under the user's name on the Me page.
    """

    notes: Mapping[str, Note]
    discover: tuple[str, ...]
    saved: tuple[str, ...] = ()
    liked: tuple[str, ...] = ()
    mine: tuple[str, ...] = ()
    follows: tuple[str, ...] = ()
    comments: tuple[Comment, ...] = ()
    me: str = DEFAULT_OWNER
    followers: int = 0
    bio: str = "Coffee, city walks and saving everything for later"

    def __post_init__(self) -> None:
        frozen_fields(self, ("notes",),
                      ("discover", "saved", "liked", "mine", "follows", "comments"))

    def likes(self, note: Note) -> int:
        """A note's likes, the user's own included."""
        return note.likes + (note.id in self.liked)

    def saves(self, note: Note) -> int:
        """A note's saves, the user's own included."""
        return note.saves + (note.id in self.saved)

    def comments_on(self, note: Note) -> tuple[Comment, ...]:
        """The user's comments under a note, newest first."""
        return tuple(c for c in self.comments if c.note == note.id)

    def comment_count(self, note: Note) -> int:
        """A note's comments, the user's own included."""
        return note.comments + len(self.comments_on(note))

    def author(self, note: Note) -> str:
        """The name a note shows for its author."""
        return self.me if note.author == ME else note.author


def moved_state(state: NotesState, by: timedelta) -> NotesState:
    """``state`` with the notes' post times and the user's comments' times moved by ``by``."""
    notes = moved_each(state.notes.values(), by, "posted")
    return replace(state, notes={n.id: n for n in notes},
                   comments=moved_each(state.comments, by))


def posted_text(time: str, today: date) -> str:
    """How a note's post time shows on the phone's date ``today``.

    ``Today``, ``Yesterday``, ``3 days ago``, then the date as ``MM-DD``.
    """
    day = datetime.strptime(time, MINUTE_FORMAT).date()
    days = (today - day).days
    if days < 7:
        return "Today" if days <= 0 else "Yesterday" if days == 1 else f"{days} days ago"
    return f"{day:%m-%d}"

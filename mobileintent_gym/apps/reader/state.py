"""The reader app's data: immutable records in an immutable state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mobileintent_gym.apps.plugin import DEFAULT_OWNER
from mobileintent_gym.phone.state import frozen_fields


@dataclass(frozen=True, slots=True)
class Book:
    """A book of the store."""

    id: str
    title: str
    author: str
    genre: str
    blurb: str
    rating: float
    topics: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ReaderState:
    """The reader app's data (lists given as lists are kept as tuples).

    Attributes:
        books: Every book the app shows, book id → book.
        reading: The home reading list, most recently read first.
        progress: How far the user has read, book id → percent (books begun only).
        recommended: The recommendations, best first.
        candidates: The books Add Favorite Book offers.
        favorites: The user's book list, newest first.
        me: The owner's name (the profile's ``name``).
        week_minutes: Minutes read this week.
    """

    books: Mapping[str, Book]
    reading: tuple[str, ...]
    progress: Mapping[str, int]
    recommended: tuple[str, ...]
    candidates: tuple[str, ...]
    favorites: tuple[str, ...] = ()
    me: str = DEFAULT_OWNER
    week_minutes: int = 0

    def __post_init__(self) -> None:
        frozen_fields(self, ("books", "progress"),
                      ("reading", "recommended", "candidates", "favorites"))


def books(count: int) -> str:
    """``count`` books, in words: ``1 book``, ``5 books``."""
    return f"{count} book{'' if count == 1 else 's'}"


def duration(minutes: int) -> str:
    """``minutes`` as the app writes a reading time: ``6 h 40 min``, ``25 min``."""
    hours, rest = divmod(minutes, 60)
    return f"{hours} h {rest} min" if hours else f"{rest} min"

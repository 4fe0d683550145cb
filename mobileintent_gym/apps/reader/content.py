"""The reader app's content: its record pool, its PAIR contexts and the state built from them.

Pool: ``data/books.jsonl`` (``b000``…: author, genre, blurb, topics, rating). Three lists
share it, filled in this order so that no book is in two of them: the home reading list,
the recommendations and the books Add Favorite Book offers. The user's book list starts
with the first :data:`LISTED_AT_START` books of the reading list.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

import numpy as np

from mobileintent_gym.apps.reader.ids import Pair
from mobileintent_gym.apps.reader.state import Book, ReaderState
from mobileintent_gym.apps.records import Record
from mobileintent_gym.users.contexts import ContextSpec, Pool

LISTED_AT_START = 5
PROGRESS_RANGE = (2, 98)  # percent read of a book on the reading list
WEEK_MINUTES_RANGE = (40, 900)
# PersonaLens domains whose tastes show in what a person reads: books first, and the
# subjects people also read about when they have no book preferences of their own.
READING_DOMAINS = ("Books", "Movies", "Media", "Travel", "Sports", "Restaurants", "Music",
                   "Games")


def _describe_book(r: Record) -> str:
    return (f"{r.label} by {r['author']}, a {r['genre']} book: {r['blurb']} "
            f"({', '.join(r['topics'])})")


BOOKS = Pool(__package__, "books", _describe_book, ("label", "author", "genre"))

CONTEXTS = (
    ContextSpec(Pair.READING, BOOKS, READING_DOMAINS, ("b005", "b075")),
    ContextSpec(Pair.RECOMMENDED, BOOKS, READING_DOMAINS, ("b012", "b090")),
    ContextSpec(Pair.FAVORITES, BOOKS, READING_DOMAINS, ("b033", "b117")),
)


@functools.cache
def book(record: Record) -> Book:
    """The book of a ``books`` record."""
    return Book(record.id, record.label, record["author"], record["genre"], record["blurb"],
                float(record["rating"]), tuple(record["topics"]))


def build_state(lists: Mapping[str, Sequence[Record]], rng: np.random.Generator,
                owner: str) -> ReaderState:
    """A reader state showing PAIR's lists in their order.

    Args:
        lists: The reading list, the books Add Favorite Book offers, the recommendations.
        rng: Source of how far each book on the reading list is read and of the week's
            reading time.
        owner: The owner's name, on the Me page and the book list they keep.
    """
    reading, candidates = lists[Pair.READING], lists[Pair.FAVORITES]
    recommended = lists[Pair.RECOMMENDED]
    progress = {r.id: int(rng.integers(*PROGRESS_RANGE)) for r in reading}
    return ReaderState(
        books={r.id: book(r) for r in (*reading, *candidates, *recommended)},
        reading=[r.id for r in reading], progress=progress,
        recommended=[r.id for r in recommended], candidates=[r.id for r in candidates],
        favorites=[r.id for r in reading[:LISTED_AT_START]],
        week_minutes=int(rng.integers(*WEEK_MINUTES_RANGE)), me=owner)

"""The notes app's content: its record pools, its PAIR contexts and the state built from them.

Pools: ``data/notes.jsonl`` (``n000``…: author, topic, tags, location, body), which the
three contexts share, so a note is in one list only (saved, liked or the Discover feed),
and ``data/posts.jsonl`` (``np00``…), the user's own notes, a few of which each user has
posted. Counts, posting dates and followers are drawn per user; the user's bio names the
topics of their saved and liked notes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from mobileintent_gym.apps.notes.ids import Pair
from mobileintent_gym.apps.notes.state import ME, Note, NotesState
from mobileintent_gym.apps.records import Record, read_records
from mobileintent_gym.phone.state import minutes_ago
from mobileintent_gym.users.contexts import ContextSpec, Pool

# PersonaLens domains whose tastes show in a lifestyle notes feed.
DOMAINS = ("Restaurants", "Travel", "Shopping", "Books", "Media", "Movies", "Events", "Sports",
           "Games", "Music")
OWN_NOTES = 3
MINUTES_A_DAY = 24 * 60  # notes were posted a whole number of days before the clock
FOLLOWS = 12  # authors the user follows: those of the first saved notes
BIO_TOPICS = 2


def _describe(r: Record) -> str:
    return (f"{r.label}: a {r['topic']} note by {r['author']}. {r['body']} "
            f"({', '.join(r['tags'])}{'; ' + r['location'] if r['location'] else ''})")


NOTES = Pool(__package__, "notes", _describe, ("label", "topic", "tags", "location"))

CONTEXTS = (
    ContextSpec(Pair.SAVED, NOTES, DOMAINS, ("n001", "n016")),
    ContextSpec(Pair.LIKED, NOTES, DOMAINS, ("n035", "n040")),
    ContextSpec(Pair.DISCOVER, NOTES, DOMAINS, ("n066", "n087")),
)


def build_state(lists: Mapping[str, Sequence[Record]], rng: np.random.Generator,
                owner: str) -> NotesState:
    """A notes state showing PAIR's lists in their order.

    The user follows the authors of their first saved notes and has posted a few notes.

    Args:
        lists: The saved and liked notes (most recent first) and the Discover feed.
        rng: Source of the counts, the dates, the user's own notes and followers.
        owner: The owner's name, on the Me page and the user's notes and comments.
    """
    saved, liked, discover = lists[Pair.SAVED], lists[Pair.LIKED], lists[Pair.DISCOVER]
    notes = {r.id: _note(r, r["author"], rng) for r in (*saved, *liked, *discover)}
    posts = read_records(__package__, "posts")
    mine = [posts[int(i)] for i in sorted(rng.choice(len(posts), OWN_NOTES, replace=False))]
    notes.update({r.id: _note(r, ME, rng, popular=False) for r in mine})
    follows = list(dict.fromkeys(r["author"] for r in saved))[:FOLLOWS]
    return NotesState(notes, discover=[r.id for r in discover], saved=[r.id for r in saved],
                      liked=[r.id for r in liked], mine=[r.id for r in mine], follows=follows,
                      followers=int(rng.integers(3, 300)), me=owner, bio=bio((*saved, *liked)))


def bio(kept: Sequence[Record]) -> str:
    """The user's bio: the two topics most of ``kept`` (saved and liked notes) are about.

    ``Food, travel and saving everything for later``; ties go to the topic kept first.
    """
    topics = [topic for topic, _ in Counter(r["topic"] for r in kept).most_common(BIO_TOPICS)]
    if not topics:
        return "Saving everything for later"
    return f"{', '.join(topics).capitalize()} and saving everything for later"



def _note(record: Record, author: str, rng: np.random.Generator, popular: bool = True) -> Note:
    """A note of a record, by ``author``, with counts and a date drawn from ``rng``."""
    likes = int(10 ** rng.uniform(2.0, 4.6)) if popular else int(rng.integers(2, 60))
    return Note(record.id, record.label, author, record["topic"], record["tags"],
                record["location"], record["body"], likes,
                saves=int(likes * rng.uniform(0.1, 0.6)),
                comments=int(likes * rng.uniform(0.01, 0.08)),
                posted=minutes_ago(int(rng.integers(1, 120)) * MINUTES_A_DAY))

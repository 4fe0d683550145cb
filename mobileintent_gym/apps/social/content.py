"""The social app's content: its record pools, its PAIR contexts and the state built from them.

Pools: ``data/posts.jsonl`` (``sp000``…: people's posts with their tags),
``data/news.jsonl`` (``sn000``…: outlets' news with a section) and ``data/topics.jsonl``
(``q000``…: posts of a topic), all by the accounts of ``data/accounts.jsonl``
(``a00``…: people and outlets). The For you timeline interleaves the three lists PAIR
fills, one from each pool; every post of the pools can be found by search and on its
author's profile. Ages, counts, replies and what the user already follows, likes and
bookmarked are drawn per user.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from itertools import chain, zip_longest

import numpy as np

from mobileintent_gym.apps.records import Record, read_records
from mobileintent_gym.apps.social.ids import Pair
from mobileintent_gym.apps.social.state import Account, Post, Reply, SocialState, age_text
from mobileintent_gym.users.contexts import ContextSpec, Pool

# PersonaLens domains whose tastes show in what a timeline suggests.
TIMELINE_DOMAINS = ("Books", "Events", "Games", "Media", "Movies", "Music", "Restaurants",
                    "Shopping", "Sports", "Travel")
MAX_AGE_MINUTES = 4 * 24 * 60
MAX_REPLIES = 3
FOLLOWED, LIKED, BOOKMARKED = 5, 6, 6  # timeline posts' authors followed, posts liked, saved
REPLY_LINES = (
    "This made my day.", "Saving this for later.", "Completely agree with every word.",
    "Where is this? I need to go.", "Underrated take, honestly.",
    "Sending this to the group chat right now.", "I have so many questions.",
    "Best thing I have read all week.", "Not me doing exactly this last weekend.",
    "Congratulations, you earned it!", "We need a part two.", "Adding it to my list.",
    "Same here, every single time.", "The comments are going to be wild.",
    "Okay, this is actually useful.", "I laughed far too loud at this.",
)


def _describe_post(r: Record) -> str:
    return f"{r['text']} ({', '.join(r['tags'])})"


def _describe_news(r: Record) -> str:
    return f"{r['section']} news: {r['text']} ({', '.join(r['tags'])})"


def _describe_topic(r: Record) -> str:
    return f"{r['topic']}: {r['text']} ({', '.join(r['tags'])})"


POSTS = Pool(__package__, "posts", _describe_post, ("tags",))
NEWS = Pool(__package__, "news", _describe_news, ("section", "tags"))
TOPICS = Pool(__package__, "topics", _describe_topic, ("topic", "tags"))

CONTEXTS = (
    ContextSpec(Pair.INTERESTS, POSTS, TIMELINE_DOMAINS, ("sp003", "sp021")),
    ContextSpec(Pair.NEWS, NEWS, TIMELINE_DOMAINS, ("sn006", "sn022")),
    ContextSpec(Pair.TOPICS, TOPICS, TIMELINE_DOMAINS, ("q004", "q016")),
)


def context_line(record: Record) -> str:
    """Why the timeline shows a record: its news section or topic (``""`` for people's)."""
    if "section" in record.attributes:
        return f"News · {record['section']}"
    return f"Topic · {record['topic']}" if "topic" in record.attributes else ""


def build_state(lists: Mapping[str, Sequence[Record]], rng: np.random.Generator,
                owner: str) -> SocialState:
    """A social state whose For you timeline interleaves PAIR's three lists in their order.

    Lists of unequal sizes (``PairConfig.sizes``, or a ``top_k`` past a pool's records) are
    interleaved while they last; the timeline then goes on with the longer ones.

    Args:
        lists: People's posts, news and topic posts, best first.
        rng: Source of ages, counts, replies and repliers, followers, and which timeline
            accounts the user follows and which posts they liked and bookmarked.
        owner: The owner's name, on the Me page and the user's replies.
    """
    accounts = {r.id: Account(r.id, r.label, r["handle"], r["bio"], r["kind"] == "outlet",
                              int(rng.integers(50, 90_000))) for r in _account_records()}
    people = [a for a in accounts.values() if not a.outlet]
    posts = {r.id: _post(r, rng, people) for r in chain(*(c.pool.records() for c in CONTEXTS))}
    trio = zip_longest(lists[Pair.INTERESTS], lists[Pair.NEWS], lists[Pair.TOPICS])
    feed = [r.id for r in chain.from_iterable(trio) if r is not None]
    authors = list(dict.fromkeys(posts[p].author for p in feed))
    return SocialState(accounts, posts, feed, following=_draw(rng, authors, FOLLOWED),
                       liked=_draw(rng, feed, LIKED), bookmarks=_draw(rng, feed, BOOKMARKED),
                       me=owner)



@functools.cache
def _account_records() -> tuple[Record, ...]:
    return read_records(__package__, "accounts")


def _draw(rng: np.random.Generator, ids: Sequence[str], count: int) -> list[str]:
    """``count`` of ``ids`` at random (all of them, shuffled, when there are fewer)."""
    return [ids[int(i)] for i in rng.choice(len(ids), min(count, len(ids)), replace=False)]


def _post(record: Record, rng: np.random.Generator, people: Sequence[Account]) -> Post:
    minutes = int(rng.integers(2, MAX_AGE_MINUTES))
    repliers = [a for a in people if a.id != record["author"]]
    replies = tuple(Reply(repliers[int(rng.integers(len(repliers)))].id,
                          REPLY_LINES[int(rng.integers(len(REPLY_LINES)))],
                          age_text(minutes * (k + 1) // (MAX_REPLIES + 2)))
                    for k in range(int(rng.integers(0, MAX_REPLIES + 1))))
    likes = int(rng.integers(3, 6000))
    return Post(record.id, record["author"], record["text"], minutes, context_line(record),
                replies, reposts=likes // int(rng.integers(4, 12)),
                likes=likes, bookmarks=likes // int(rng.integers(8, 30)),
                views=likes * int(rng.integers(12, 60)))

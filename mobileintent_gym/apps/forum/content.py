"""The forum app's content: its record pool, its PAIR contexts and the state built from them.

Pool: ``data/posts.jsonl`` (``p000``…: community, author, body, tags and a few comments).
The home feed interleaves two lists PAIR fills from it: posts of communities that match
the user's hobbies, and posts suggested for their everyday life (travel, food, events,
shopping), each marked as suggested. Ages, votes, who wrote the comments and the user's
own pseudonym are drawn per user.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain, zip_longest

import numpy as np

from mobileintent_gym.apps.forum.ids import Pair
from mobileintent_gym.apps.forum.state import Comment, ForumState, Post
from mobileintent_gym.apps.records import Record
from mobileintent_gym.users.contexts import ContextSpec, Pool

HOBBY_DOMAINS = ("Books", "Games", "Movies", "Media", "Music", "Sports")
LIFE_DOMAINS = ("Travel", "Restaurants", "Events", "Shopping", "Hotels", "Services",
                "Finance")
COMMENTERS = ("maple_fox", "grey_heron", "night_owl_22", "tiny_robot", "pixel_pine",
              "salt_and_cedar", "river_stone", "bright_kettle", "lazy_comet", "moss_walker",
              "paper_crane", "velvet_thunder", "copper_finch", "sleepy_lynx")
# The user's pseudonym is one of each and two digits (``quiet_otter27``): never a commenter's.
PSEUDONYM_WORDS = (("quiet", "sunny", "brave", "curious", "gentle", "lucky", "rusty", "swift",
                    "cosy", "plucky", "misty", "jolly", "humble", "clever", "mellow", "wild"),
                   ("otter", "badger", "falcon", "walrus", "gecko", "puffin", "marten", "koala",
                    "heron", "panda", "lemur", "bison", "sparrow", "beaver", "fox", "newt"))
MY_OLD_COMMENTS = ("Saving this for later, thanks for writing it up!",
                   "This is exactly what I was looking for.")
MAX_SCORE = 4800


def _describe(r: Record) -> str:
    return f"{r.label} ({r['community']}): {r['body']} ({', '.join(r['tags'])})"


POSTS = Pool(__package__, "posts", _describe, ("community", "tags"))

CONTEXTS = (
    ContextSpec(Pair.HOME, POSTS, HOBBY_DOMAINS, ("p014", "p041")),
    ContextSpec(Pair.SUGGESTED, POSTS, LIFE_DOMAINS, ("p052", "p098")),
)


def build_state(lists: Mapping[str, Sequence[Record]], rng: np.random.Generator,
                owner: str) -> ForumState:
    """A forum state whose home feed interleaves PAIR's two lists, in their order.

    The user has joined the communities of the first list's posts, but for those of the
    second list's: every post of those is suggested, because the user is not in them.

    Args:
        lists: Posts of followed communities, and suggested posts.
        rng: Source of ages, votes, commenters, the user's karma and which posts hold the
            comments the user wrote before (each the newest of its thread).
        owner: Unused: the forum shows its users by their pseudonyms, the owner's
            included (:func:`pseudonym`).
    """
    # From a child stream, so the rest is drawn as it was before users had pseudonyms.
    me = pseudonym(rng.spawn(1)[0])
    followed, suggested = lists[Pair.HOME], lists[Pair.SUGGESTED]
    feed = [r.id for r in chain.from_iterable(zip_longest(followed, suggested)) if r]
    hours = {i: int(rng.integers(2, 72)) for i in feed}
    picked = rng.choice(len(feed), len(MY_OLD_COMMENTS), replace=False)
    old = {feed[int(i)]: text for i, text in zip(picked, MY_OLD_COMMENTS, strict=True)}
    elsewhere = {r["community"] for r in suggested}
    # A followed post of a community that is suggested elsewhere is suggested too: the
    # user is not in it, and its card was unmarked beside marked ones of the same place.
    marked = {r.id for r in (*followed, *suggested) if r["community"] in elsewhere}
    posts = {r.id: _post(r, rng, hours[r.id], r.id in marked, old.get(r.id), me)
             for r in (*followed, *suggested)}
    mine = sorted(old.items(), key=lambda item: hours[item[0]])
    joined = dict.fromkeys(r["community"] for r in followed if r["community"] not in elsewhere)
    return ForumState(posts, feed, joined=tuple(joined), mine=mine, me=me,
                      karma=int(rng.integers(100, 5000)))


def pseudonym(rng: np.random.Generator) -> str:
    """A user name drawn from ``rng``: a word of each of :data:`PSEUDONYM_WORDS`, two digits."""
    words = [str(rng.choice(choices)) for choices in PSEUDONYM_WORDS]
    return f"{'_'.join(words)}{int(rng.integers(10, 100))}"


def _post(record: Record, rng: np.random.Generator, hours: int, suggested: bool,
          mine: str | None, me: str) -> Post:
    """The post of a record, ``hours`` old.

    Its comments follow it an hour apart, the user's own (``mine``, by ``me``) last.
    """
    said = [(COMMENTERS[int(rng.integers(len(COMMENTERS)))], text, int(rng.integers(1, 300)))
            for text in record["comments"]]
    if mine is not None:
        said.append((me, mine, int(rng.integers(1, 40))))
    comments = tuple(Comment(author, text, _age(hours - k - 1), score)
                     for k, (author, text, score) in enumerate(said))
    return Post(record.id, record.label, record["body"], record["community"],
                record["author"], _age(hours), int(rng.integers(2, MAX_SCORE)), comments,
                suggested)


def _age(hours: int) -> str:
    """How long ago, as the feed shows it: ``5h``, ``2d``."""
    hours = max(1, hours)
    return f"{hours}h" if hours < 24 else f"{hours // 24}d"

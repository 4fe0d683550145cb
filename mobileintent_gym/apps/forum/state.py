"""The forum app's data: immutable posts and comments in an immutable state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mobileintent_gym.phone.state import frozen_fields

ME = "quiet_otter"
"""The user's name in the forum where a state gives none (built content draws one per user)."""


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment under a post (``author`` is a user name, the user's own or another's).

    ``age`` is as shown; one the user wrote has its ``time`` too (``YYYY-MM-DD HH:MM``),
    and shows ``age`` on that day only (:func:`~mobileintent_gym.phone.state.day_age`).
    """

    author: str
    text: str
    age: str
    score: int
    time: str = ""


@dataclass(frozen=True, slots=True)
class Post:
    """A post in a community.

    Attributes:
        score: Its votes before the user's own.
        suggested: In the home feed as a suggestion, from a community the user had not
            joined; labelled so while they have not.
    """

    id: str
    title: str
    body: str
    community: str
    author: str
    age: str
    score: int
    comments: tuple[Comment, ...]
    suggested: bool = False


@dataclass(frozen=True, slots=True)
class ForumState:
    """The forum app's data (lists given as lists are kept as tuples).

    Attributes:
        posts: Post id → post.
        feed: The home feed, top first.
        upvoted: Posts the user upvoted.
        saved: Posts the user saved, newest first.
        joined: Communities the user joined, newest first.
        mine: The user's comments as (post id, text), newest first.
        me: The user's name.
        karma: The user's karma before this session.
    """

    posts: Mapping[str, Post]
    feed: tuple[str, ...]
    upvoted: tuple[str, ...] = ()
    saved: tuple[str, ...] = ()
    joined: tuple[str, ...] = ()
    mine: tuple[tuple[str, str], ...] = ()
    me: str = ME
    karma: int = 0

    def __post_init__(self) -> None:
        frozen_fields(self, ("posts",), ("feed", "upvoted", "saved", "joined", "mine"))

    def score(self, post_id: str) -> int:
        """A post's score as shown: its votes, with the user's upvote."""
        return self.posts[post_id].score + (post_id in self.upvoted)

    def in_feed(self, community: str) -> int:
        """How many posts of the feed are in ``community``."""
        return sum(self.posts[i].community == community for i in self.feed)


def count(n: int, noun: str) -> str:
    """``n`` things in words, shortened past a thousand: ``1 comment``, ``2.4k votes``."""
    number = f"{n / 1000:.1f}k" if n >= 1000 else str(n)
    return f"{number} {noun}{'' if n == 1 else 's'}"

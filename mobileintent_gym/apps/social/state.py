"""The social app's data: immutable records in an immutable state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mobileintent_gym.apps.plugin import DEFAULT_OWNER, user_handle
from mobileintent_gym.phone.state import frozen_fields

ME = "me"


@dataclass(frozen=True, slots=True)
class Account:
    """A person or a news outlet that posts."""

    id: str
    name: str
    handle: str
    bio: str
    outlet: bool
    followers: int


@dataclass(frozen=True, slots=True)
class Reply:
    """A reply under a post; ``author`` is an account id or :data:`ME`.

    ``age`` is as shown; one the user wrote has its ``time`` too (``YYYY-MM-DD HH:MM``),
    and shows ``age`` on that day only (:func:`~mobileintent_gym.phone.state.day_age`).
    """

    author: str
    text: str
    age: str
    time: str = ""


@dataclass(frozen=True, slots=True)
class Post:
    """A post.

    Attributes:
        id: Its id.
        author: The account that wrote it.
        text: What it says.
        minutes: How many minutes ago it was posted.
        context: Why the timeline shows it, above its author (``News · Sports``, a topic),
            or ``""``.
        replies: Replies, newest first.
        reposts: Reposts by others.
        likes: Likes by others.
        bookmarks: Bookmarks by others.
        views: Views.
    """

    id: str
    author: str
    text: str
    minutes: int
    context: str
    replies: tuple[Reply, ...]
    reposts: int
    likes: int
    bookmarks: int
    views: int


@dataclass(frozen=True, slots=True)
class SocialState:
    """The social app's data (lists given as lists are kept as tuples).

    Attributes:
        accounts: Account id → account.
        posts: Every post the app can show, post id → post.
        feed: The For you timeline, top first.
        following: Accounts the user follows, most recently followed first.
        liked: Posts the user liked, most recent first.
        reposted: Posts the user reposted, most recent first.
        bookmarks: Posts the user bookmarked, most recent first.
        me: The owner's name (the profile's ``name``).
    """

    accounts: Mapping[str, Account]
    posts: Mapping[str, Post]
    feed: tuple[str, ...]
    following: tuple[str, ...] = ()
    liked: tuple[str, ...] = ()
    reposted: tuple[str, ...] = ()
    bookmarks: tuple[str, ...] = ()
    me: str = DEFAULT_OWNER

    def __post_init__(self) -> None:
        frozen_fields(self, ("accounts", "posts"),
                      ("feed", "following", "liked", "reposted", "bookmarks"))

    def account(self, account_id: str) -> Account:
        """The account ``account_id``; :data:`ME` is the user's own.

        Raises:
            KeyError: When there is no such account.
        """
        if account_id == ME:
            return Account(ME, self.me, user_handle(self.me, ""), "", False, 0)
        return self.accounts[account_id]

    def counts(self, post: Post) -> dict[str, int]:
        """A post's replies, reposts, likes and bookmarks, the user's own included."""
        return {"replies": len(post.replies),
                "reposts": post.reposts + (post.id in self.reposted),
                "likes": post.likes + (post.id in self.liked),
                "bookmarks": post.bookmarks + (post.id in self.bookmarks)}


def age_text(minutes: int) -> str:
    """How a timeline writes a post's age: ``now``, ``45m``, ``7h``, ``3d``."""
    if minutes < 1:
        return "now"
    if minutes < 60:
        return f"{minutes}m"
    return f"{minutes // 60}h" if minutes < 24 * 60 else f"{minutes // (24 * 60)}d"


def compact(count: int) -> str:
    """A count as a timeline writes it: ``7``, ``1,204``, ``12.5K``."""
    return f"{count:,}" if count < 10_000 else f"{count / 1000:.1f}K"

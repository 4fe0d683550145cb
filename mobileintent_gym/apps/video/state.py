"""The video app's data: immutable records in an immutable state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from mobileintent_gym.apps.plugin import DEFAULT_OWNER
from mobileintent_gym.phone.state import frozen_fields


@dataclass(frozen=True, slots=True)
class Video:
    """A video and its counts (the user's own like, coin and favourite not included).

    Attributes:
        id: Its record id.
        title: Its title.
        uploader: The name of the uploader.
        category: Its channel (``games``, ``food`` …).
        duration: Its length as shown on the cover (``12:09``).
        description: One line about it.
        views: Views by others.
        likes: Likes by others.
        coins: Coins given by others.
        favorites: Others who saved it to their favourites.
        comments: Comments under it.
        hours: How many hours ago it was posted (see :attr:`age`).
    """

    id: str
    title: str
    uploader: str
    category: str
    duration: str
    description: str
    views: int
    likes: int
    coins: int
    favorites: int
    comments: int
    hours: int

    @property
    def age(self) -> str:
        """How long ago it was posted, as shown (``3 h ago``)."""
        return ago(self.hours)


# The user's toggles on a video: the state field holding the videos it is on for, and the
# video's count of others that the user's own one adds to.
TOGGLES: Mapping[str, str] = MappingProxyType(
    {"liked": "likes", "coined": "coins", "favorites": "favorites"})


@dataclass(frozen=True, slots=True)
class VideoState:
    """The video app's data (lists given as lists are kept as tuples).

    Attributes:
        videos: Every video the app shows, by id.
        uploaders: Followers of each uploader, by name.
        home: Ids of the recommended videos on the home feed.
        following: Ids of the followed uploaders' videos, newest first.
        liked: Ids of the videos the user liked, most recent first.
        coined: Ids of the videos the user gave a coin.
        favorites: Ids of the videos in the user's favourites.
        follows: Names of the uploaders the user follows.
        me: The owner's name (the profile's ``name``).
        level: The user's account level.
    """

    videos: Mapping[str, Video]
    uploaders: Mapping[str, int]
    home: tuple[str, ...]
    following: tuple[str, ...]
    liked: tuple[str, ...] = ()
    coined: tuple[str, ...] = ()
    favorites: tuple[str, ...] = ()
    follows: tuple[str, ...] = ()
    me: str = DEFAULT_OWNER
    level: int = 4

    def __post_init__(self) -> None:
        frozen_fields(self, ("videos", "uploaders"),
                      ("home", "following", "liked", "coined", "favorites", "follows"))

    def count(self, video: Video, toggle: str) -> int:
        """A video's count for ``toggle`` (a field of :data:`TOGGLES`), the user's own included."""
        return getattr(video, TOGGLES[toggle]) + (video.id in getattr(self, toggle))

    def feed(self) -> tuple[str, ...]:
        """The Following feed, newest first.

        It holds the videos it started with whose uploaders the user still follows, and
        every video of the uploaders the user followed since.
        """
        first = {self.videos[v].uploader for v in self.following}
        ids = [v for v in self.following if self.videos[v].uploader in self.follows]
        ids += [v.id for v in self.videos.values()
                if v.uploader in self.follows and v.uploader not in first]
        return tuple(sorted(ids, key=lambda v: self.videos[v].hours))


def compact(count: int) -> str:
    """A count as the app shows it: ``987``, ``1.2K``, ``34.5K``, ``1.2M``."""
    for size, unit in ((1_000_000, "M"), (1_000, "K")):
        if count >= size:
            return f"{count / size:.1f}".rstrip("0").rstrip(".") + unit
    return str(count)


def ago(hours: int) -> str:
    """How the app says a time ``hours`` ago: ``1 h ago``, ``2 days ago``, ``3 weeks ago``."""
    if hours < 24:
        return f"{hours} h ago"
    days = hours // 24
    if days < 14:
        return f"{days} day{'' if days == 1 else 's'} ago"
    return f"{days // 7} weeks ago"

"""The video app's content: its record pool, its PAIR contexts and the state built from them.

Pool: ``data/videos.jsonl`` (``v000``…: uploader, category, tags, duration, description).
The three contexts share it, so a video is in one list only: the Following feed (the
followed uploaders' videos, newest first), the home recommendations and the liked videos.
Counts (views, likes …), posting times and uploaders' followers are drawn per user.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from mobileintent_gym.apps.records import Record
from mobileintent_gym.apps.video.ids import Pair
from mobileintent_gym.apps.video.state import Video, VideoState
from mobileintent_gym.users.contexts import ContextSpec, Pool

# PersonaLens domains whose tastes show in what a video site recommends.
DOMAINS = ("Media", "Movies", "Games", "Music", "Sports", "Travel", "Restaurants",
           "Shopping", "Books", "Events")
FEED_HOURS = 5  # a followed uploader posts about every five hours
MIN_LEVEL, MAX_LEVEL = 2, 6  # of the user's account


def _describe(r: Record) -> str:
    return (f"{r.label}, a {r['category']} video by {r['uploader']}: {r['description']} "
            f"({', '.join(r['tags'])})")


VIDEOS = Pool(__package__, "videos", _describe, ("label", "uploader", "category", "tags"))

CONTEXTS = (
    ContextSpec(Pair.FOLLOWING, VIDEOS, DOMAINS, ("v030", "v057")),
    ContextSpec(Pair.HOME, VIDEOS, DOMAINS, ("v013", "v077")),
    ContextSpec(Pair.LIKED, VIDEOS, DOMAINS, ("v046", "v101")),
)


def build_state(lists: Mapping[str, Sequence[Record]], rng: np.random.Generator,
                owner: str) -> VideoState:
    """A video state showing PAIR's lists in their order.

    The user follows the uploaders of the Following feed and has liked the liked videos.

    Args:
        lists: The Following feed (newest first), the recommendations and the liked videos.
        rng: Source of the counts, the posting times, the uploaders' followers and the
            user's account level.
        owner: The owner's name, on the Me page.
    """
    following, home, liked = lists[Pair.FOLLOWING], lists[Pair.HOME], lists[Pair.LIKED]
    videos = {r.id: _video(r, rng, 1 + FEED_HOURS * n + int(rng.integers(0, FEED_HOURS)))
              for n, r in enumerate(following)}
    videos.update({r.id: _video(r, rng, int(rng.integers(30, 24 * 60))) for r in (*home, *liked)})
    names = dict.fromkeys(v.uploader for v in videos.values())
    uploaders = {name: int(10 ** rng.uniform(3.5, 6.3)) for name in names}
    return VideoState(videos, uploaders, home=[r.id for r in home],
                      following=[r.id for r in following], liked=[r.id for r in liked],
                      follows=list(dict.fromkeys(r["uploader"] for r in following)),
                      me=owner, level=int(rng.integers(MIN_LEVEL, MAX_LEVEL + 1)))


def _video(record: Record, rng: np.random.Generator, hours: int) -> Video:
    """A video of a ``videos`` record, with counts drawn from ``rng``, posted ``hours`` ago."""
    views = int(10 ** rng.uniform(3.3, 6.6))
    likes = int(views * rng.uniform(0.02, 0.09))
    return Video(record.id, record.label, record["uploader"], record["category"],
                 record["duration"], record["description"], views, likes,
                 coins=int(likes * rng.uniform(0.1, 0.5)),
                 favorites=int(likes * rng.uniform(0.2, 0.6)),
                 comments=int(views * rng.uniform(0.001, 0.004)), hours=hours)

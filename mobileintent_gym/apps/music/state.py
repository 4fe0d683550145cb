"""The music app's data: immutable records in an immutable state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mobileintent_gym.phone.state import frozen_fields


@dataclass(frozen=True, slots=True)
class Track:
    """A song."""

    id: str
    title: str
    artist: str
    album: str
    genre: str


@dataclass(frozen=True, slots=True)
class Playlist:
    """A playlist: a name and an ordered tuple of track ids."""

    id: str
    name: str
    description: str
    tracks: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MusicState:
    """The music app's data (lists given as lists are kept as tuples).

    Attributes:
        tracks: Catalog, track id → track.
        playlists: Playlist id → playlist.
        home: Ids of the playlists shown on the home screen.
        mine: Ids of the user's own playlists, newest first.
        liked: Ids of liked tracks, most recent first.
        recent: Ids of recently played tracks, most recent first.
        playing: Id of the track in the player, if any.
        paused: Whether the track in the player is paused.
    """

    tracks: Mapping[str, Track]
    playlists: Mapping[str, Playlist]
    home: tuple[str, ...]
    mine: tuple[str, ...] = ()
    liked: tuple[str, ...] = ()
    recent: tuple[str, ...] = ()
    playing: str | None = None
    paused: bool = False

    def __post_init__(self) -> None:
        frozen_fields(self, ("tracks", "playlists"), ("home", "mine", "liked", "recent"))


def songs(count: int) -> str:
    """``count`` songs, in words: ``1 song``, ``12 songs``."""
    return f"{count} song{'' if count == 1 else 's'}"

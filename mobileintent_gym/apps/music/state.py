"""The music app's data: immutable records in containers that are cheap to copy."""

from __future__ import annotations

from dataclasses import dataclass, field

from mobileintent_gym.apps import content


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


@dataclass(slots=True)
class MusicState:
    """The music app's data; records are immutable, the containers are the state.

    Attributes:
        tracks: Catalog, track id → track (shared between copies; never mutated).
        playlists: Playlist id → playlist.
        home: Ids of the playlists shown on the home screen.
        mine: Ids of the user's own playlists, newest first.
        liked: Ids of liked tracks, most recent first.
        recent: Ids of recently played tracks, most recent first.
        playing: Id of the track in the player, if any.
        paused: Whether the track in the player is paused.
    """

    tracks: dict[str, Track]
    playlists: dict[str, Playlist]
    home: list[str]
    mine: list[str] = field(default_factory=list)
    liked: list[str] = field(default_factory=list)
    recent: list[str] = field(default_factory=list)
    playing: str | None = None
    paused: bool = False

    def copy(self) -> MusicState:
        """An independent copy (the catalog is shared)."""
        return MusicState(self.tracks, dict(self.playlists), list(self.home), list(self.mine),
                          list(self.liked), list(self.recent), self.playing, self.paused)


def default_state(seed: int) -> MusicState:
    """Built-in catalog with a seeded choice of liked and recent tracks."""
    rng = content.rng(seed, "music")
    tracks = {f"t{i:03d}": Track(f"t{i:03d}", *song) for i, song in enumerate(content.SONGS)}
    ids = list(tracks)
    playlists = {}
    for i, (name, desc, genres) in enumerate(content.PLAYLISTS):
        members = tuple(t for t in ids if tracks[t].genre in genres) or tuple(ids[:5])
        playlists[f"p{i:02d}"] = Playlist(f"p{i:02d}", name, desc, members)
    order = [ids[i] for i in rng.permutation(len(ids))]
    home = [list(playlists)[i] for i in rng.permutation(len(playlists))]
    return MusicState(tracks, playlists, home, liked=order[:30], recent=order[30:38])



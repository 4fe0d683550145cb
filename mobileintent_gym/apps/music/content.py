"""The music app's content: its record pools, its PAIR contexts and the state built from them.

Pools: ``data/tracks.jsonl`` (``t000``…: artist, album, genre, moods) and
``data/playlists.jsonl`` (``p00``…: description, genres). A playlist holds the first
:data:`PLAYLIST_LENGTH` tracks of its genres in pool order.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence

import numpy as np

from mobileintent_gym.apps.music.ids import Pair
from mobileintent_gym.apps.music.state import MusicState, Playlist, Track
from mobileintent_gym.apps.records import Record
from mobileintent_gym.users.contexts import ContextSpec, Pool
from mobileintent_gym.users.entities import match_key

PLAYLIST_LENGTH = 12
OWN_LENGTH = 10


def _describe_track(r: Record) -> str:
    return (f"{r.label} by {r['artist']}, a {r['genre']} song from the album {r['album']}; "
            f"{', '.join(r['moods'])}")


def _describe_playlist(r: Record) -> str:
    return f"{r.label} playlist: {r['description']}; {', '.join(r['genres'])}"


TRACKS = Pool(__package__, "tracks", _describe_track, ("label", "artist", "album", "genre"))
PLAYLISTS = Pool(__package__, "playlists", _describe_playlist, ("label", "genres"))

CONTEXTS = (
    ContextSpec(Pair.LIKED, TRACKS, ("Music",), ("t009", "t024")),
    ContextSpec(Pair.RECENT, TRACKS, ("Music",), ("t012", "t038"), size=10),
    ContextSpec(Pair.HOME, PLAYLISTS, ("Music",), ("p00", "p04"), size=8),
)


def build_state(lists: Mapping[str, Sequence[Record]], rng: np.random.Generator,
                owner: str) -> MusicState:
    """A music state showing PAIR's lists in their order.

    The catalog holds exactly the tracks used: liked, recent and the home playlists' tracks;
    the library holds two playlists of the user's own, made from them.

    Args:
        lists: Liked Songs and recently played (most recent first), home playlists.
        rng: Unused: ranking decides everything the music app shows.
        owner: Unused: the library calls the owner "you".
    """
    liked, recent, home = lists[Pair.LIKED], lists[Pair.RECENT], lists[Pair.HOME]
    playlists = {r.id: playlist(r) for r in home}
    catalog = {r.id: track(r) for r in (*liked, *recent)}
    wanted = {t for p in playlists.values() for t in p.tracks}
    catalog.update({r.id: track(r) for r in TRACKS.records() if r.id in wanted})
    own = own_playlists([r.id for r in liked], [r.id for r in recent])
    return MusicState(catalog, {**playlists, **{p.id: p for p in own}},
                      home=[r.id for r in home], mine=[p.id for p in own],
                      liked=[r.id for r in liked], recent=[r.id for r in recent])


def own_playlists(liked: Sequence[str], recent: Sequence[str]) -> tuple[Playlist, ...]:
    """The user's own playlists, made from what they play and like (as a library holds)."""
    return (Playlist("u000", "On Repeat", "The songs you play most", tuple(recent[:8])),
            Playlist("u001", "Favourites", "By you", tuple(liked[:OWN_LENGTH])))


@functools.cache
def track(record: Record) -> Track:
    """The track of a ``tracks`` record."""
    return Track(record.id, record.label, record["artist"], record["album"], record["genre"])


@functools.cache
def playlist(record: Record) -> Playlist:
    """The playlist of a ``playlists`` record, with the first tracks of its genres."""
    wanted = {match_key(g) for g in record["genres"]}
    members = tuple(t.id for t in TRACKS.records() if match_key(t["genre"]) in wanted)
    return Playlist(record.id, record.label, record["description"], members[:PLAYLIST_LENGTH])

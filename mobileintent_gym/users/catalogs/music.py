"""The music pools: tracks (``t000``…) and playlists (``p00``…)."""

from __future__ import annotations

import functools

from mobileintent_gym.apps import content
from mobileintent_gym.apps.music.state import Playlist, Track
from mobileintent_gym.users.catalogs.base import Entity, keys_of, match_key, read_rows

PLAYLIST_LENGTH = 12  # tracks per playlist, the first matching ones in catalog order


@functools.cache
def tracks() -> tuple[Entity[Track], ...]:
    """Every track: the built-in songs first, then the invented ones, each with its moods."""
    entities = []
    for i, row in enumerate(read_rows("tracks", "t", 3)):
        if i < len(content.SONGS):
            track = Track(row["id"], *content.SONGS[i])
        else:
            track = Track(row["id"], row["title"], row["artist"], row["album"], row["genre"])
        moods = ", ".join(row["moods"])
        text = (f"{track.title} by {track.artist}, a {track.genre} song from the album "
                f"{track.album}; {moods}")
        entities.append(Entity(track.id, track.title, row["cue"], text,
                               keys_of(track.title, track.artist, track.album, track.genre),
                               track))
    return tuple(entities)


@functools.cache
def playlists() -> tuple[Entity[Playlist], ...]:
    """Every playlist, holding the first ``PLAYLIST_LENGTH`` tracks of its genres."""
    entities = []
    for i, row in enumerate(read_rows("playlists", "p", 2)):
        if i < len(content.PLAYLISTS):
            name, description, genres = content.PLAYLISTS[i]
        else:
            name, description, genres = row["name"], row["description"], row["genres"]
        wanted = {match_key(g) for g in genres}
        members = tuple(t.id for t in tracks() if match_key(t.record.genre) in wanted)
        playlist = Playlist(row["id"], name, description, members[:PLAYLIST_LENGTH])
        text = f"{name} playlist: {description}; {', '.join(genres)}"
        entities.append(Entity(playlist.id, name, row["cue"], text, keys_of(name, *genres),
                               playlist))
    return tuple(entities)

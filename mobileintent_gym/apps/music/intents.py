"""What the music app's controls do to its data: its intent handlers.

:class:`~mobileintent_gym.apps.music.app.MusicApp` takes them as a mixin, so the app module
holds its screens and this one its state transitions.
"""

from __future__ import annotations

from mobileintent_gym.apps.music.state import MusicState, Playlist
from mobileintent_gym.phone.tasks import Nav


class MusicIntents:
    """The ``on_<intent>`` handlers of the music app (see :meth:`App.handle`)."""

    def on_play(self, nav: Nav, track_id: str) -> None:
        """Play a track: it goes to the player and to the top of recently played."""
        state: MusicState = nav.state
        if state.playing == track_id and not state.paused:
            return
        state.playing, state.paused = track_id, False
        state.recent = [track_id] + [t for t in state.recent if t != track_id]
        nav.changed()

    def on_toggle_play(self, nav: Nav) -> None:
        """Pause or resume the track in the player."""
        nav.state.paused = not nav.state.paused
        nav.changed()

    def on_like(self, nav: Nav, track_id: str) -> None:
        """Toggle a track in Liked Songs (a sheet closes afterwards)."""
        state: MusicState = nav.state
        if track_id in state.liked:
            state.liked.remove(track_id)
        else:
            state.liked.insert(0, track_id)
        if nav.stack[-1].route == "music/track_menu":
            nav.pop()
        nav.changed()

    def on_add(self, nav: Nav, track_id: str, playlist_id: str) -> None:
        """Add a track to an existing playlist and close the add flow."""
        state: MusicState = nav.state
        playlist = state.playlists[playlist_id]
        if track_id not in playlist.tracks:
            state.playlists[playlist_id] = Playlist(playlist.id, playlist.name,
                                                    playlist.description,
                                                    (*playlist.tracks, track_id))
        nav.pop(2)
        nav.changed()

    def on_create(self, nav: Nav, track_id: str) -> None:
        """Create a playlist named by the dialog's field, holding the track, and show it."""
        state: MusicState = nav.state
        name = nav.stack[-1].fields.get("name", "").strip() or f"My playlist #{len(state.mine) + 1}"
        playlist_id = next(f"u{n:03d}" for n in range(len(state.playlists) + 1)
                           if f"u{n:03d}" not in state.playlists)
        state.playlists[playlist_id] = Playlist(playlist_id, name, "By you", (track_id,))
        state.mine.insert(0, playlist_id)
        nav.pop(3)
        nav.push("music/playlist", id=playlist_id)
        nav.changed()

    def on_noop(self, nav: Nav) -> None:
        """A control this simulation does not model: it does nothing, as a stub app would."""

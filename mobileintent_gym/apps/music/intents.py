"""What the music app's controls do to its data: its intent handlers.

:class:`~mobileintent_gym.apps.music.app.MusicApp` takes them as a mixin, so the app module
holds its screens and this one its state transitions. The state is immutable: each handler
gives ``nav`` a new one, and the phone notices the change.
"""

from __future__ import annotations

from mobileintent_gym.apps.music.ids import Route
from mobileintent_gym.apps.music.state import MusicState, Playlist
from mobileintent_gym.phone.backstack import Nav
from mobileintent_gym.phone.state import toggled


class MusicIntents:
    """The ``on_<intent>`` handlers of the music app (see :meth:`App.handle`)."""

    def on_play(self, nav: Nav, track_id: str) -> None:
        """Play a track: it goes to the player and to the top of recently played."""
        state: MusicState = nav.state
        recent = (track_id, *(t for t in state.recent if t != track_id))
        nav.update(playing=track_id, paused=False, recent=recent)

    def on_toggle_play(self, nav: Nav) -> None:
        """Pause or resume the track in the player."""
        nav.update(paused=not nav.state.paused)

    def on_like(self, nav: Nav, track_id: str) -> None:
        """Toggle a track in Liked Songs (a sheet closes afterwards)."""
        nav.update(liked=toggled(nav.state.liked, track_id))
        if nav.stack[-1].route == Route.TRACK_MENU:
            nav.pop()

    def on_add(self, nav: Nav, track_id: str, playlist_id: str) -> None:
        """Add a track to one of the user's playlists and close the add flow."""
        state: MusicState = nav.state
        playlist = state.playlists[playlist_id]
        if track_id not in playlist.tracks:
            added = Playlist(playlist.id, playlist.name, playlist.description,
                             (*playlist.tracks, track_id))
            nav.update(playlists={**state.playlists, playlist_id: added})
        nav.pop(2)

    def on_create(self, nav: Nav, track_id: str) -> None:
        """Create a playlist named by the dialog's field, holding the track, and show it."""
        state: MusicState = nav.state
        name = nav.stack[-1].fields.get("name", "").strip() or f"My playlist #{len(state.mine) + 1}"
        playlist_id = next(f"u{n:03d}" for n in range(len(state.playlists) + 1)
                           if f"u{n:03d}" not in state.playlists)
        created = Playlist(playlist_id, name, "By you", (track_id,))
        nav.update(playlists={**state.playlists, playlist_id: created},
                   mine=(playlist_id, *state.mine))
        nav.pop(3)
        nav.push(Route.PLAYLIST, id=playlist_id)

    def on_noop(self, nav: Nav) -> None:
        """A control this simulation does not model: it does nothing, as a stub app would."""

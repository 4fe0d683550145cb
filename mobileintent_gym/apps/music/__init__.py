"""Music app: see :mod:`.app` for its screens and routes."""

from mobileintent_gym.apps.music.app import MusicApp
from mobileintent_gym.apps.music.state import MusicState, Playlist, Track, default_state

__all__ = ["MusicApp", "MusicState", "Playlist", "Track", "default_state"]

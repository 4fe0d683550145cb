"""Music: a streaming app that mirrors Spotify (see :mod:`.app` for its screens).

Its data is :mod:`.state`, its pools and PAIR contexts :mod:`.content`, its names
:mod:`.ids`, its task templates :mod:`.templates`.
"""

from mobileintent_gym.apps.music.app import MusicApp
from mobileintent_gym.apps.music.content import CONTEXTS, build_state
from mobileintent_gym.apps.music.state import MusicState, Playlist, Track
from mobileintent_gym.apps.music.templates import TEMPLATES
from mobileintent_gym.apps.plugin import AppBundle

BUNDLE = AppBundle(MusicApp(), CONTEXTS, build_state, TEMPLATES)

__all__ = ["BUNDLE", "MusicApp", "MusicState", "Playlist", "Track"]

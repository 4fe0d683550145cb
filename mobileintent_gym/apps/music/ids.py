"""The music app's names: routes, resource ids and PAIR context keys.

Its screens and its task templates both import them, so a rename cannot leave one behind.
"""

from __future__ import annotations

from mobileintent_gym.phone import overlays, widgets

APP = "music"
PACKAGE = "com.mobileintent.music"


class Route:
    """Screen routes."""

    HOME = "music/home"
    SEARCH = "music/search"
    LIBRARY = "music/library"
    RECENT = "music/library/recent"  # the library with Recently played expanded
    LIKED = "music/library/liked"
    ARTISTS = "music/library/artists"
    ARTIST = "music/artist"
    PLAYLIST = "music/playlist"
    PLAYER = "music/player"
    TRACK_MENU = "music/track_menu"
    ADD_TO_PLAYLIST = "music/add_to_playlist"
    NEW_PLAYLIST = "music/new_playlist"


class Rid:
    """Resource id names (the part after ``:id/``)."""

    NAV_HOME, NAV_SEARCH, NAV_LIBRARY = "nav_home", "nav_search", "nav_your_library"
    TOOLBAR, TITLE, MORE = widgets.TOOLBAR, widgets.TITLE, widgets.MORE
    SHEET_HEADER = overlays.SHEET_HEADER
    FEED, PLAYLIST_CARD, PLAYLIST_TITLE = "feed", "playlist_card", "playlist_title"
    SEARCH_FIELD, RESULTS = "search_src_text", "results"
    LIBRARY, LIKED_SONGS, RECENTLY_PLAYED = "library", "liked_songs", "recently_played"
    ARTISTS, ARTIST, PLAYLIST, TRACKS, TRACK = "artists", "artist", "playlist", "tracks", "track"
    MINI_PLAYER, NOW_PLAYING, TRACK_TITLE = "mini_player", "now_playing", "track_title"
    ADD_TO_PLAYLIST, LIKE, ADD_TO_QUEUE, SHARE = "add_to_playlist", "like", "add_to_queue", "share"
    NEW_PLAYLIST, PLAYLISTS, SAVED_IN = "new_playlist", "playlists", "saved_in"
    PLAYLIST_NAME, CANCEL, CREATE = "playlist_name", "cancel", "create"


class Pair:
    """PAIR context keys (``music:<list>``)."""

    LIKED = "music:liked"
    RECENT = "music:recent"
    HOME = "music:home"


class Desc:
    """Content descriptions that tasks address."""

    LIBRARY = "Your Library"


class Text:
    """Visible labels of the controls that tasks address."""

    LIKED_SONGS = "Liked Songs"
    RECENTLY_PLAYED = "Recently played"
    ADD_TO_PLAYLIST = "Add to playlist"
    NEW_PLAYLIST = "New playlist"

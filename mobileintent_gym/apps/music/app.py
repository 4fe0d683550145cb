"""Music: a streaming app that mirrors Spotify's structure.

Routes (names in :mod:`.ids`): ``music/home`` (playlists), ``music/search``,
``music/library`` (Liked Songs, a collapsible recently-played group — expanded it is
``music/library/recent`` — and the user's playlists; its Artists tab is
``music/library/artists`` → ``music/artist?id=``), ``music/library/liked``,
``music/playlist?id=``, ``music/player``, and the add-to-playlist flow
(:mod:`.playlists`): ``music/track_menu?id=`` (a sheet, also on long press of a track) →
``music/add_to_playlist?id=`` → ``music/new_playlist?id=`` (a name dialog).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from mobileintent_gym.apps.music import icon, tour
from mobileintent_gym.apps.music.content import CONTEXTS, build_state
from mobileintent_gym.apps.music.ids import APP, PACKAGE, Desc, Rid, Route, Text
from mobileintent_gym.apps.music.intents import MusicIntents
from mobileintent_gym.apps.music.playlists import PlaylistScreens
from mobileintent_gym.apps.music.state import MusicState, Playlist, Track, songs
from mobileintent_gym.phone import ui, widgets
from mobileintent_gym.phone.app import App, Entry, Screen
from mobileintent_gym.phone.characters import folded
from mobileintent_gym.phone.paint import Avatar, Fill
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx, Theme
from mobileintent_gym.users.pair import random_state

_NAV = (("Home", "home", ("open", Route.HOME), "", Rid.NAV_HOME),
        ("Search", "search", ("open", Route.SEARCH), "", Rid.NAV_SEARCH),
        (Desc.LIBRARY, "library", ("open", Route.LIBRARY), "", Rid.NAV_LIBRARY))

_TABS = (Route.HOME, Route.SEARCH, Route.LIBRARY)  # the routes of _NAV's tabs


def _tab_of(entry: Entry) -> int:
    """The tab selected under a screen opened from several tabs: the one it was opened in."""
    root = entry.tab or entry.route
    return next(i for i, tab in enumerate(_TABS) if root == tab or root.startswith(f"{tab}/"))


class MusicApp(MusicIntents, PlaylistScreens, App):
    """The music app."""

    id = APP
    package = PACKAGE
    label = "Music"
    icon = staticmethod(icon.draw)
    color = (30, 185, 84)
    theme = Theme(background=(18, 18, 18), surface=(40, 40, 40), text=(255, 255, 255),
                  muted=(179, 179, 179), accent=(30, 215, 96), bar=(24, 24, 24),
                  divider=(62, 62, 62), on_accent=(0, 0, 0))
    home = Route.HOME
    state_type = MusicState
    routes: ClassVar[dict[str, Screen]] = {
        Route.HOME: Screen("home_screen", tab=True),
        Route.SEARCH: Screen("search_screen", tab=True),
        Route.LIBRARY: Screen("library_screen", tab=True),
        Route.RECENT: Screen("library_screen"),
        Route.LIKED: Screen("liked_screen"),
        Route.ARTISTS: Screen("artists_screen"),
        Route.ARTIST: Screen("artist_screen", params=("id",)),
        Route.PLAYLIST: Screen("playlist_screen", params=("id",)),
        Route.PLAYER: Screen("player_screen"),
        Route.TRACK_MENU: Screen("track_menu", overlay=True, params=("id",)),
        Route.ADD_TO_PLAYLIST: Screen("add_to_playlist_screen", params=("id",)),
        Route.NEW_PLAYLIST: Screen("new_playlist_dialog", overlay=True, params=("id",)),
    }
    tour = tour.STEPS

    def initial_state(self, seed: int) -> MusicState:
        """Built-in content for ``seed``."""
        return random_state(CONTEXTS, build_state, APP, seed)

    def samples(self, state: MusicState) -> Mapping[str, Mapping[str, Any]]:
        """Parameters that open each parametrised route on ``state``."""
        track = {"id": state.liked[0]}
        return {Route.PLAYLIST: {"id": state.home[0]}, Route.TRACK_MENU: track,
                Route.ADD_TO_PLAYLIST: track, Route.NEW_PLAYLIST: track,
                Route.ARTIST: {"id": state.tracks[state.liked[0]].artist}}

    # ---- frame shared by full screens ---------------------------------------------------

    def _frame(self, ctx: Ctx, state: MusicState, tab: int) -> tuple[Node, Column]:
        root, col = widgets.page(ctx, "root")
        root.add(widgets.bottom_nav(ctx, col.take_bottom(ctx.dp(64)), _NAV, tab))
        if state.playing:
            root.add(self._mini_player(ctx, col.take_bottom(ctx.dp(60)), state))
        return root, col

    def _mini_player(self, ctx: Ctx, rect: Rect, state: MusicState) -> Node:
        track = state.tracks[state.playing]
        t = ctx.theme
        bar = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.MINI_PLAYER),
                   paint=Fill(t.surface), on_click=("open", Route.PLAYER), entity=track.id)
        art, body, toggle = ui.split_row(ui.inset(rect, ctx.dp(8)), [ctx.dp(44), None,
                                                                     ctx.dp(48)])
        bar.add(Node(ui.IMAGE_VIEW, art, paint=self.art(track, t.surface)))
        body = ui.inset(body, ctx.dp(12), 0)
        bar.add(widgets.text(ctx, body, f"{track.title} • {track.artist}", 14,
                             under=t.surface, rid=Rid.NOW_PLAYING))
        bar.add(self._play_toggle(ctx, toggle, state, 24, t.surface))
        return bar

    def _play_toggle(self, ctx: Ctx, rect: Rect, state: MusicState, size: float,
                     under: tuple) -> Node:
        paused = state.paused
        return widgets.icon_button(ctx, rect, "play" if paused else "pause",
                                   "Play" if paused else "Pause", ("toggle_play",),
                                   under=under, size=size)

    def _track_row(self, ctx: Ctx, rect: Rect, track: Track, state: MusicState) -> Node:
        menu = ("open", Route.TRACK_MENU, (("id", track.id),))
        return widgets.list_row(
            ctx, rect, track.title, track.artist, thumb=self.art(track, ctx.theme.background),
            on_click=("play", track.id), on_long_click=menu, entity=track.id,
            rid=Rid.TRACK, trailing=("more", f"More options for {track.title}", menu),
            highlight=state.playing == track.id)

    def _track_list(self, ctx: Ctx, rect: Rect, key: str, entry: Entry, ids: Sequence[str],
                    state: MusicState, head: list | None = None) -> Node:
        row_h = ctx.dp(64)
        items = list(head or []) + [
            (row_h, lambda r, t=state.tracks[i]: self._track_row(ctx, r, t, state))
            for i in ids]
        return self.scroll(entry, rect, key, items)

    # ---- screens --------------------------------------------------------------------------

    def home_screen(self, ctx: Ctx, entry: Entry, state: MusicState) -> Node:
        """Greeting and a two-column grid of playlist cards."""
        root, col = self._frame(ctx, state, 0)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), f"Good {ctx.daytime}", back=False,
                                 large=True, actions=[("bell", "What's new", ("noop",)),
                                                      ("settings", "Settings", ("noop",))]))
        cards = [state.playlists[p] for p in state.home]
        pairs = [cards[i:i + 2] for i in range(0, len(cards), 2)]
        items = [(ctx.dp(56), lambda r: widgets.section_header(ctx, r, "Made for you"))]
        items += [(ctx.dp(212), lambda r, pair=pair: self._card_row(ctx, r, pair))
                  for pair in pairs]
        root.add(self.scroll(entry, col.rest(), Rid.FEED, items))
        return root

    def _card_row(self, ctx: Ctx, rect: Rect, pair: list[Playlist]) -> Node:
        row = Node(ui.LINEAR, rect, paint=Fill(ctx.theme.background))
        for cell, playlist in zip(ui.split_row(rect, [None, None]), pair, strict=False):
            row.add(self._card(ctx, ui.inset(cell, ctx.dp(8), ctx.dp(6)), playlist))
        return row

    def _card(self, ctx: Ctx, rect: Rect, playlist: Playlist) -> Node:
        t = ctx.theme
        card = Node(ui.LINEAR, rect, resource_id=ctx.rid(Rid.PLAYLIST_CARD),
                    on_click=("open", Route.PLAYLIST, (("id", playlist.id),)),
                    entity=playlist.id, desc=playlist.name)
        col = Column(rect)
        art = col.take(rect[3] - rect[1] - ctx.dp(52))
        side = art[3] - art[1]
        card.add(Node(ui.IMAGE_VIEW, (art[0], art[1], art[0] + side, art[3]),
                      paint=Avatar(playlist.id, playlist.name, t.background)))
        card.add(widgets.text(ctx, col.take(ctx.dp(26)), playlist.name, 15, bold=True,
                              rid=Rid.PLAYLIST_TITLE))
        card.add(widgets.text(ctx, col.rest(), playlist.description, 12.5, color=t.muted))
        return card

    def search_screen(self, ctx: Ctx, entry: Entry, state: MusicState) -> Node:
        """A search field and the tracks whose title or artist match it."""
        root, col = self._frame(ctx, state, 1)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), "Search", back=False, large=True))
        query = entry.fields.get("query", "")
        root.add(widgets.text_field(ctx, ui.inset(col.take(ctx.dp(64)), ctx.dp(16), ctx.dp(8)),
                                    "query", query, "What do you want to listen to?",
                                    focused=entry.focus == "query", rid=Rid.SEARCH_FIELD))
        needle = folded(query)
        ids = [t.id for t in state.tracks.values()
               if needle and (needle in folded(t.title) or needle in folded(t.artist))]
        root.add(self._track_list(ctx, col.rest(), Rid.RESULTS, entry, ids, state))
        return root

    def library_screen(self, ctx: Ctx, entry: Entry, state: MusicState) -> Node:
        """Liked Songs, the recently-played group (expanded on its own route), playlists."""
        root, col = self._frame(ctx, state, 2)
        expanded = entry.route == Route.RECENT
        self._library_head(ctx, root, col, 0)
        t = ctx.theme
        row_h = ctx.dp(72)
        items = [(row_h, lambda r: widgets.list_row(
            ctx, r, Text.LIKED_SONGS, f"Playlist • {songs(len(state.liked))}",
            thumb=Avatar("liked", "Liked", t.background, glyph="heart", color=(80, 56, 200)),
            on_click=("open", Route.LIKED), rid=Rid.LIKED_SONGS))]
        # Expanding and collapsing switch the route in place, so BACK leaves the library.
        toggle = ("replace", Route.LIBRARY if expanded else Route.RECENT)
        items.append((ctx.dp(56), lambda r: widgets.section_header(
            ctx, r, Text.RECENTLY_PLAYED, on_click=toggle, expanded=expanded,
            rid=Rid.RECENTLY_PLAYED)))
        if expanded:
            items += [(ctx.dp(64), lambda r, tr=state.tracks[i]: self._track_row(ctx, r, tr,
                                                                                  state))
                      for i in state.recent]
        items.append((ctx.dp(56), lambda r: widgets.section_header(ctx, r, "Your playlists")))
        items += [(row_h, lambda r, p=state.playlists[p]: self._playlist_row(ctx, r, p))
                  for p in state.mine]
        root.add(self.scroll(entry, col.rest(), Rid.LIBRARY, items))
        return root

    def _library_head(self, ctx: Ctx, root: Node, col: Column, selected: int) -> None:
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), Desc.LIBRARY, back=False,
                                 large=True, actions=[("plus", "Create playlist", ("noop",))]))
        root.add(widgets.tabs(ctx, col.take(ctx.dp(48)), [
            ("Playlists", ("replace", Route.LIBRARY)),
            ("Artists", ("replace", Route.ARTISTS))], selected))

    def artists_screen(self, ctx: Ctx, entry: Entry, state: MusicState) -> Node:
        """The artists of the liked songs, in the order they were liked."""
        root, col = self._frame(ctx, state, 2)
        self._library_head(ctx, root, col, 1)
        artists = list(dict.fromkeys(state.tracks[t].artist for t in state.liked))
        items = [(ctx.dp(72), lambda r, a=a: widgets.list_row(
            ctx, r, a, "Artist", thumb=Avatar(a, a, ctx.theme.background), entity=a,
            on_click=("open", Route.ARTIST, (("id", a),)), rid=Rid.ARTIST)) for a in artists]
        root.add(self.scroll(entry, col.rest(), Rid.ARTISTS, items))
        return root

    def artist_screen(self, ctx: Ctx, entry: Entry, state: MusicState) -> Node:
        """One artist's tracks in the catalog."""
        root, col = self._frame(ctx, state, _tab_of(entry))
        artist = entry.param("id")
        if not any(t.artist == artist for t in state.tracks.values()):
            raise KeyError(f"no artist {artist!r}")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), artist))
        ids = [t.id for t in state.tracks.values() if t.artist == artist]
        root.add(self._track_list(ctx, col.rest(), Rid.TRACKS, entry, ids, state))
        return root

    def liked_screen(self, ctx: Ctx, entry: Entry, state: MusicState) -> Node:
        """Liked Songs: every liked track, newest first."""
        root, col = self._frame(ctx, state, 2)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), Text.LIKED_SONGS,
                                 actions=[("search", "Search in Liked Songs", ("noop",))]))
        root.add(widgets.text(ctx, ui.inset(col.take(ctx.dp(32)), ctx.dp(16), 0),
                              songs(len(state.liked)), 13, color=ctx.theme.muted))
        root.add(self._track_list(ctx, col.rest(), Rid.TRACKS, entry, state.liked, state))
        return root

    def playlist_screen(self, ctx: Ctx, entry: Entry, state: MusicState) -> Node:
        """One playlist's tracks."""
        root, col = self._frame(ctx, state, _tab_of(entry))
        playlist = state.playlists[entry.param("id")]
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), playlist.name, entity=playlist.id))
        about = widgets.paragraph(ctx, ui.inset(col.rest(), ctx.dp(16), ctx.dp(4)),
                                  f"{playlist.description} • {songs(len(playlist.tracks))}", 13,
                                  lines=2, color=ctx.theme.muted)
        col.take(about.frame[3] - about.frame[1] + ctx.dp(12))
        root.add(about, self._track_list(ctx, col.rest(), Rid.TRACKS, entry, playlist.tracks,
                                         state))
        return root

    def player_screen(self, ctx: Ctx, entry: Entry, state: MusicState) -> Node:
        """The full-screen player of the current track."""
        t = ctx.theme
        root, col = widgets.page(ctx, "player")
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), "Now playing"))
        track = state.tracks.get(state.playing or "")
        if track is None:
            root.add(widgets.text(ctx, col.take(ctx.dp(64)), "Nothing playing", 18,
                                  align="center"))
            return root
        side = ctx.width - 2 * ctx.dp(32)
        art = col.take(side + ctx.dp(32))
        root.add(Node(ui.IMAGE_VIEW, (ctx.dp(32), art[1] + ctx.dp(16), ctx.dp(32) + side,
                                      art[1] + ctx.dp(16) + side), desc=track.album,
                      paint=self.art(track, t.background)))
        pad = ui.inset(col.take(ctx.dp(40)), ctx.dp(32), 0)
        root.add(widgets.text(ctx, pad, track.title, 22, bold=True,
                              rid=Rid.TRACK_TITLE, entity=track.id))
        root.add(widgets.text(ctx, ui.inset(col.take(ctx.dp(28)), ctx.dp(32), 0),
                              track.artist, 15, color=t.muted))
        liked = track.id in state.liked
        controls = ui.split_row(col.take(ctx.dp(96)), [None] * 3)
        root.add(widgets.icon_button(ctx, controls[0], "heart" if liked else "heart_outline",
                                     "Remove from Liked Songs" if liked else
                                     "Add to Liked Songs", ("like", track.id), size=30,
                                     color=t.accent if liked else t.text))
        root.add(self._play_toggle(ctx, controls[1], state, 44, t.background))
        root.add(widgets.icon_button(ctx, controls[2], "queue", "Queue", ("noop",), size=30))
        return root

"""The music app's playlist screens: the track menu, Add to playlist and the name dialog.

:class:`~mobileintent_gym.apps.music.app.MusicApp` takes them as a mixin.
"""

from __future__ import annotations

from mobileintent_gym.apps.music.ids import Rid, Route, Text
from mobileintent_gym.apps.music.state import MusicState, Playlist, Track, songs
from mobileintent_gym.phone import overlays, ui, widgets
from mobileintent_gym.phone.app import Entry
from mobileintent_gym.phone.paint import Avatar, Color
from mobileintent_gym.phone.ui import Column, Node, Rect
from mobileintent_gym.phone.widgets import Ctx


class PlaylistScreens:
    """Screens of the add-to-playlist flow, and how tracks and playlists are drawn.

    A mixin of an :class:`~mobileintent_gym.phone.app.App` (it uses ``App.scroll``).
    """

    @staticmethod
    def art(track: Track, under: Color) -> Avatar:
        """A track's artwork: its colour and the initials of the title shown beside it."""
        return Avatar(track.id, track.title, under)

    def _playlist_row(self, ctx: Ctx, rect: Rect, playlist: Playlist,
                      intent: tuple | None = None, holds: bool | None = None) -> Node:
        """A playlist row; with ``holds`` set it shows whether the playlist holds a track."""
        intent = intent or ("open", Route.PLAYLIST, (("id", playlist.id),))
        mark = None if holds is None else (
            "check" if holds else "plus", f"{'In' if holds else 'Add to'} {playlist.name}",
            intent)
        return widgets.list_row(
            ctx, rect, playlist.name, f"Playlist • {songs(len(playlist.tracks))}",
            thumb=Avatar(playlist.id, playlist.name, ctx.theme.background), on_click=intent,
            entity=playlist.id, rid=Rid.PLAYLIST, trailing=mark)

    def track_menu(self, ctx: Ctx, entry: Entry, state: MusicState) -> Node:
        """The track's options sheet."""
        track = state.tracks[entry.param("id")]
        liked = track.id in state.liked
        return overlays.bottom_sheet(ctx, track.title, [
            (Text.ADD_TO_PLAYLIST, "plus", ("open", Route.ADD_TO_PLAYLIST, entry.params),
             Rid.ADD_TO_PLAYLIST),
            ("Remove from Liked Songs" if liked else "Add to Liked Songs",
             "heart" if liked else "heart_outline", ("like", track.id), Rid.LIKE),
            ("Add to queue", "queue", ("noop",), Rid.ADD_TO_QUEUE),
            ("Share", "share", ("noop",), Rid.SHARE),
        ], header=self.art(track, ctx.theme.surface), subtitle=track.artist,
            entity=track.id)

    def add_to_playlist_screen(self, ctx: Ctx, entry: Entry, state: MusicState) -> Node:
        """Start a new playlist, or pick one of yours: the track joins it and the flow closes.

        As in the real app: New playlist on top, then where the track is saved already
        (Liked Songs), then your playlists, each with a check when it holds the track.
        """
        track = state.tracks[entry.param("id")]
        root, col = widgets.page(ctx, Rid.ADD_TO_PLAYLIST)
        root.add(widgets.app_bar(ctx, col.take(ctx.dp(64)), Text.ADD_TO_PLAYLIST, entity=track.id))
        button = ui.inset(col.take(ctx.dp(76)), (ctx.width - ctx.dp(180)) // 2, ctx.dp(12))
        root.add(widgets.button(ctx, button, Text.NEW_PLAYLIST,
                                ("open", Route.NEW_PLAYLIST, entry.params),
                                rid=Rid.NEW_PLAYLIST))
        t, row_h, head_h = ctx.theme, ctx.dp(72), ctx.dp(52)
        liked = track.id in state.liked
        items = [(head_h, lambda r: widgets.section_header(ctx, r, "Saved in")),
                 (row_h, lambda r: widgets.list_row(
                     ctx, r, Text.LIKED_SONGS, songs(len(state.liked)),
                     thumb=Avatar("liked", "Liked", t.background, glyph="heart",
                                  color=(80, 56, 200)),
                     on_click=("like", track.id), rid=Rid.SAVED_IN,
                     trailing=("check" if liked else "plus",
                               "Saved in Liked Songs" if liked else "Save in Liked Songs",
                               ("like", track.id)))),
                 (head_h, lambda r: widgets.section_header(ctx, r, "Your playlists"))]
        items += [(row_h, lambda r, p=state.playlists[p]: self._playlist_row(
            ctx, r, p, ("add", track.id, p.id), track.id in p.tracks)) for p in state.mine]
        root.add(self.scroll(entry, col.rest(), Rid.PLAYLISTS, items))
        return root

    def new_playlist_dialog(self, ctx: Ctx, entry: Entry, state: MusicState) -> Node:
        """Name the new playlist; Create makes it with the track and closes the flow."""
        state.tracks[entry.param("id")]  # a deep link naming no track fails as it opens
        height = ctx.dp(216)
        card = overlays.dialog_rect(ctx, height)
        col = Column(ui.inset(card, ctx.dp(24), ctx.dp(20)))
        col.take(ctx.dp(44))
        name = entry.fields.get("name", "")
        field_ = widgets.text_field(ctx, col.take(ctx.dp(52)), "name", name,
                                    f"My playlist #{len(state.mine) + 1}",
                                    focused=entry.focus == "name",
                                    on_submit=("create", entry.param("id")),
                                    rid=Rid.PLAYLIST_NAME, under=ctx.theme.surface)
        field_.entity = entry.param("id")  # the dialog is about the track it will add
        col.take(ctx.dp(20))
        cancel, create = ui.split_row(col.take(ctx.dp(48)), [None, None])
        buttons = [widgets.button(ctx, ui.inset(cancel, ctx.dp(6), 0), "Cancel", ("back",),
                                  primary=False, rid=Rid.CANCEL, under=ctx.theme.surface),
                   widgets.button(ctx, ui.inset(create, ctx.dp(6), 0), "Create",
                                  ("create", entry.param("id")), rid=Rid.CREATE,
                                  under=ctx.theme.surface)]
        return overlays.dialog(ctx, "Give your playlist a name", [field_], buttons, height)

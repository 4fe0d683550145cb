import dataclasses
from types import MappingProxyType

from mobileintent_gym.actions import Action
from mobileintent_gym.phone.query import find, find_all
from tests.helpers import nodes, press, tap_node, texts


def test_add_liked_song_to_a_new_rainy_night_playlist(phone):
    press(phone, text="Music", resource_id="icon")
    press(phone, desc="Your Library")
    press(phone, resource_id="liked_songs")
    target = phone.state.apps["music"].liked[0]
    press(phone, resource_id="more")
    assert phone.route() == "music/track_menu"
    press(phone, resource_id="add_to_playlist")
    assert phone.route() == "music/add_to_playlist"
    press(phone, resource_id="new_playlist")
    assert phone.route() == "music/new_playlist"
    press(phone, resource_id="playlist_name")
    phone.act("TYPE[Rainy Night]")
    press(phone, resource_id="create")
    music = phone.state.apps["music"]
    created = music.playlists[music.mine[0]]
    assert (created.name, created.tracks) == ("Rainy Night", (target,))
    # The new playlist opens, showing its one track; BACK returns to Liked Songs.
    assert phone.route() == "music/playlist"
    assert phone.act("PRESS[BACK]").route == "music/library/liked"
    assert texts(phone, "title")[0] == "Liked Songs"
    phone.act("PRESS[BACK]")
    assert "Rainy Night" in texts(phone, "title")


def test_add_to_an_existing_playlist_closes_the_flow(phone):
    phone.open("music", "music/library/liked")
    press(phone, resource_id="more")
    press(phone, resource_id="add_to_playlist")
    press(phone, resource_id="new_playlist")
    count = len(phone.state.apps["music"].mine)
    press(phone, resource_id="create")  # empty name: the hint's default name is used
    music = phone.state.apps["music"]
    assert music.playlists[music.mine[0]].name == f"My playlist #{count + 1}"
    phone.act("PRESS[BACK]")  # the new playlist opened; back to Liked Songs
    second = music.liked[1]
    rows = list(find_all(phone.hierarchy(), resource_id="more"))
    b = rows[1].bounds
    phone.act(Action.click((b[0] + b[2]) // 2, (b[1] + b[3]) // 2))
    press(phone, resource_id="add_to_playlist")
    press(phone, resource_id="playlist")
    assert phone.route() == "music/library/liked"
    music = phone.state.apps["music"]  # states are immutable: read the new one
    assert music.playlists[music.mine[0]].tracks[-1] == second


def test_play_a_recently_played_song_after_expanding_the_group(phone):
    phone.open("music", "music/library")
    assert not find(phone.hierarchy(), resource_id="recently_played").checked
    press(phone, resource_id="recently_played")
    assert phone.route() == "music/library/recent"
    assert find(phone.hierarchy(), resource_id="recently_played").checked
    recent = list(phone.state.apps["music"].recent)
    result = press(phone, resource_id="track")
    assert result.event.hit.entity == recent[0]
    assert phone.state.apps["music"].playing == recent[0]
    assert texts(phone, "now_playing")[0].startswith(
        phone.state.apps["music"].tracks[recent[0]].title)
    press(phone, resource_id="recently_played")
    assert phone.route() == "music/library"


def test_open_a_home_playlist_and_like_from_the_player(phone):
    phone.open("music")
    first = phone.state.apps["music"].home[0]
    result = press(phone, resource_id="playlist_card")
    assert result.event.hit.entity == first and phone.route() == "music/playlist"
    press(phone, resource_id="track")
    press(phone, resource_id="mini_player")
    assert phone.route() == "music/player"
    playing = phone.state.apps["music"].playing
    liked_before = playing in phone.state.apps["music"].liked
    press(phone, desc="Remove from Liked Songs" if liked_before else "Add to Liked Songs")
    assert (playing in phone.state.apps["music"].liked) != liked_before


def test_search_filters_tracks_as_you_type(phone):
    phone.open("music", "music/search")
    press(phone, resource_id="search_src_text")
    phone.act("TYPE[rain]")
    toolbar, *titles = texts(phone, "title")
    assert toolbar == "Search"
    tracks = phone.state.apps["music"].tracks.values()
    expected = [t.title for t in tracks if "rain" in (t.title + t.artist).lower()]
    assert titles == expected and len(expected) >= 2


def test_library_tabs_switch_in_place_and_artists_open_their_tracks(phone):
    phone.open("music", "music/library")
    tab = find(phone.hierarchy(), desc="Playlists")
    assert tab.selected
    press(phone, desc="Artists")
    assert phone.route() == "music/library/artists"
    assert find(phone.hierarchy(), desc="Artists").selected
    music = phone.state.apps["music"]
    first_artist = music.tracks[music.liked[0]].artist
    result = press(phone, resource_id="artist")
    assert result.event.hit.entity == first_artist and phone.route() == "music/artist"
    toolbar, *titles = texts(phone, "title")
    assert toolbar == first_artist
    assert titles == [t.title for t in music.tracks.values() if t.artist == first_artist]
    phone.act("PRESS[BACK]")
    assert phone.route() == "music/library/artists"
    press(phone, desc="Playlists")
    assert phone.route() == "music/library"
    phone.act("PRESS[BACK]")
    assert phone.route() == "launcher"  # the tab switch replaced, it did not stack


# What the screen shows after each action that changes the app's data (read from the dump,
# as an agent would, never only from the private state).

def child_text(node, rid):
    return next(n.text for n in node.walk() if n.resource_id.endswith(f":id/{rid}"))


def test_playing_shows_the_track_in_the_mini_player_and_first_in_recently_played(phone):
    phone.open("music", "music/library/liked")
    row = nodes(phone, resource_id="track")[2]
    tap_node(phone, row)
    assert texts(phone, "now_playing")[0].startswith(child_text(row, "title") + " • ")
    assert nodes(phone, resource_id="mini_player")[0].entity == row.entity
    phone.open("music", "music/library/recent")
    assert nodes(phone, resource_id="track")[0].entity == row.entity


def test_pause_and_play_switch_the_players_button(phone):
    phone.open("music", "music/library/liked")
    press(phone, resource_id="track")
    press(phone, resource_id="mini_player")
    press(phone, desc="Pause")
    assert nodes(phone, desc="Play") and not nodes(phone, desc="Pause")
    press(phone, desc="Play")
    assert nodes(phone, desc="Pause") and not nodes(phone, desc="Play")


def test_liking_in_the_player_puts_the_song_first_in_liked_songs(phone):
    music = phone.state.apps["music"]
    playlist = next(p for p in music.home if set(music.playlists[p].tracks) - set(music.liked))
    song = next(t for t in music.playlists[playlist].tracks if t not in music.liked)
    phone.open("music", "music/playlist", id=playlist)
    tap_node(phone, next(n for n in nodes(phone, resource_id="track") if n.entity == song))
    press(phone, resource_id="mini_player")
    press(phone, desc="Add to Liked Songs")
    assert nodes(phone, desc="Remove from Liked Songs")
    phone.open("music", "music/library/liked")
    assert nodes(phone, resource_id="track")[0].entity == song
    assert f"{len(music.liked) + 1} songs" in texts(phone, "")  # the count under the title


def test_removing_a_like_from_the_track_menu_takes_the_row_away(phone):
    phone.open("music", "music/library/liked")
    first = nodes(phone, resource_id="track")[0].entity
    press(phone, resource_id="more")
    press(phone, resource_id="like")
    assert phone.route() == "music/library/liked"  # the sheet closed
    assert first not in [n.entity for n in nodes(phone, resource_id="track")]


def test_a_song_added_to_a_playlist_is_listed_in_it(phone):
    phone.open("music", "music/library/liked")
    press(phone, resource_id="more")
    press(phone, resource_id="add_to_playlist")
    press(phone, resource_id="new_playlist")
    press(phone, resource_id="create")
    phone.open("music", "music/library/liked")
    second = nodes(phone, resource_id="track")[1]
    tap_node(phone, nodes(phone, resource_id="more")[1])
    press(phone, resource_id="add_to_playlist")
    press(phone, resource_id="playlist")
    playlist = phone.state.apps["music"].mine[0]
    phone.open("music", "music/playlist", id=playlist)
    assert [n.entity for n in nodes(phone, resource_id="track")][-1] == second.entity


def test_artwork_shows_the_initials_of_the_record_beside_it(phone):
    phone.open("music", "music/library/liked")
    press(phone, resource_id="track")
    rows = [n for n in phone._current().root.walk()
            if n.resource_id.endswith(":id/track") and n.bounds == n.frame]
    assert len(rows) >= 8
    for row in rows + [n for n in phone._current().root.walk()
                       if n.resource_id.endswith(":id/mini_player")]:
        art = next(n.paint for n in row.walk() if n.cls.endswith("ImageView"))
        shown = next(n.text for n in row.walk() if n.resource_id.endswith((":id/title",
                                                                           ":id/now_playing")))
        assert shown.startswith(art.label)


def test_add_to_playlist_lists_where_the_song_is_and_the_users_playlists(phone):
    music = phone.state.apps["music"]
    song = music.liked[0]
    phone.open("music", "music/library/liked")
    press(phone, resource_id="more")
    press(phone, resource_id="add_to_playlist")
    assert texts(phone, "title")[0] == "Add to playlist" and nodes(phone, resource_id="up")
    mine = [music.playlists[p] for p in music.mine]
    rows = nodes(phone, resource_id="playlist")
    assert [n.entity for n in rows] == [p.id for p in mine] and len(rows) >= 2
    for row, playlist in zip(rows, mine, strict=True):
        mark = next(n.desc for n in row.walk() if n.resource_id.endswith(":id/more"))
        assert mark == (f"In {playlist.name}" if song in playlist.tracks
                        else f"Add to {playlist.name}")
    saved = nodes(phone, resource_id="saved_in")[0]
    assert any(n.desc == "Saved in Liked Songs" for n in saved.walk())
    phone.act("PRESS[BACK]")
    phone.act("PRESS[BACK]")  # the track's menu is still under it, as when it was opened
    assert phone.route() == "music/library/liked"


def test_song_counts_read_as_words(phone):
    from mobileintent_gym.apps.music.state import songs

    assert (songs(0), songs(1), songs(12)) == ("0 songs", "1 song", "12 songs")
    phone.open("music", "music/library/liked")
    press(phone, resource_id="more")
    press(phone, resource_id="add_to_playlist")
    press(phone, resource_id="new_playlist")
    press(phone, resource_id="create")
    assert any(text.endswith("• 1 song") for text in texts(phone, ""))


def selected_tab(phone):
    return [n.desc for n in nodes(phone, resource_id="bottom_nav")[0].children if n.selected]


def test_a_playlist_shows_the_tab_it_was_opened_in_as_selected(phone):
    # Opened from Your Library, a playlist's bottom bar said Home (drawn and dumped).
    phone.open("music", "music/library")
    press(phone, resource_id="playlist")
    assert phone.route() == "music/playlist" and selected_tab(phone) == ["Your Library"]
    press(phone, resource_id="track")
    press(phone, desc="Home")
    press(phone, resource_id="playlist_card")
    assert phone.route() == "music/playlist" and selected_tab(phone) == ["Home"]
    press(phone, desc="Your Library")
    press(phone, desc="Artists")
    press(phone, resource_id="artist")
    assert phone.route() == "music/artist" and selected_tab(phone) == ["Your Library"]


def test_a_screen_under_a_deep_linked_library_screen_selects_the_library(phone):
    phone.open("music", "music/library/artists")
    assert selected_tab(phone) == ["Your Library"]
    press(phone, resource_id="artist")
    assert phone.route() == "music/artist" and selected_tab(phone) == ["Your Library"]
    phone.open("music", "music/playlist", id=phone.state.apps["music"].home[0])
    assert selected_tab(phone) == ["Home"]  # under no tab: the home below it


def test_search_finds_an_artists_tracks_by_the_artists_name(phone):
    music = phone.state.apps["music"]
    artist = next(t.artist for t in music.tracks.values()
                  if not any(t.artist.lower() in u.title.lower() for u in music.tracks.values()))
    phone.open("music", "music/search")
    press(phone, resource_id="search_src_text")
    phone.act(f"TYPE[{artist}]")
    _, *titles = texts(phone, "title")
    assert titles == [t.title for t in music.tracks.values() if t.artist == artist]


def test_playing_a_recently_played_song_again_lists_it_once_on_top(phone):
    phone.open("music", "music/library/recent")
    row = nodes(phone, resource_id="track")[1]
    tap_node(phone, row)
    phone.open("music", "music/library/recent")
    shown = [n.entity for n in nodes(phone, resource_id="track")]
    assert shown[0] == row.entity and shown.count(row.entity) == 1
    recent = phone.state.apps["music"].recent
    assert len(recent) == len(set(recent))


def test_adding_a_song_to_a_playlist_twice_lists_it_once(phone):
    phone.open("music", "music/library/liked")
    target = phone.state.apps["music"].liked[0]
    for _ in range(2):
        press(phone, resource_id="more")
        press(phone, resource_id="add_to_playlist")
        press(phone, resource_id="playlist")
        assert phone.route() == "music/library/liked"
    music = phone.state.apps["music"]
    assert any(target in music.playlists[p].tracks for p in music.mine)
    assert all(p.tracks.count(target) <= 1 for p in music.playlists.values())


def test_search_reads_an_accent_typed_decomposed_and_folds_case_fully(phone):
    # Reggaetón typed as "Reggaeto\u0301n" found nothing; "STRASSE" did not find "Straße".
    music = phone.state.apps["music"]
    tracks = dict(music.tracks)
    first, second = list(tracks.values())[:2]
    tracks[first.id] = dataclasses.replace(first, title="Reggaetón Nights")
    tracks[second.id] = dataclasses.replace(second, title="Straße")
    phone.state.apps["music"] = dataclasses.replace(music, tracks=MappingProxyType(tracks))
    phone.open("music", "music/search")
    press(phone, resource_id="search_src_text")
    phone.act("TYPE[reggaeto\u0301n]")
    assert texts(phone, "title")[1:] == ["Reggaetón Nights"]
    phone.open("music", "music/search")
    press(phone, resource_id="search_src_text")
    phone.act("TYPE[STRASSE]")
    assert texts(phone, "title")[1:] == ["Straße"]

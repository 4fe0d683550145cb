"""Where touches land, what keys and fields do, and where BACK goes, on the real simulated phone.

Each test names in its comment the slip it guards against (found unguarded by a mutation
audit of the phone's modules).
"""

from datetime import date

from mobileintent_gym.actions import Action
from mobileintent_gym.phone import SimPhone, hierarchy
from mobileintent_gym.phone.keyboard import SHIFT
from mobileintent_gym.phone.query import find, find_all
from mobileintent_gym.phone.state import when
from mobileintent_gym.phone.touch import ScreenDump
from mobileintent_gym.phone.ui import center
from tests.helpers import press


def key(phone, char):
    rect = next(r for r, c in phone._current().keyboard.keys if c == char)
    return phone.act(Action.click(*center(rect)))


def test_shift_holds_past_punctuation_until_a_letter():
    # Guards against: Shift released by any key, not only by a letter.
    phone = SimPhone(540, 1200)
    phone.open("chat")
    press(phone, resource_id="chat")
    press(phone, resource_id="input")
    key(phone, SHIFT)
    assert key(phone, ".").event.typed == "."
    assert key(phone, "A").event.typed == "A"  # still upper case after "."
    assert key(phone, "b").event.typed == "b"


def test_enter_on_a_field_with_nothing_to_submit_does_nothing():
    # Guards against: ENTER acting on a field that submits nothing.
    phone = SimPhone(540, 1200)
    phone.open("music", "music/search")
    press(phone, resource_id="search_src_text")
    phone.act("TYPE[abc]")
    result = phone.act("PRESS[ENTER]")
    assert result.note == "nothing to submit" and not result.effect
    assert phone.route() == "music/search"


def test_visible_records_go_top_to_bottom_then_left_to_right():
    # Guards against: Visible records ordered by left, then top (a grid read by columns).
    phone = SimPhone(540, 1200)
    phone.open("music")
    visible = phone.act("PRESS[ENTER]").event.visible
    root = hierarchy.parse(phone.hierarchy())
    first = {}
    for n in root.walk():
        if n.entity is not None:
            first[n.entity] = min(first.get(n.entity, (10**9, 0)), (n.bounds[1], n.bounds[0]))
    assert len(visible) > 3
    assert [first[e] for e in visible] == sorted(first[e] for e in visible)


def test_a_tap_just_past_the_up_buttons_right_edge_misses_it():
    # Guards against: a tap on the pixel just right of a button (x == its right edge) pressing it.
    phone = SimPhone(540, 1200)
    phone.open("music", "music/library/liked")
    b = find(phone.hierarchy(), resource_id="up").bounds
    y = center(b)[1]
    assert not phone.act(Action.click(b[2], y)).effect
    assert phone.route() == "music/library/liked"
    assert phone.act(Action.click(b[2] - 1, y)).effect
    assert phone.route() != "music/library/liked"


def test_a_sheet_over_the_root_screen_is_drawn_over_that_screen():
    # Guards against: The app's root screen gone from behind a sheet opened over it.
    phone = SimPhone(540, 1200)
    phone.open("music")
    home = phone.hierarchy()
    home_nav = find(home, resource_id="nav_home")
    phone.open("music", "music/track_menu", id="t010")
    xml = phone.hierarchy()
    assert find(xml, resource_id="design_bottom_sheet")
    assert find(xml, resource_id="nav_home").bounds == home_nav.bounds  # the root, behind


def test_creating_a_playlist_from_a_deep_linked_dialog_keeps_the_apps_root():
    # Guards against: Closing the add flow popping the app's root too (BACK then left the app).
    phone = SimPhone(540, 1200)
    phone.open("music", "music/new_playlist", id="t010")
    field = next(n for n in hierarchy.parse(phone.hierarchy()).walk()
                 if n.cls == "android.widget.EditText")
    phone.act(Action.click(*center(field.bounds)))
    phone.act("TYPE[Rainy]")
    phone.act("PRESS[ENTER]")
    assert phone.route() == "music/playlist"
    phone.act("PRESS[BACK]")
    assert phone.route() == "music/home"  # nav.pop(3) leaves the root


def test_yesterday_is_the_day_before_not_after():
    # Guards against: "Yesterday" said of the day after.
    today = date(2026, 3, 2)
    assert when("2026-03-01 09:10", today) == "Yesterday 09:10"
    assert when("2026-03-03 09:10", today) == "Mar 3 09:10"


def test_find_by_desc_matches_the_content_description():
    # Guards against: find(desc=) matching the text instead.
    phone = SimPhone(540, 1200)
    phone.open("music", "music/library/liked")
    xml = phone.hierarchy()
    up = find(xml, resource_id="up")
    assert up.desc and up.text != up.desc
    assert [n.resource_id for n in find_all(xml, desc=up.desc)] == [up.resource_id]


def test_a_text_field_a_device_dumps_as_not_clickable_still_takes_the_touch():
    # Guards against: a field that a real device dumps as not clickable missing the touch.
    phone = SimPhone(540, 1200)
    phone.open("chat")
    press(phone, resource_id="chat")
    xml = phone.hierarchy()
    field = find(xml, resource_id="input")
    assert field.cls == "android.widget.EditText"
    b = field.bounds
    bounds = f'bounds="[{b[0]},{b[1]}][{b[2]},{b[3]}]"'
    line = next(part for part in xml.split("><") if bounds in part and "EditText" in part)
    device_xml = xml.replace(line, line.replace('clickable="true"', 'clickable="false"'))
    hit = ScreenDump(device_xml).hit_at(*center(b))
    assert hit is not None and hit.cls == "android.widget.EditText"


def test_backspace_after_a_leading_joiner_deletes_the_whole_accented_letter():
    # Guards against: a leading zero-width joiner taken as part of the letter after it.
    phone = SimPhone(540, 1200)
    phone.open("chat")
    press(phone, resource_id="chat")
    press(phone, resource_id="input")
    phone.act("TYPE[\u200de\u0301]")
    key(phone, "\b")
    assert phone._stacks.top().fields[phone._stacks.top().focus] == "\u200d"


def test_a_related_video_opens_over_the_video_and_back_returns_to_it():
    # Guards against: a push comparing routes only (a related video, same route and
    # another id, not opened).
    phone = SimPhone(540, 1200)
    phone.open("video", "video/video", id="v082")
    related = next(n for n in find_all(phone.hierarchy(), resource_id="video")
                   if n.entity != "v082")
    result = phone.act(Action.click(*center(related.bounds)))
    assert result.effect and result.event.record_after != result.event.record
    assert find(phone.hierarchy(), resource_id="player").entity == related.entity
    phone.act("PRESS[BACK]")
    assert find(phone.hierarchy(), resource_id="player").entity == "v082"


def test_the_add_flow_from_a_playlist_opened_on_home_keeps_the_home_tab():
    # Guards against: a pushed screen taking its opener's route as its tab (creating a
    # playlist from one opened on Home failed).
    phone = SimPhone(540, 1200)
    phone.open("music")
    playlist = next(n for n in hierarchy.parse(phone.hierarchy()).walk()
                    if n.clickable and (n.entity or "").startswith("p"))
    phone.act(Action.click(*center(playlist.bounds)))
    assert phone.route() == "music/playlist"
    press(phone, resource_id="more")
    assert phone.route() == "music/track_menu"
    press(phone, resource_id="add_to_playlist")
    press(phone, resource_id="new_playlist")
    field = next(n for n in hierarchy.parse(phone.hierarchy()).walk()
                 if n.cls == "android.widget.EditText")
    phone.act(Action.click(*center(field.bounds)))
    phone.act("TYPE[Rainy]")
    result = phone.act("PRESS[ENTER]")  # creates it: pops the add flow, opens the new playlist
    assert result.effect and phone.route() == "music/playlist"
    selected = [n.resource_id.rpartition("/")[2] for n in hierarchy.parse(phone.hierarchy()).walk()
                if n.selected]
    assert selected == [find(phone.hierarchy(), desc="Home").resource_id.rpartition("/")[2]]

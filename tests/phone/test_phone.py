import dataclasses
import re

import numpy as np
import pytest

from mobileintent_gym.actions import Action
from mobileintent_gym.apps import registry
from mobileintent_gym.errors import (
    DeviceError,
    InvalidActionError,
    InvalidStateError,
    UnknownRouteError,
)
from mobileintent_gym.phone import PhoneState, SimPhone
from mobileintent_gym.phone.app import App
from mobileintent_gym.phone.query import find, find_all, tap
from mobileintent_gym.phone.state import DEFAULT_CLOCK
from tests.helpers import COPIES, press, texts


def test_launcher_icons_open_apps_and_back_from_root_returns_home(phone):
    assert phone.route() == "launcher"
    result = press(phone, text="Music", resource_id="icon")
    assert result.effect and phone.route() == "music/home"
    assert phone.foreground_package() == "com.mobileintent.music"
    result = phone.act("PRESS[BACK]")
    assert result.effect and phone.route() == "launcher"
    result = phone.act("PRESS[BACK]")
    assert not result.effect and result.note == "already home"


def test_back_pops_screens_in_order(phone):
    phone.open("music")
    press(phone, desc="Your Library")
    press(phone, resource_id="liked_songs")
    assert phone.route() == "music/library/liked"
    phone.act(Action.press("BACK"))
    assert phone.route() == "music/library"
    phone.act(Action.press("BACK"))
    assert phone.route() == "launcher"  # a tab replaces the stack: library is the root


def test_home_keeps_the_app_task_and_relaunch_resumes_it(phone):
    phone.open("music", "music/library/liked")
    phone.act("PRESS[HOME]")
    assert phone.route() == "launcher"
    press(phone, text="Music", resource_id="icon")
    assert phone.route() == "music/library/liked"


def test_long_click_opens_context_menu_and_click_on_row_plays(phone):
    phone.open("music", "music/library/liked")
    row = find(phone.hierarchy(), resource_id="track")
    first = phone.state.apps["music"].liked[0]
    cx, cy = (row.bounds[0] + row.bounds[2]) // 2, (row.bounds[1] + row.bounds[3]) // 2
    result = phone.act(Action.long_click(cx, cy))
    assert phone.route() == "music/track_menu"
    assert result.event.hit.entity == first
    phone.act("PRESS[BACK]")
    assert phone.route() == "music/library/liked"
    phone.act(Action.click(cx, cy))
    assert phone.state.apps["music"].playing == first
    assert find(phone.hierarchy(), resource_id="mini_player")


def test_long_click_on_a_plain_button_acts_as_a_click(phone):
    phone.open("music", "music/library/liked")
    more = find(phone.hierarchy(), resource_id="more")
    b = more.bounds
    phone.act(Action.long_click((b[0] + b[2]) // 2, (b[1] + b[3]) // 2))
    assert phone.route() == "music/track_menu"


def test_type_without_focus_has_no_effect_and_says_so(phone):
    phone.open("chat")
    result = phone.act("TYPE[hello]")
    assert not result.effect
    assert result.note == "no focused field"
    assert result.event.typed is None


def test_focusing_a_field_shows_a_keyboard_that_takes_screen_space(phone):
    phone.open("chat")
    press(phone, resource_id="chat")
    before = find(phone.hierarchy(), resource_id="input").bounds
    frame_before = phone.screenshot()
    press(phone, resource_id="input")
    xml = phone.hierarchy()
    field = find(xml, resource_id="input")
    assert field.focused and field.bounds[1] < before[1] - 500  # pushed above the keyboard
    assert sum(n.focused for n in find_all(xml)) == 1
    frame = phone.screenshot()
    keyboard_rows = frame[-600:-100]
    assert not np.array_equal(keyboard_rows, frame_before[-600:-100])
    assert (keyboard_rows.reshape(-1, 3) == (232, 234, 237)).all(axis=1).mean() > 0.2


def test_keyboard_keys_type_into_the_focused_field(phone):
    phone.open("chat")
    press(phone, resource_id="chat")
    press(phone, resource_id="input")
    view = phone._current()
    keys = {char: rect for rect, char in view.keyboard.keys}
    for char in "hi":
        r = keys[char]
        result = phone.act(Action.click((r[0] + r[2]) // 2, (r[1] + r[3]) // 2))
        assert result.event.typed == char
    assert find(phone.hierarchy(), resource_id="input").text == "hi"


def test_enter_submits_the_focused_field_and_back_hides_keyboard_first(phone):
    phone.open("chat")
    press(phone, resource_id="chat")
    press(phone, resource_id="input")
    phone.act("TYPE[Understood]")
    result = phone.act("PRESS[ENTER]")
    assert result.effect
    chat = phone.state.apps["chat"].chats[0]
    assert chat.messages[-1].text == "Understood"
    assert find(phone.hierarchy(), resource_id="input").text == ""
    result = phone.act("PRESS[BACK]")
    assert result.note == "keyboard hidden" and phone.route() == "chat/conversation"
    assert phone._current().keyboard is None
    phone.act("PRESS[BACK]")
    assert phone.route() == "chat/chats"


def test_enter_with_nothing_focused_does_nothing(phone):
    phone.open("music")
    result = phone.act("PRESS[ENTER]")
    assert not result.effect and result.note == "nothing to submit"


def test_swipe_scrolls_most_of_a_viewport_and_exposes_hidden_rows(phone):
    phone.open("music", "music/library/liked")
    liked = phone.state.apps["music"].liked
    first = phone._current().visible
    assert liked[-1] not in first
    result = phone.act("SWIPE[UP]")
    assert result.effect
    second = result.event.visible_after
    overlap = [e for e in first if e in second]
    assert overlap == list(first[-len(overlap):])  # what was at the bottom is now on top
    assert len(overlap) <= len(first) // 3  # moved by most of a viewport
    assert result.event.visible == first
    for _ in range(10):
        phone.act("SWIPE[UP]")
    assert liked[-1] in phone._current().visible
    result = phone.act("SWIPE[UP]")
    assert not result.effect and result.note == "already at the end"
    phone.act("SWIPE[DOWN]")
    assert phone.act("SWIPE[LEFT]").note == "nothing to scroll"


def test_swipe_down_at_the_top_has_no_effect(phone):
    phone.open("chat")
    result = phone.act("SWIPE[DOWN]")
    assert not result.effect and result.note == "already at the start"


def test_swipe_between_moves_content_by_the_finger_distance(phone):
    phone.open("music", "music/library/liked")
    phone.swipe_between(540, 1500, 540, 1300)
    node = next(n for n in phone._current().scrollers if n.scroll_key == "tracks")
    assert node.scroll_range[0] == 200
    assert phone.swipe_between(540, 1500, 542, 1502).event.action.startswith("CLICK")


def test_event_log_records_routes_hits_and_clock(phone):
    press(phone, text="Chat", resource_id="icon")
    press(phone, resource_id="chat")
    first, second = phone.events
    assert (first.index, first.route_before, first.route_after) == (0, "launcher", "chat/chats")
    assert first.hit.resource_id == "com.android.launcher3:id/icon"
    assert second.hit.entity == phone.state.apps["chat"].chats[0].id
    assert second.route_after == "chat/conversation"
    assert second.visible[0] == second.hit.entity
    assert first.clock == "2026-03-02 09:41:04" and second.clock == "2026-03-02 09:41:08"


def test_invalid_actions_raise_and_change_nothing(phone):
    phone.open("music")
    xml = phone.hierarchy()
    for bad in ("CLICK[5000,10]", "TYPE[]", 42, "SWIPE[NORTH]"):
        with pytest.raises(InvalidActionError):
            phone.act(bad)
    assert phone.events == [] and phone.hierarchy() == xml


def test_open_is_a_deep_link_and_unknown_ones_raise(phone):
    third = phone.state.apps["music"].home[2]
    phone.open("music", "music/playlist", id=third)
    assert phone.route() == "music/playlist"
    assert texts(phone, "title")[0] == phone.state.apps["music"].playlists[third].name
    phone.act("PRESS[BACK]")
    assert phone.route() == "music/home"
    with pytest.raises(UnknownRouteError, match="camera"):
        phone.open("camera")
    with pytest.raises(UnknownRouteError, match="music/nowhere"):
        phone.open("music", "music/nowhere")


def test_stop_closes_an_apps_screens_and_launch_resumes_where_it_was_left(phone):
    phone.open("music", "music/library/liked")
    phone.act("PRESS[HOME]")
    phone.launch("music")
    assert phone.route() == "music/library/liked"
    phone.stop("music")
    assert phone.route() == "launcher"
    phone.launch("music")
    assert phone.route() == "music/home"
    for call in (phone.stop, phone.launch):
        for wrong in ("camera", ["music"]):  # a list raised TypeError out of launch
            with pytest.raises(UnknownRouteError, match=re.escape(f"no app {wrong!r}")):
                call(wrong)
    assert phone.route() == "music/home"


def test_reset_restores_a_given_state_without_sharing_it(phone):
    state = phone.state.copy()
    phone.open("music", "music/library/liked")
    press(phone, resource_id="track")
    assert phone.state.apps["music"].playing is not None
    phone.reset(state)
    assert phone.route() == "launcher" and phone.events == []
    assert phone.state.apps["music"].playing is None
    assert state.apps["music"].playing is None
    with pytest.raises(InvalidStateError, match="PhoneState"):
        phone.reset({"music": {}})


def test_reset_seed_changes_content_deterministically():
    a, b, c = SimPhone(), SimPhone(), SimPhone()
    a.reset(seed=1)
    b.reset(seed=1)
    c.reset(seed=2)
    assert a.state.apps["music"].liked == b.state.apps["music"].liked
    assert a.state.apps["music"].liked != c.state.apps["music"].liked


@pytest.mark.parametrize("state, seed, named", [
    (PhoneState({"camera": object()}), None, "camera"),
    (PhoneState({}, "noon"), None, "noon"),
    (PhoneState({"music": {}}), None, "MusicState"),
    (PhoneState({"music": None}), None, "NoneType"),
    (None, -1, "-1"),
    (None, 1.5, "1.5"),
    (None, "a", "'a'"),
    (None, True, "True"),
])
def test_bad_state_or_seed_is_rejected_and_the_phone_keeps_working(phone, state, seed, named):
    phone.open("music", "music/library/liked")
    with pytest.raises(InvalidStateError, match=named):
        phone.reset(state, seed=seed)
    assert phone.route() == "music/library/liked"
    assert phone.act("PRESS[HOME]").effect


def test_reset_with_a_partial_state_fills_the_other_apps():
    source = SimPhone()
    source.reset(seed=3)
    phone = SimPhone()
    phone.reset(PhoneState({"chat": source.state.apps["chat"]}), seed=5)
    other = SimPhone()
    other.reset(seed=5)
    assert phone.state.apps["chat"].chats == source.state.apps["chat"].chats
    assert phone.state.apps["music"].liked == other.state.apps["music"].liked


def test_closed_phone_refuses_calls():
    phone = SimPhone()
    phone.close()
    with pytest.raises(DeviceError, match="closed"):
        phone.screenshot()


def test_screen_size_is_configurable_and_layout_scales():
    small = SimPhone(540, 1200)
    assert small.screenshot().shape == (1200, 540, 3)
    small.open("music")
    nav = find(small.hierarchy(), resource_id="bottom_nav").bounds
    assert nav[2] == 540 and nav[3] <= 1200
    with pytest.raises(DeviceError, match="100x100"):
        SimPhone(100, 100)
    for width, height in ((1920, 1080), (1080, 1080), (1080, 1600)):  # the apps are portrait
        with pytest.raises(DeviceError, match=f"{width}x{height} is not a portrait phone"):
            SimPhone(width, height)
    # The size suggested is one a phone can have (3000x4500 is higher than 3840).
    for size, fix in (((1080, 1600), (1080, 1620)), ((3000, 3840), (2560, 3840)),
                      ((2561, 3840), (2560, 3840))):
        with pytest.raises(DeviceError, match=rf"\(e\.g\. {fix[0]}x{fix[1]}\)"):
            SimPhone(*size)
        SimPhone(*fix).close()


@pytest.mark.parametrize("route, params, named", [
    ("music/playlist", {}, "['id']"),
    ("music/playlist", {"id": "nope"}, "nope"),
    ("music/playlist", {"id": ["p01"]}, "hashable"),
    ("music/artist", {"id": "Nobody"}, "Nobody"),
    ("music/home", {"id": "p01"}, "[]"),
    ("chat/conversation", {"id": "zzz"}, "zzz"),
    ("music/new_playlist", {}, "['id']"),
])
def test_bad_deep_links_raise_and_leave_the_app_task_alone(phone, route, params, named):
    phone.open("music", "music/library/liked")
    phone.act("SWIPE[UP]")
    phone.act("PRESS[HOME]")
    with pytest.raises(UnknownRouteError) as err:
        phone.open(route.split("/")[0], route, **params)
    assert named in str(err.value)
    assert phone.route() == "launcher"
    press(phone, text="Music", resource_id="icon")
    assert phone.route() == "music/library/liked"
    assert phone._stacks.top().scroll["tracks"] > 0


def test_touches_on_a_sheet_or_dialog_do_not_dismiss_it(phone):
    phone.open("music", "music/library/liked")
    press(phone, resource_id="more")
    header = find(phone.hierarchy(), resource_id="sheet_header").bounds
    result = phone.act(Action.click(header[0] + 5, header[1] + 5))
    assert phone.route() == "music/track_menu" and not result.effect
    phone.act(Action.click(540, 200))  # the scrim above the sheet dismisses it
    assert phone.route() == "music/library/liked"
    press(phone, resource_id="more")
    press(phone, resource_id="add_to_playlist")
    press(phone, resource_id="new_playlist")
    title = find(phone.hierarchy(), resource_id="alertTitle").bounds
    phone.act(Action.click(title[0] + 2, title[1] + 2))
    assert phone.route() == "music/new_playlist"


def test_in_app_cancel_closes_the_dialog_even_while_typing(phone):
    phone.open("music", "music/library/liked")
    press(phone, resource_id="more")
    press(phone, resource_id="add_to_playlist")
    press(phone, resource_id="new_playlist")
    press(phone, resource_id="playlist_name")
    phone.act("TYPE[abc]")
    press(phone, resource_id="cancel")
    assert phone.route() == "music/add_to_playlist"
    assert phone._current().keyboard is None


def test_back_hides_the_keyboard_but_the_field_keeps_focus(phone):
    phone.open("chat")
    press(phone, resource_id="chat")
    press(phone, resource_id="input")
    phone.act("PRESS[BACK]")
    field = find(phone.hierarchy(), resource_id="input")
    assert field.focused and phone._current().keyboard is None
    assert phone.act("TYPE[still here]").event.typed == "still here"
    result = press(phone, resource_id="input")
    assert result.effect and phone._current().keyboard is not None


def chat_backspace(phone) -> Action:
    """Open a conversation, focus its input, and give the keyboard's Backspace tap."""
    phone.open("chat")
    press(phone, resource_id="chat")
    press(phone, resource_id="input")
    keys = {char: rect for rect, char in phone._current().keyboard.keys}
    r = keys["\b"]
    return Action.click((r[0] + r[2]) // 2, (r[1] + r[3]) // 2)


def test_effect_and_typed_say_what_really_happened(phone):
    backspace = chat_backspace(phone)
    result = phone.act(backspace)
    assert not result.effect and result.note == "nothing to delete"
    phone.act("TYPE[" + "x" * 1000 + "]")
    for _ in range(2):
        phone.act("TYPE[" + "y" * 1000 + "]")
    phone.act("TYPE[" + "w" * 500 + "]")
    cut = phone.act("TYPE[" + "z" * 1000 + "]")  # the note was empty: nothing said the cut
    assert cut.effect and cut.event.typed == "z" * 500
    assert cut.note == "the field is full: 500 of 1000 characters typed"
    result = phone.act("TYPE[abc]")
    assert result.event.typed is None and not result.effect and result.note == "the field is full"
    for _ in range(2):  # room for two code points: not for a family of three (five)
        phone.act(backspace)
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    cut = phone.act(f"TYPE[a{family}]")  # typed "a" and a man (another emoji), "2 of 6"
    assert cut.event.typed == "a" and cut.note == "the field is full: 1 of 2 characters typed"
    assert phone.act(f"TYPE[{family}]").note == "the field is full"
    phone.open("music", "music/library/liked")
    press(phone, resource_id="track")
    assert not press(phone, resource_id="track").effect  # already playing


def test_launcher_screen_follows_the_date():
    phone = SimPhone(seconds_per_action=86_400)
    phone.act("COMPLETE")
    assert find(phone.hierarchy(), resource_id="date").text == "Tuesday, March 3"


def test_a_drag_that_starts_off_any_list_scrolls_nothing(phone):
    phone.open("music", "music/library/liked")
    bar = find(phone.hierarchy(), resource_id="toolbar").bounds
    y = (bar[1] + bar[3]) // 2
    assert not phone.swipe_between(540, y, 540, y - 150).effect
    assert phone.act("SWIPE[UP]").effect  # a positionless swipe scrolls the main list


def test_visible_entities_are_listed_top_to_bottom(phone):
    phone.open("music", "music/library/liked")
    press(phone, resource_id="track")
    phone.act("SWIPE[UP]")
    view = phone._current()
    tops = {n.entity: n.bounds[1] for n in view.root.walk() if n.entity}
    assert [tops[e] for e in view.visible] == sorted(tops[e] for e in view.visible)


def test_shift_types_one_capital_and_the_symbols_set_types_digits_and_symbols(phone):
    from mobileintent_gym.phone.keyboard import LETTERS, SHIFT, SYMBOLS

    def key(char):
        rect = next(r for r, c in phone._current().keyboard.keys if c == char)
        return phone.act(Action.click((rect[0] + rect[2]) // 2, (rect[1] + rect[3]) // 2))

    phone.open("chat")
    press(phone, resource_id="chat")
    press(phone, resource_id="input")
    lower = phone.screenshot()[-700:]
    assert key(SHIFT).effect and key(SHIFT).effect  # on, then off again
    assert np.array_equal(phone.screenshot()[-700:], lower)
    key(SHIFT)
    assert not np.array_equal(phone.screenshot()[-700:], lower)  # capitals on the keys
    assert key("H").event.typed == "H"
    assert key("i").event.typed == "i"  # shift held for one letter only
    key(SYMBOLS)
    assert [key(c).event.typed for c in "2!?"] == ["2", "!", "?"]
    key(LETTERS)
    assert key("x").event.typed == "x"
    assert find(phone.hierarchy(), resource_id="input").text == "Hi2!?x"


def test_screens_kept_across_resets_never_show_another_episodes_data():
    """A reset to the same content reuses the screens built from it; data an episode
    changed gets a version no later episode reuses, whatever that one changes."""
    from mobileintent_gym.apps.music.ids import Rid, Route

    phone = SimPhone(540, 1200)
    state = PhoneState.default(phone.apps, 0)
    songs = [t for t in state.apps["music"].tracks if t not in state.apps["music"].liked][:2]
    liked = []
    for track in songs:  # two episodes, each liking another song
        phone.reset(state)
        phone.open("music", Route.TRACK_MENU, id=track)
        press(phone, resource_id=Rid.LIKE)
        phone.open("music", Route.LIKED)
        liked.append(phone.hierarchy())
    titles = [state.apps["music"].tracks[t].title for t in songs]
    assert titles[0] in liked[0] and titles[1] not in liked[0]
    assert titles[1] in liked[1] and titles[0] not in liked[1]
    phone.reset(state)
    phone.open("music", Route.LIKED)
    view = phone._current()
    phone.reset(state)
    phone.open("music", Route.LIKED)
    assert phone._current() is view


@pytest.mark.parametrize(("app_id", "route", "rid"), [("forum", "forum/post", "comments"),
                                                     ("social", "social/post", "reply"),
                                                     ("social", "social/profile", "author")])
def test_a_link_to_the_screen_in_front_opens_nothing(app_id, route, rid):
    # It pushed a copy of the screen: the step read as effective with nothing changed, and
    # the next BACK seemed to do nothing.
    phone = SimPhone()
    params = phone.apps[app_id].samples(phone.state.apps[app_id])[route]
    phone.open(app_id, route, **params)
    before = phone.hierarchy()
    result = phone.act(tap(before, resource_id=rid))
    assert not result.effect and phone.hierarchy() == before
    phone.act("PRESS[BACK]")
    assert phone.route() != route


def test_a_focused_empty_field_still_shows_its_hint_as_the_dump_says():
    # The screenshot showed a bare cursor while the dump said text="Search here".
    phone = SimPhone(540, 1200)
    phone.open("maps", "maps/search")

    def inked():  # pixels of the field's inside that are not its background
        (field,) = [n for n in find_all(phone.hierarchy()) if n.text == "Search here"]
        left, top, right, bottom = field.bounds
        inside = phone.screenshot()[top + 6:bottom - 6, left + 6:right - 6].astype(int)
        return field, int((np.abs(inside - inside[0, -1]).sum(axis=2) > 60).sum())

    field, hint = inked()
    left, top, right, bottom = field.bounds
    phone.act(f"CLICK[{(left + right) // 2},{(top + bottom) // 2}]")
    focused, shown = inked()
    assert focused.focused and hint > 100 and shown > hint  # the hint and the cursor


def test_text_that_exactly_fills_the_field_is_typed_whole(phone):
    backspace = chat_backspace(phone)  # a conversation's input, focused
    for _ in range(3):
        phone.act("TYPE[" + "x" * 1000 + "]")
    phone.act("TYPE[" + "y" * 997 + "]")
    result = phone.act("TYPE[ab\u2764\ufe0f]")  # 4 code points for the last 3 left: not all
    assert result.event.typed == "ab" and result.note.endswith("2 of 3 characters typed")
    phone.act(backspace)
    phone.act(backspace)
    exact = phone.act("TYPE[abc]")  # exactly the room left
    assert exact.event.typed == "abc" and exact.note == ""
    assert phone.act("TYPE[d]").note == "the field is full"


def test_backspace_deletes_the_last_character_as_it_is_seen(phone):
    # It deleted one code point: "ok 👍🏽" became "ok 👍" (the skin tone gone, the thumb
    # left), and a family of emoji took five taps through broken sequences.
    backspace = chat_backspace(phone)
    hint = find(phone.hierarchy(), resource_id="input").text  # what an empty field shows
    phone.act("TYPE[tu e\u0301 🇫🇷🇩🇪 👨\u200d👩\u200d👧 ❤️ ok 👍🏽]")
    left = []
    for _ in range(9):
        phone.act(backspace)
        left.append(find(phone.hierarchy(), resource_id="input").text)
    assert left[:8] == ["tu e\u0301 🇫🇷🇩🇪 👨\u200d👩\u200d👧 ❤️ ok ",
                        "tu e\u0301 🇫🇷🇩🇪 👨\u200d👩\u200d👧 ❤️ ok",
                        "tu e\u0301 🇫🇷🇩🇪 👨\u200d👩\u200d👧 ❤️ o",
                        "tu e\u0301 🇫🇷🇩🇪 👨\u200d👩\u200d👧 ❤️ ",
                        "tu e\u0301 🇫🇷🇩🇪 👨\u200d👩\u200d👧 ❤️",
                        "tu e\u0301 🇫🇷🇩🇪 👨\u200d👩\u200d👧 ",
                        "tu e\u0301 🇫🇷🇩🇪 👨\u200d👩\u200d👧",
                        "tu e\u0301 🇫🇷🇩🇪 "]
    assert left[8] == "tu e\u0301 🇫🇷🇩🇪"
    for expected in ("tu e\u0301 🇫🇷", "tu e\u0301 ", "tu e\u0301", "tu ", "tu", "t", ""):
        phone.act(backspace)
        assert find(phone.hierarchy(), resource_id="input").text == (expected or hint)

    # A run of a thousand joined emoji (a field holds 4,000 characters) is one character,
    # found without recursion (it was a RecursionError that undid the tap).
    for _ in range(3):
        phone.act("TYPE[" + "👨\u200d" * 500 + "]")  # a TYPE takes 1,000 characters
    phone.act("TYPE[👨]")
    phone.act(backspace)
    assert find(phone.hierarchy(), resource_id="input").text == hint


class _Counted:
    """Apps of the music app's type that count their initial_state calls."""

    def __init__(self):
        self.calls, music = [], registry.get("music").app
        counted = self

        class Counted(type(music)):
            def initial_state(self, seed):
                counted.calls.append(seed)
                return super().initial_state(seed)

        self.app, self.music = Counted, music

    def phone(self):
        return SimPhone(540, 1200, apps=[self.app()])


def test_the_built_in_content_is_built_when_first_needed():
    counted = _Counted()
    phone = counted.phone()
    phone.add_canvas("row", np.zeros((1200, 540, 3), np.uint8))  # a vector worker's start
    phone.reset(PhoneState({"music": counted.music.initial_state(3)}))  # a user's: all apps
    assert counted.calls == [] and phone.route() == "launcher"
    fresh = counted.phone()
    assert fresh.state.apps["music"] == counted.music.initial_state(0) and counted.calls == [0]
    assert fresh.clock == DEFAULT_CLOCK.isoformat(" ", "seconds")


@pytest.mark.parametrize("first", [
    lambda p: p.route(), lambda p: p.hierarchy(), lambda p: p.screenshot(),
    lambda p: p.act("PRESS[HOME]"), lambda p: p.foreground_package(),
    lambda p: p.launch("music"), lambda p: p.stop("music"), lambda p: p.open("music"),
    lambda p: p.swipe_between(270, 900, 270, 300), lambda p: p.clock, lambda p: p.state,
], ids=["route", "hierarchy", "screenshot", "act", "foreground_package", "launch", "stop",
        "open", "swipe_between", "clock", "state"])
def test_any_first_call_loads_the_built_in_content_once(first):
    counted = _Counted()
    phone = counted.phone()
    events = phone.events
    first(phone)
    phone.act("PRESS[HOME]")
    assert counted.calls == [0] and phone.events is events and events[-1].action == "PRESS[HOME]"
    assert phone.state.apps["music"] == counted.music.initial_state(0)


def test_a_closed_phone_that_never_loaded_tells_its_built_in_state_and_refuses_the_rest():
    counted = _Counted()
    closed = counted.phone()
    closed.close()
    with pytest.raises(DeviceError, match="closed"):
        closed.route()
    assert counted.calls == []
    assert closed.clock == DEFAULT_CLOCK.isoformat(" ", "seconds")
    assert closed.foreground_package() == "com.android.launcher3" and counted.calls == [0]


def test_an_app_whose_instance_has_its_initial_state_is_installed():
    music = registry.get("music").app

    class Unset(type(music)):
        initial_state = App.initial_state  # the class has none of its own

    app = Unset()
    app.initial_state = music.initial_state  # the instance has
    assert SimPhone(540, 1200, apps=[app]).state.apps["music"] == music.initial_state(0)
    with pytest.raises(NotImplementedError, match="must override initial_state"):
        SimPhone(540, 1200, apps=[Unset()])


def test_a_row_scrolled_to_a_sliver_is_not_shown():
    # A note card 1 pixel high at the list's bottom (320x480) counted as shown: the judge
    # then held the target as seen (target_exposed) though none of it could be read.
    from mobileintent_gym.phone import touch, ui

    def row(entity, rect):
        return ui.Node(ui.LINEAR, rect, entity=entity)

    root = ui.Node(ui.FRAME, (0, 0, 320, 480)).add(
        row("a", (4, 40, 158, 120)), row("b", (4, 427, 158, 428)), row("c", (4, 420, 158, 425)),
        row("d", (300, 40, 302, 120)))
    assert touch.visible_entities(root) == ("a", "c")


@pytest.mark.parametrize("copy_phone", COPIES, ids=["deepcopy", "pickle"])
def test_a_copied_phone_shows_other_data_under_an_id_it_copied(copy_phone):
    # A copy keeps copies of the states it loaded under the ids of the originals. Once
    # those were freed, a new state given such an id got the old state's version, and
    # the copy showed the screens of data that no longer existed. Waiting for CPython to
    # hand out a freed id made this test skip or not depending on what ran before; here
    # the original stays alive and is changed in place after the copy (app states are
    # immutable: only a test can), so the twin meets other data under an id it copied.
    base, clock = SimPhone().state.apps["chat"], SimPhone().state.clock
    original = dataclasses.replace(base, me="Original Owner")
    phone = SimPhone()
    phone.reset(PhoneState({"chat": original}, clock))
    phone.open("chat", "chat/me")
    twin = copy_phone(phone)
    object.__setattr__(original, "me", "Someone Else")
    twin.reset(PhoneState({"chat": original}, clock))
    twin.open("chat", "chat/me")
    assert "Someone Else" in twin.hierarchy() and "Original Owner" not in twin.hierarchy()

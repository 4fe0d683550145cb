"""Failing apps and odd input: an action happens whole or not at all, a bad value is named."""

import pickle
import re

import numpy as np
import pytest

from mobileintent_gym.errors import DeviceError, InvalidStateError, UnknownRouteError
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.query import find_all, tap


def _broken_like(phone, monkeypatch):
    """Make the social app's like handler fail after it changed the data, pushed a screen,
    scrolled and typed into the screen in front: an app bug, part-way."""
    app = phone.apps["social"]
    like = app.on_like

    def failing(nav, post_id):
        like(nav, post_id)
        nav.stack[-1].scroll["timeline"] = 999
        nav.stack[-1].fields["query"] = "half"
        nav.push("social/post", id=post_id)
        raise RuntimeError("the handler failed")

    monkeypatch.setattr(app, "on_like", failing)


def test_an_app_failing_part_way_leaves_stacks_data_ui_state_and_clock_as_they_were(
        monkeypatch):
    # The change stayed, no event was logged, and every later call raised: the phone was
    # stuck until reset().
    phone = SimPhone(540, 1200)
    phone.open("social")
    phone.act("SWIPE[UP]")
    before = (phone.route(), phone.hierarchy(), phone.clock, dict(phone.state.apps),
              len(phone.events), phone.screenshot().copy())
    _broken_like(phone, monkeypatch)
    like = tap(phone.hierarchy(), resource_id="like")
    failed = r"CLICK\[\d+,\d+\] failed on social/home and was undone: RuntimeError\('the handler"
    with pytest.raises(DeviceError, match=failed) as raised:
        phone.act(like)
    assert raised.value.where.startswith(f" at {__file__}:")  # the failing handler's line
    raised.value.add_note("(raised by sub-env 1)")
    copied = pickle.loads(pickle.dumps(raised.value))  # as a vector env's worker sends it
    assert (str(copied), copied.reason, copied.where, copied.__notes__) == (
        str(raised.value), raised.value.reason, raised.value.where, ["(raised by sub-env 1)"])
    assert (phone.route(), phone.hierarchy(), phone.clock) == before[:3]
    assert phone.state.apps == before[3] and len(phone.events) == before[4]
    assert np.array_equal(phone.screenshot(), before[5])
    monkeypatch.undo()
    assert phone.act(like).effect and phone.route() == "social/home"  # usable, as it was
    assert phone.act("PRESS[HOME]").effect and phone.route() == "launcher"


def test_a_screen_below_the_front_one_that_a_failing_handler_changed_is_put_back(
        monkeypatch):
    # Only the front screen's UI state was kept: a handler that closed the front screen
    # and scrolled the one below it, then failed, left that scroll lost.
    phone = SimPhone(540, 1200)
    phone.open("social")
    phone.act("SWIPE[UP]")
    home = phone.hierarchy()
    app = phone.apps["social"]
    monkeypatch.setattr(app, "on_like", lambda nav, post_id: nav.push("social/post",
                                                                      id=post_id))
    phone.act(tap(home, resource_id="like"))
    assert phone.route() == "social/post"

    def failing(nav, post_id):
        nav.pop()
        nav.stack[-1].scroll["feed"] = 0
        raise RuntimeError("the handler failed")

    monkeypatch.setattr(app, "on_like", failing)
    with pytest.raises(DeviceError, match="was undone"):
        phone.act(tap(phone.hierarchy(), resource_id="like"))
    phone.act("PRESS[BACK]")
    assert phone.route() == "social/home" and phone.hierarchy() == home


def test_an_app_error_of_the_packages_own_kinds_is_a_device_error_too(monkeypatch):
    # A handler's own MobileIntentError (an unknown route it pushed) came out as it was,
    # not as the DeviceError the contract names.
    phone = SimPhone(540, 1200)
    phone.open("social")
    app = phone.apps["social"]
    monkeypatch.setattr(app, "on_like", lambda nav, post_id: nav.push("social/nowhere"))
    with pytest.raises(DeviceError, match="UnknownRouteError"):
        phone.act(tap(phone.hierarchy(), resource_id="like"))
    assert phone.route() == "social/home" and not phone.events


def test_an_interrupt_mid_action_is_undone_and_raised_as_it_came(monkeypatch):
    phone = SimPhone(540, 1200)
    phone.open("social")
    before = phone.hierarchy()

    def interrupted(nav, post_id):
        nav.push("social/post", id=post_id)
        raise KeyboardInterrupt

    monkeypatch.setattr(phone.apps["social"], "on_like", interrupted)
    with pytest.raises(KeyboardInterrupt):
        phone.act(tap(phone.hierarchy(), resource_id="like"))
    assert phone.hierarchy() == before and phone.route() == "social/home"


def test_a_failing_action_on_the_launcher_keeps_its_page(monkeypatch):
    phone = SimPhone(540, 1200)
    phone.act("SWIPE[LEFT]")
    page = phone.hierarchy()
    monkeypatch.setattr(phone, "_pace", float("inf"))  # the clock would leave the calendar
    with pytest.raises(DeviceError, match=r"SWIPE.*failed on launcher and was undone"):
        phone.act("SWIPE[RIGHT]")
    monkeypatch.undo()
    assert phone.hierarchy() == page and not phone.act("PRESS[BACK]").effect


def test_an_action_that_would_move_the_clock_off_the_calendar_names_the_pace():
    # 1e12 s was accepted and every action failed with OverflowError('date value out of range').
    phone = SimPhone(540, 1200)
    phone.seconds_per_action = 3e11  # within the span, but 9,500 years on
    before = phone.clock
    with pytest.raises(DeviceError, match=r"the clock \(2026-03-02 09:41:00\) would leave "
                                          r"the calendar at seconds_per_action=3e\+11"):
        phone.act("PRESS[HOME]")
    assert phone.clock == before and phone.events == []
    phone.seconds_per_action = 60
    phone.act("PRESS[HOME]")
    assert len(phone.events) == 1 and phone.clock == "2026-03-02 09:42:00"


def test_tapping_ones_own_name_on_a_reply_opens_ones_own_profile():
    # It opened social/profile of id "me", which has no account: KeyError, phone stuck.
    phone = SimPhone(540, 1200)
    phone.open("social", "social/post", id="sp052")
    for action in (tap(phone.hierarchy(), resource_id="reply_input"),
                   "TYPE[nice]"):
        phone.act(action)
    phone.act(tap(phone.hierarchy(), resource_id="reply_send"))
    phone.act("PRESS[BACK]")  # hides the keyboard
    names = [n for n in find_all(phone.hierarchy(), resource_id="author")
             if n.text == "Alex Morgan"]  # the user's own name, on the new reply
    assert len(names) == 1
    left, top, right, bottom = names[0].bounds
    phone.act(f"CLICK[{(left + right) // 2},{(top + bottom) // 2}]")
    assert phone.route() == "social/me"


def test_a_deep_link_to_a_new_playlist_of_no_track_is_refused_as_it_opens():
    # It opened; Create then saved a playlist of a track that does not exist and crashed.
    phone = SimPhone(540, 1200)
    with pytest.raises(UnknownRouteError, match=r"'music/new_playlist' with \{'id': 'no-such'\}"):
        phone.open("music", "music/new_playlist", id="no-such")
    assert phone.route() == "launcher"


def test_a_home_screen_that_fails_as_it_opens_is_named_by_its_route(monkeypatch):
    # It was "'music' has nothing for None with {}": the route opened went unnamed.
    phone = SimPhone(540, 1200)
    music = phone.apps["music"]

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug of the screen")

    monkeypatch.setattr(music, music.routes[music.home].build, broken)
    with pytest.raises(UnknownRouteError, match=re.escape(
            f"'music' cannot show {music.home!r} with {{}} (a record it does not hold, or a "
            "fault of the screen): ZeroDivisionError('a bug of the screen')")):
        phone.open("music")
    assert phone.route() == "launcher"


@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), "4", None, True, 1e18, -1e12])
def test_a_pace_that_is_no_finite_number_is_named(seconds):
    with pytest.raises(InvalidStateError, match=re.escape(
            f"seconds_per_action must be a finite number of at most 316224000000 seconds "
            f"either way, got {seconds!r}")):
        SimPhone(540, 1200, seconds_per_action=seconds)
    phone = SimPhone(540, 1200)
    with pytest.raises(InvalidStateError, match="seconds_per_action"):
        phone.seconds_per_action = seconds
    assert phone.seconds_per_action == 4.0
    phone.seconds_per_action = -2  # a replay's pace may move the clock back
    phone.act("PRESS[HOME]")
    assert phone.clock == "2026-03-02 09:40:58"


@pytest.mark.parametrize("kind", [np.uint32, np.uint64, np.int64, int])
def test_a_drag_of_numpy_integers_goes_the_way_the_finger_went(kind):
    # Unsigned coordinates wrapped round: an upward drag scrolled down, then overflowed.
    phone = SimPhone(540, 1200)
    phone.open("social")
    result = phone.swipe_between(kind(270), kind(1000), kind(270), kind(400))
    assert "SWIPE[UP]" in result.event.action and result.effect
    scroll = phone._stacks.top().scroll
    assert all(type(v) is int for v in scroll.values())


def test_a_state_app_id_or_dump_of_the_wrong_kind_is_named():
    # Each raised a bare TypeError (or RecursionError) from deep inside.
    from mobileintent_gym.phone import PhoneState, hierarchy

    phone = SimPhone(540, 1200)
    with pytest.raises(InvalidStateError, match="apps must be a dict of app id to state, got "
                                                "NoneType"):
        phone.reset(PhoneState(apps=None))
    with pytest.raises(UnknownRouteError, match=r"no app \['music'\]"):
        phone.open(["music"])
    assert phone.route() == "launcher"
    with pytest.raises(DeviceError, match="a uiautomator dump is text, got NoneType"):
        hierarchy.parse(None)
    deep = ('<hierarchy><node bounds="[0,0][1,1]">' + '<node bounds="[0,0][1,1]">' * 5000
            + "</node>" * 5001 + "</hierarchy>")
    with pytest.raises(DeviceError, match="nested too deeply"):
        hierarchy.parse(deep)


def test_a_clock_with_a_utc_offset_starts_at_its_wall_clock_time():
    # It was kept aware: leaving a meeting then subtracted a naive time from it (TypeError),
    # on every try, and the status bar's format changed.
    from datetime import datetime, timedelta, timezone

    from mobileintent_gym.phone import PhoneState

    phone = SimPhone(540, 1200)
    start = datetime(2026, 3, 2, 10, 0, tzinfo=timezone(timedelta(hours=8)))
    phone.reset(PhoneState(dict(phone.state.apps), start))
    assert phone.clock == "2026-03-02 10:00:00"
    meeting = phone.state.apps["meeting"].scheduled[0]
    phone.open("meeting", "meeting/details", id=meeting.id)
    for name in ("join", "leave"):
        phone.act(tap(phone.hierarchy(), resource_id=name))
    assert phone.route() == "meeting/details"  # left: back where it was joined
    assert phone.state.apps["meeting"].history[0].title == meeting.title

"""The event builder shared by the device backends."""

import pytest

from mobileintent_gym.actions import Action
from mobileintent_gym.backends.adb_transport import DeviceCommandError
from mobileintent_gym.backends.observed import observed_event, read_screen
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.query import find


def test_an_unreadable_dump_is_a_device_command_error_naming_its_source():
    with pytest.raises(DeviceCommandError, match="unreadable page source: not a uiautom"):
        read_screen("<html>busy</html>", "page source")


def test_a_click_is_logged_with_what_it_hit_and_what_changed():
    phone = SimPhone()
    phone.open("music", "music/library")
    seen = read_screen(phone.hierarchy(), "dump")
    b = find(phone.hierarchy(), resource_id="liked_songs").bounds
    click = Action.click((b[0] + b[2]) // 2, (b[1] + b[3]) // 2)
    direct = phone.act(click).event
    now = read_screen(phone.hierarchy(), "dump")
    event = observed_event(0, click, ("music/library", phone.route()), (seen, now), True)
    assert (event.hit, event.visible_after, event.effect) == (
        direct.hit, direct.visible_after, True)
    unchanged = observed_event(1, Action.click(5, 5), ("a", "a"), (now, now), True)
    # A route that changes under an identical dump (a screen that looks the same) is an
    # effect too.
    moved = observed_event(1, Action.click(5, 5), ("a", "b"), (now, now), True)
    assert moved.effect and moved.note == ""
    assert not unchanged.effect and unchanged.note == "no effect"
    assert observed_event(2, Action.complete(), ("a", "a"), (None, None), False).note == (
        "intention declared complete")


def test_text_typed_where_no_field_takes_it_is_not_logged_as_typed():
    # As on the simulated phone: TYPE on the launcher changes nothing and types nothing.
    phone = SimPhone()
    screen = read_screen(phone.hierarchy(), "dump")
    direct = phone.act(Action.type_text("hello")).event
    event = observed_event(0, Action.type_text("hello"), ("launcher", "launcher"),
                           (screen, screen), True)
    assert (event.typed, event.effect) == (direct.typed, direct.effect) == (None, False)
    blind = observed_event(1, Action.type_text("hi"), ("a", "a"), (None, None), True)
    assert blind.typed == "hi"  # without dumps a sent command counts as typed

"""Moving a phone's content in time: every app's times alike, shown against the clock."""

from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from mobileintent_gym.apps.chat.state import Message
from mobileintent_gym.apps.notes.state import Comment
from mobileintent_gym.errors import InvalidStateError
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.state import DEFAULT_CLOCK, MINUTE_FORMAT, PhoneState, when
from tests.helpers import content_times, texts


def _lived_in(phone: SimPhone) -> PhoneState:
    """The phone's content with a comment, a meeting joined and a message without a time."""
    apps = dict(phone.state.apps)
    notes, meeting, chat = apps["notes"], apps["meeting"], apps["chat"]
    first = chat.chats[0]
    apps["notes"] = replace(notes, comments=(Comment("n00", "Lovely", "2026-03-01 23:59"),))
    apps["meeting"] = replace(meeting, joined=meeting.scheduled[0].id,
                              joined_at="2026-03-02 09:30")
    apps["chat"] = replace(chat, chats=(replace(first, messages=(
        *first.messages, Message("me", "draft", ""))), *chat.chats[1:]))
    return PhoneState(apps, DEFAULT_CLOCK)


def test_every_time_moves_by_the_same_span_and_back():
    phone = SimPhone(540, 1200)
    state = _lived_in(phone)
    later = datetime(2027, 1, 1, 0, 5)
    moved = state.moved_to(later, phone.apps)
    before, after = content_times(state.apps), content_times(moved.apps)
    assert moved.clock == later and len(before) > 100 and after[-3:-1] != before[-3:-1]
    span = later - DEFAULT_CLOCK
    assert [datetime.strptime(t, MINUTE_FORMAT) + span for t in before if t] == [
        datetime.strptime(t, MINUTE_FORMAT) for t in after if t]
    assert "" in after  # a message without a time keeps none
    # Order numbers begin with their transaction's day, moved with it.
    assert all(b.order.startswith(b.time[:10].replace("-", ""))
               for b in moved.apps["pay"].bills)
    assert moved.moved_to(DEFAULT_CLOCK, phone.apps) == state
    # Apps without times are the same objects; the state moved from is left as it was.
    assert moved.apps["music"] is state.apps["music"]
    assert content_times(state.apps) == before


def chat_list_times(phone: SimPhone, clock: datetime) -> list[str]:
    """The times the chat list shows with the phone's clock at ``clock``."""
    phone.reset(PhoneState(phone.state.apps, clock))
    phone.launch("chat")
    return texts(phone, "meta")


def test_the_chat_list_shows_its_times_against_the_phones_date():
    # The chat app kept each message's time as the text it showed on the day the content
    # was written ("09:40"), so a day later the list still said "09:40".
    phone = SimPhone(1080, 2400)
    today = chat_list_times(phone, DEFAULT_CLOCK)
    assert today[:3] == ["09:40", "09:03", "08:26"]
    assert chat_list_times(phone, DEFAULT_CLOCK + timedelta(days=1))[:3] == ["Yesterday"] * 3
    assert chat_list_times(phone, DEFAULT_CLOCK + timedelta(days=3))[0] == "Mar 2"


def test_no_time_shows_as_nothing():
    # Pay's conversation page read the first message's time with strptime, "" included.
    assert when("", DEFAULT_CLOCK.date()) == when("", DEFAULT_CLOCK.date(), clock=False) == ""


def test_apps_a_state_leaves_out_get_built_in_content_dated_around_its_clock():
    # They got it dated as of the default clock: on 2027-06-01 the bills were of Feb 2026
    # and the pay home said "Spent in June 0.00", while the chat given read as of June.
    phone = SimPhone(540, 1200)
    later = datetime(2027, 6, 1, 12, 0)
    chat = PhoneState({"chat": phone.state.apps["chat"]}).moved_to(later, phone.apps)
    phone.reset(PhoneState(dict(chat.apps), later), seed=3)
    built_in = PhoneState.default(phone.apps, 3)
    assert phone.state.apps["chat"] == chat.apps["chat"]
    for app_id in set(phone.apps) - {"chat"}:
        assert phone.state.apps[app_id] == phone.apps[app_id].moved(
            built_in.apps[app_id], later - DEFAULT_CLOCK), app_id
    newest = max(b.time for b in phone.state.apps["pay"].bills)
    assert later - timedelta(days=1) < datetime.strptime(newest, MINUTE_FORMAT) < later
    for clock in (datetime(1899, 12, 31, 23, 59), datetime(9999, 1, 1)):
        with pytest.raises(InvalidStateError, match=r"the built-in content of \['forum', "
                                                    rf".* cannot be dated around the clock "
                                                    rf"{clock}: give their states too, or a "
                                                    r"clock in 1900-9998"):
            phone.reset(PhoneState(dict(chat.apps), clock))
        assert phone.state.clock == later and phone.state.apps["chat"] == chat.apps["chat"]
    phone.reset(PhoneState(dict(PhoneState.default(phone.apps).apps), datetime(1, 1, 1)))
    assert phone.clock == "0001-01-01 00:00:00"  # every app given: nothing to date

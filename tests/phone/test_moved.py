"""Moving a phone's content in time: every app's times alike, shown against the clock."""

from dataclasses import replace
from datetime import datetime, timedelta

from mobileintent_gym.apps.chat.state import Message
from mobileintent_gym.apps.notes.state import Comment
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

"""Apps show times against the phone's date, which a multi-day run moves past the default."""

from datetime import datetime, timedelta

from mobileintent_gym.phone import PhoneState, SimPhone
from mobileintent_gym.phone.query import find, tap
from tests.helpers import nodes, press

LATER = datetime(2026, 4, 5, 10, 0)  # a month after the default clock (Mar 2)


def later_phone() -> SimPhone:
    phone = SimPhone()
    phone.reset(PhoneState(PhoneState.default(phone.apps).apps, LATER))
    return phone


def day_of(at: datetime) -> str:
    """How a list names a day other than today and yesterday."""
    return f"{at:%b} {at.day}"


def child(row, rid):
    return next(n.text for n in row.walk() if n.resource_id.endswith(f":id/{rid}"))


def test_pay_dates_its_messages_against_the_phones_date():
    # Times were counted from the default clock: a message sent on Mar 5 was listed as
    # "Mar 5", one from Mar 2 as "09:12" (today).
    phone = later_phone()
    conversations = phone.state.apps["pay"].conversations
    mine, other = conversations[0], conversations[1]
    phone.open("pay", "pay/conversation", id=mine.id)
    phone.act(tap(phone.hierarchy(), resource_id="input"))
    phone.act("TYPE[hello]")
    phone.act("PRESS[ENTER]")
    phone.open("pay", "pay/messages")
    rows = {n.entity: n for n in nodes(phone, resource_id="conversation")}
    assert child(rows[mine.id], "meta") == phone.clock[11:16]
    last = datetime.strptime(other.messages[-1].time, "%Y-%m-%d %H:%M")
    assert last.date() < LATER.date() - timedelta(days=1)
    assert child(rows[other.id], "meta") == day_of(last)
    phone.open("pay", "pay/home")
    assert "Spent in April" in [n.text for n in nodes(phone)]  # the phone's month


def test_meeting_day_headings_follow_the_phones_date():
    # A month on, the scheduled meetings (weekly) stand at their next occurrence.
    phone = later_phone()
    agenda = phone.state.apps["meeting"].agenda(LATER.date())
    first = datetime.strptime(agenda[0].start, "%Y-%m-%d %H:%M")
    phone.open("meeting", "meeting/home")
    heading = next(n.text for n in find(phone.hierarchy(), resource_id="day").walk() if n.text)
    days = (first.date() - LATER.date()).days
    assert 0 <= days < 7
    assert heading == {0: "Today", 1: "Tomorrow"}.get(days, f"{first:%a, %b} {first.day}")


def test_a_notes_comment_reads_as_of_today_then_yesterday():
    phone = later_phone()
    note = phone.state.apps["notes"].discover[0]
    phone.open("notes", "notes/note", id=note)
    press(phone, resource_id="comment_box")
    phone.act("TYPE[Nice]")
    press(phone, resource_id="send")
    stamp = phone.clock[11:16]
    assert f"Today {stamp}" in shown(phone)
    state = PhoneState(dict(phone.state.apps), LATER + timedelta(days=1))
    phone.reset(state)
    phone.open("notes", "notes/note", id=note)
    for _ in range(6):  # down to the comments
        phone.act("SWIPE[UP]")
    assert f"Yesterday {stamp}" in shown(phone)


def shown(phone) -> list[str]:
    return [n.text for c in nodes(phone, resource_id="my_comment") for n in c.walk() if n.text]


def test_music_greets_by_the_time_of_day_on_the_phones_clock():
    # It said "Good morning" at 20:31 (a Session day's evening intention).
    phone = SimPhone()
    greetings = []
    for hour in (9, 14, 20, 2, 9):
        phone.reset(PhoneState(PhoneState.default(phone.apps).apps,
                               datetime(2026, 3, 6, hour, 31)))
        phone.open("music", "music/home")
        greetings += [n.text for n in nodes(phone) if n.text.startswith("Good ")]
    assert greetings == ["Good morning", "Good afternoon", "Good evening", "Good evening",
                         "Good morning"]


def test_music_greeting_turns_at_noon_while_the_screen_stays_open():
    # The screen built at 11:59 was reused after noon: its cache key held the date only.
    phone = SimPhone()
    phone.reset(PhoneState(PhoneState.default(phone.apps).apps, datetime(2026, 3, 6, 11, 59, 50)))
    phone.open("music", "music/home")
    before = [n.text for n in nodes(phone) if n.text.startswith("Good ")]
    for _ in range(5):  # 4 s an action: past 12:00
        phone.act("SWIPE[UP]")
    assert phone.clock.endswith("12:00:10")
    after = [n.text for n in nodes(phone) if n.text.startswith("Good ")]
    assert (before, after) == (["Good morning"], ["Good afternoon"])


def test_a_notes_post_date_reads_against_the_phones_date():
    # A note's date was text made as of the default clock ("02-20" for 10 days before it),
    # so a generated first day in January showed notes posted in February.
    from datetime import date

    from mobileintent_gym.apps.notes.state import posted_text

    assert posted_text("2026-02-27 09:41", date(2026, 3, 2)) == "3 days ago"
    assert posted_text("2026-02-27 09:41", date(2026, 2, 28)) == "Yesterday"
    assert posted_text("2026-02-27 09:41", date(2026, 2, 27)) == "Today"
    assert posted_text("2026-02-27 09:41", date(2026, 3, 9)) == "02-27"


def _forum_comment_meta(phone, post_id):
    phone.open("forum", "forum/post", id=post_id)
    while phone.act("SWIPE[UP]").effect:  # down to the end of the thread: the newest
        pass
    return [n.text for n in nodes(phone, resource_id="comment_author")][-1]


def _social_reply_meta(phone, post_id):
    phone.open("social", "social/post", id=post_id)
    row = nodes(phone, resource_id="reply_row")[0]  # the newest first
    return next(n.text for n in row.walk() if n.resource_id.endswith(":id/meta"))


def test_your_own_comment_and_reply_age_by_the_day():
    # Both said "now" for ever: on the fifth day of a generated week, the first day's too.
    phone = later_phone()
    forum, social = phone.state.apps["forum"], phone.state.apps["social"]
    thread, post = forum.feed[0], social.feed[0]
    phone.open("forum", "forum/post", id=thread)
    press(phone, resource_id="comment_input")
    phone.act("TYPE[Thanks]")
    press(phone, resource_id="submit")
    phone.open("social", "social/post", id=post)
    press(phone, resource_id="reply_input")
    phone.act("TYPE[Agreed]")
    press(phone, resource_id="reply_send")
    assert _forum_comment_meta(phone, thread) == f"{forum.me} (you) · now"
    assert _social_reply_meta(phone, post).endswith(" · now")
    written = phone.state.copy()
    # Written at 10:00: the same day at 23:00, at 01:00 the next day, two days on.
    for hours, age in ((13, "now"), (15, "1d"), (48, "2d")):
        phone.reset(PhoneState(dict(written.apps), LATER + timedelta(hours=hours)))
        assert _forum_comment_meta(phone, thread) == f"{forum.me} (you) · {age}"
        assert _social_reply_meta(phone, post).endswith(f" · {age}")
    # Moved with the rest of the content, a day-old comment is a day old at the new clock.
    later = PhoneState(dict(written.apps), LATER + timedelta(days=1)).moved_to(
        datetime(2027, 1, 9, 8, 0), phone.apps)
    phone.reset(later)
    assert _forum_comment_meta(phone, thread) == f"{forum.me} (you) · 1d"
    assert _social_reply_meta(phone, post).endswith(" · 1d")

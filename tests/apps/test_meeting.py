"""The meeting app (mirrors Tencent Meeting): scheduled meetings, the meeting history of
meetings and webinars, details, reminders, joining and leaving, its PAIR content, read
from the screen as an agent would."""

from datetime import timedelta

from mobileintent_gym.apps.meeting.content import MEETINGS, WEBINARS
from mobileintent_gym.apps.meeting.state import at, day, duration, span
from mobileintent_gym.phone.query import find
from mobileintent_gym.phone.state import DEFAULT_CLOCK, PhoneState
from mobileintent_gym.users import UserProfile, build_user_content, load_user_content
from tests.helpers import nodes, press, tap_node, texts

TODAY = DEFAULT_CLOCK.date()

PROFILE = {  # a profile of the test's own: mysteries, strategy games, coworkers
    "user_id": "meeting-tester",
    "demographics": {"age": "35-44 years old", "employment_status": "Working full-time"},
    "interests": {"Books": 1, "Games": 1, "Messaging": 1, "Sports": 0},
    "affinities": {"Books": {"Genre": ["mystery"]},
                   "Games": {"Preferred Game Genres": ["strategy"]},
                   "Messaging": {"Frequent Contact": ["coworkers"]}},
    "interactions": {},
}


def shown(row):
    """The texts inside a row, top to bottom."""
    return [n.text for n in row.walk() if n.text]


def headings(phone):
    """The day headings on screen."""
    return [shown(n)[0] for n in nodes(phone, resource_id="day")]


def scroll_through(phone, rid, swipes=20):
    """Entities of every ``rid`` row and the day headings met while scrolling down a list."""
    seen, days = [], []
    for _ in range(swipes):
        seen += [n.entity for n in nodes(phone, resource_id=rid) if n.entity not in seen]
        days += [d for d in headings(phone) if d not in days]
        phone.act("SWIPE[UP]")
    return seen, days


def test_scheduled_meetings_list_soonest_first_under_day_headings(phone):
    state = phone.state.apps["meeting"]
    assert len(state.scheduled) == 20
    assert [m.start for m in state.scheduled] == sorted(m.start for m in state.scheduled)
    assert all(m.start > phone.clock for m in state.scheduled)
    phone.open("meeting", "meeting/home")
    first = nodes(phone, resource_id="scheduled")[0]
    meeting = state.scheduled[0]
    assert first.entity == meeting.id
    assert shown(first) == [meeting.start[11:], f"{meeting.minutes} min", meeting.title,
                            f"{meeting.code} · {meeting.host}"]
    bells = {n.entity for n in nodes(phone, resource_id="scheduled")
             if any(c.desc == "Reminder on" for c in n.walk())}
    on_screen = {n.entity for n in nodes(phone, resource_id="scheduled")}
    assert bells == on_screen & set(state.reminders)
    seen, days = scroll_through(phone, "scheduled")
    assert seen == [m.id for m in state.scheduled]
    assert days == list(dict.fromkeys(day(m.start, TODAY) for m in state.scheduled))
    assert days[0] == "Today"


def test_a_scheduled_meeting_whose_day_has_passed_is_listed_at_its_next_week(phone):
    # Each meeting stayed at the start it was scheduled for: on a later day of a user's
    # sessions the list opened on "Yesterday" and "Mon, Mar 2" above "Today", as if to come.
    state = phone.state.apps["meeting"]
    today = TODAY + timedelta(days=8)
    phone.reset(PhoneState(phone.state.apps, DEFAULT_CLOCK + timedelta(days=8)))
    agenda = state.agenda(today)
    assert sorted(m.id for m in agenda) == sorted(m.id for m in state.scheduled)
    for meeting in agenda:  # on the first day of its weekday and time from today on
        start, was = at(meeting.start), at(state.meeting(meeting.id).start)
        assert start.date() >= today and (start - was).days % 7 == 0
        assert start == was or (start - timedelta(weeks=1)).date() < today
    phone.open("meeting", "meeting/home")
    seen, days = scroll_through(phone, "scheduled", swipes=30)
    assert seen == [m.id for m in agenda]
    assert days == list(dict.fromkeys(day(m.start, today) for m in agenda))
    assert "Yesterday" not in days and days[0] in ("Today", "Tomorrow")
    moved = next(m for m in agenda if m.start != state.meeting(m.id).start)
    phone.open("meeting", "meeting/details", id=moved.id)
    header = nodes(phone, resource_id="meeting_header")[0]
    assert shown(header)[1:3] == [f"{day(moved.start, today)} · {span(moved)}", "Upcoming"]


def test_the_history_mixes_meetings_and_webinars_newest_first(phone):
    state = phone.state.apps["meeting"]
    kinds = [m.kind for m in state.history]
    assert (kinds.count("meeting"), kinds.count("webinar")) == (20, 20)
    assert [m.start for m in state.history] == sorted((m.start for m in state.history),
                                                      reverse=True)
    assert len(set(kinds[:20])) == 2  # mixed, not one kind after the other
    phone.open("meeting", "meeting/home")
    press(phone, resource_id="history")
    assert phone.route() == "meeting/history"
    rows = nodes(phone, resource_id="meeting")
    height = rows[0].bounds[3] - rows[0].bounds[1]
    for row in (r for r in rows if r.bounds[3] - r.bounds[1] == height):  # not cut off
        meeting = state.meeting(row.entity)
        webinar = ["Webinar"] if meeting.kind == "webinar" else []
        assert shown(row) == [meeting.title, f"{span(meeting)} · {meeting.host}", *webinar]
    seen, days = scroll_through(phone, "meeting")
    assert seen == [m.id for m in state.history]
    assert days == list(dict.fromkeys(day(m.start, TODAY) for m in state.history))


def test_a_past_meeting_opens_on_its_details(phone):
    state = phone.state.apps["meeting"]
    phone.open("meeting", "meeting/me")
    press(phone, resource_id="history")
    row = nodes(phone, resource_id="meeting")[2]
    tap_node(phone, row)
    meeting = state.meeting(row.entity)
    assert phone.route() == "meeting/details"
    header = nodes(phone, resource_id="meeting_header")[0]
    assert header.entity == meeting.id
    assert shown(header) == [meeting.title, f"{day(meeting.start, TODAY)} · {span(meeting)}",
                             "Ended", meeting.topic]
    assert [shown(r) for r in nodes(phone, resource_id="detail")] == [
        ["Meeting ID", meeting.code], ["Host", meeting.host],
        ["Type", meeting.kind.capitalize()], ["Length", duration(meeting.minutes)],
        ["Participants", f"{meeting.people} took part"]]
    recording = (f"Cloud recording · {duration(meeting.minutes)}" if meeting.recorded
                 else "No recording")
    assert texts(phone, "title")[-1] == recording
    assert not nodes(phone, resource_id="join") and not nodes(phone, resource_id="remind")
    phone.act("PRESS[BACK]")
    assert phone.route() == "meeting/history"


def test_a_reminder_turns_on_and_off_and_the_schedule_shows_its_bell(phone):
    state = phone.state.apps["meeting"]
    phone.open("meeting", "meeting/home")
    row = next(r for r in nodes(phone, resource_id="scheduled")
               if r.entity not in state.reminders)
    tap_node(phone, row)
    assert texts(phone, "status") == ["Upcoming"]
    switch = find(phone.hierarchy(), resource_id="remind")
    assert not switch.checked and shown(switch)[-1] == "Off"
    press(phone, resource_id="remind")
    switch = find(phone.hierarchy(), resource_id="remind")
    assert switch.checked and shown(switch)[-1] == "On"
    phone.act("PRESS[BACK]")
    again = next(r for r in nodes(phone, resource_id="scheduled") if r.entity == row.entity)
    assert [c.desc for c in again.walk() if c.desc] == ["Reminder on"]
    tap_node(phone, again)
    press(phone, resource_id="remind")
    phone.act("PRESS[BACK]")
    again = next(r for r in nodes(phone, resource_id="scheduled") if r.entity == row.entity)
    assert not [c.desc for c in again.walk() if c.desc]


def test_joining_shows_the_room_and_leaving_tops_the_history(phone):
    state = phone.state.apps["meeting"]
    meeting = state.scheduled[1]
    phone.open("meeting", "meeting/details", id=meeting.id)
    assert texts(phone, "join") == ["Join meeting"]
    press(phone, resource_id="join")
    assert phone.route() == "meeting/room"
    assert texts(phone, "room_title") == [meeting.title]
    tiles = [n.desc for n in nodes(phone, resource_id="tile")]
    assert tiles == [meeting.host, "You", f"{meeting.people - 2} others"]
    you = nodes(phone, resource_id="tile")[1]
    assert [c.desc for c in you.walk() if c.desc] == ["You", "Muted"]  # joined muted
    press(phone, resource_id="mic")
    press(phone, resource_id="camera")
    you = nodes(phone, resource_id="tile")[1]
    assert [c.desc for c in you.walk() if c.desc] == ["You"]
    assert [n.desc for n in nodes(phone, resource_id="mic") + nodes(phone, resource_id="camera")
            ] == ["Mute", "Stop video"]
    phone.act("PRESS[BACK]")  # the meeting goes on: the details say so
    assert texts(phone, "status") == ["In meeting"]
    assert texts(phone, "join") == ["Return to meeting"]
    phone.act("PRESS[BACK]")
    banner = find(phone.hierarchy(), resource_id="in_meeting")
    assert banner.entity == meeting.id and shown(banner)[0] == f"In meeting · {meeting.title}"
    tap_node(phone, banner)
    assert phone.route() == "meeting/room"
    joined_at = phone.state.apps["meeting"].joined_at
    press(phone, resource_id="leave")
    assert phone.route() == "meeting/home" and not nodes(phone, resource_id="in_meeting")
    press(phone, resource_id="history")
    top = nodes(phone, resource_id="meeting")[0]
    assert headings(phone)[0] == "Today"
    attended = phone.state.apps["meeting"].history[0]
    assert (top.entity, attended.title, attended.start) == (attended.id, meeting.title, joined_at)
    assert shown(top) == [meeting.title, f"{span(attended)} · {meeting.host}"]
    assert span(attended).startswith(joined_at[11:])  # from when it was joined


def test_each_attendance_of_one_meeting_is_its_own_entry(phone):
    # Two attendances within a minute had one id ("g015-0941") and were merged into one.
    meeting = phone.state.apps["meeting"].scheduled[0]
    before = len(phone.state.apps["meeting"].history)
    for _ in range(2):
        phone.open("meeting", "meeting/details", id=meeting.id)
        press(phone, resource_id="join")
        press(phone, resource_id="leave")
    history = phone.state.apps["meeting"].history
    assert len(history) == before + 2 and history[0].id != history[1].id
    assert history[0].title == history[1].title == meeting.title


def test_two_users_see_their_own_meetings_and_webinars():
    ana, chen = (load_user_content(u) for u in ("demo-ana", "demo-chen"))
    for key in ("meeting:history", "meeting:webinars", "meeting:scheduled"):
        a, c = ana.contexts[key], chen.contexts[key]
        assert a.common == c.common and len(a.common) + len(a.personal) == 20
        assert len(set(a.personal) & set(c.personal)) < len(a.personal) / 2
    # Contexts that share the meetings pool never repeat a meeting.
    items = ana.contexts["meeting:history"], ana.contexts["meeting:scheduled"]
    assert not set(items[0].common + items[0].personal) & set(items[1].common + items[1].personal)
    titles = {u.user_id: [m.title for m in u.state.apps["meeting"].history] for u in (ana, chen)}
    assert {"Soweto Stars Supporters Club", "Amapiano Production Masterclass"} <= set(
        titles["demo-ana"])
    assert {"Keyboard Builders Meetup", "Metal Drumming Clinic"} <= set(titles["demo-chen"])


def test_each_pool_is_large_and_every_cue_hides_its_label():
    for pool in (MEETINGS, WEBINARS):
        records = pool.records()
        assert len(records) >= 60
        assert all(r.label.casefold() not in r.cue.casefold() for r in records)
        assert len({r.label for r in records}) == len(records)


def test_a_profile_of_the_tests_own_gets_its_tastes_on_top():
    content = build_user_content(UserProfile.from_dict(PROFILE))
    personal = content.labels[content.contexts["meeting:history"].personal[0]]
    assert personal in {"Mystery Book Club", "Strategy Game Night", "Weekly Team Standup"}


def test_a_room_of_three_counts_one_other_in_the_singular(phone):
    # The tile of the others read "1 others" (meeting g041 of demo-ana).
    from dataclasses import replace

    from mobileintent_gym.phone import PhoneState

    state = phone.state.apps["meeting"]
    small = replace(state.scheduled[1], people=3)
    meeting = replace(state, scheduled=(state.scheduled[0], small, *state.scheduled[2:]))
    phone.reset(PhoneState({**phone.state.apps, "meeting": meeting}, phone.state.clock))
    phone.open("meeting", "meeting/details", id=small.id)
    press(phone, resource_id="join")
    assert [n.desc for n in nodes(phone, resource_id="tile")] == [small.host, "You", "1 other"]

"""The meeting app's content: its record pools, its PAIR contexts and the state built from them.

Pools: ``data/meetings.jsonl`` (``g000``…: a work, club, family or friends' meeting with
its host, tags, agenda, length and size) and ``data/webinars.jsonl`` (``w000``…: a public
webinar or class with the organisation giving it, tags and topic). The meeting history
holds past meetings and webinars mixed, newest first, on half-hour slots of the last
:data:`HISTORY_DAYS` days; the scheduled meetings take half-hour slots of the next
:data:`SCHEDULE_DAYS` days, soonest first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

import numpy as np

from mobileintent_gym.apps.meeting.ids import Pair
from mobileintent_gym.apps.meeting.state import TIME_FORMAT, Meeting, MeetingState, account_line
from mobileintent_gym.apps.records import Record
from mobileintent_gym.phone.state import DEFAULT_CLOCK
from mobileintent_gym.users.contexts import ContextSpec, Pool

HISTORY_DAYS = 21
SCHEDULE_DAYS = 14
HOURS = range(8, 21)  # meetings start between 08:00 and 20:30
RECORDED_SHARE = 0.35  # of past meetings that left a cloud recording
REMINDER_SHARE = 0.25  # of scheduled meetings with a reminder set
# PersonaLens domains whose tastes show in whom a person meets and what they attend.
MEETING_DOMAINS = ("Messaging", "Calendar", "Events", "Books", "Games", "Sports", "Music",
                   "Movies", "Media", "Travel", "Restaurants", "Shopping", "Services",
                   "Finance")
WEBINAR_DOMAINS = ("Events", "Music", "Movies", "Media", "Books", "Games", "Sports",
                   "Travel", "Train", "Restaurants", "Shopping", "Services", "Finance")


def _describe_meeting(r: Record) -> str:
    return (f"{r.label}: a {r['kind']} meeting hosted by {r['host']} about {r['agenda']} "
            f"({', '.join(r['tags'])})")


def _describe_webinar(r: Record) -> str:
    return f"{r.label}: a webinar by {r['host']} on {r['topic']} ({', '.join(r['tags'])})"


MEETINGS = Pool(__package__, "meetings", _describe_meeting, ("tags",))
WEBINARS = Pool(__package__, "webinars", _describe_webinar, ("tags",))

CONTEXTS = (
    ContextSpec(Pair.HISTORY, MEETINGS, MEETING_DOMAINS, ("g000", "g001")),
    ContextSpec(Pair.WEBINARS, WEBINARS, WEBINAR_DOMAINS, ("w000", "w001")),
    ContextSpec(Pair.SCHEDULED, MEETINGS, MEETING_DOMAINS, ("g003", "g060")),
)


def build_state(lists: Mapping[str, Sequence[Record]], rng: np.random.Generator,
                owner: str) -> MeetingState:
    """A meeting state with PAIR's meeting history (meetings and webinars) and schedule.

    Args:
        lists: Past meetings and webinars (each newest first) and scheduled meetings
            (soonest first).
        rng: Source of the time slots, the mix of the history, meeting IDs, recordings,
            reminders and the user's personal meeting ID.
        owner: The owner's name, on the Me page and their tile in a meeting.
    """
    meetings, webinars = lists[Pair.HISTORY], lists[Pair.WEBINARS]
    past = _slots(rng, False, len(meetings) + len(webinars))[::-1]
    kinds = set(rng.choice(len(past), size=len(webinars), replace=False).tolist())
    queues = {True: iter(webinars), False: iter(meetings)}
    history = [_meeting(next(queues[i in kinds]), start, rng, rng.random() < RECORDED_SHARE)
               for i, start in enumerate(past)]
    upcoming = lists[Pair.SCHEDULED]
    scheduled = [_meeting(r, start, rng) for r, start in
                 zip(upcoming, _slots(rng, True, len(upcoming)), strict=True)]
    reminders = [m.id for m in scheduled if rng.random() < REMINDER_SHARE]
    return MeetingState(scheduled, history, reminders, me=owner,
                        account=account_line(int(rng.integers(10**7, 10**8))))


def _slots(rng: np.random.Generator, future: bool, count: int) -> list[str]:
    """``count`` distinct half-hour start times, in order.

    Future ones lie after the phone's clock within :data:`SCHEDULE_DAYS` days, past ones on
    the :data:`HISTORY_DAYS` days before today.
    """
    today = datetime.combine(DEFAULT_CLOCK.date(), datetime.min.time())
    days = range(SCHEDULE_DAYS) if future else range(-HISTORY_DAYS, 0)
    slots = [start for d in days for h in HOURS for m in (0, 30)
             if (start := today + timedelta(days=d, hours=h, minutes=m)) > DEFAULT_CLOCK
             or not future]
    picked = sorted(rng.choice(len(slots), size=count, replace=False).tolist())
    return [slots[i].strftime(TIME_FORMAT) for i in picked]


def _meeting(record: Record, start: str, rng: np.random.Generator,
             recorded: bool = False) -> Meeting:
    """The meeting of a ``meetings`` or ``webinars`` record, starting at ``start``."""
    digits = f"{int(rng.integers(10**8, 10**9))}"
    webinar = "topic" in record.attributes
    return Meeting(record.id, record.label, record["host"],
                   "webinar" if webinar else "meeting",
                   record["topic" if webinar else "agenda"], start, record["minutes"],
                   record["people"], f"{digits[:3]} {digits[3:6]} {digits[6:]}", recorded)

"""The meeting app's data: immutable records in an immutable state, and how times read."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from mobileintent_gym.apps.plugin import DEFAULT_OWNER
from mobileintent_gym.phone.state import (
    MINUTE_FORMAT,
    frozen_fields,
    month_name,
    moved,
    moved_each,
    weekday_name,
)

TIME_FORMAT = MINUTE_FORMAT


def account_line(number: int) -> str:
    """The Me page's account line for the personal meeting ID ``number`` (eight digits)."""
    return f"Personal account · ID {number // 10_000} {number % 10_000:04d}"


@dataclass(frozen=True, slots=True)
class Meeting:
    """A scheduled meeting or one of the meeting history.

    Attributes:
        id: Its record id.
        title: Its title, as the lists show it.
        host: Who hosts it (a person, or the organisation giving a webinar).
        kind: ``meeting`` or ``webinar``.
        topic: Its agenda or topic.
        start: When it starts, as ``YYYY-MM-DD HH:MM``.
        minutes: How long it lasts.
        people: How many take part.
        code: Its meeting ID as the app writes it (``482 193 775``).
        recorded: Whether it left a cloud recording.
    """

    id: str
    title: str
    host: str
    kind: str
    topic: str
    start: str
    minutes: int
    people: int
    code: str
    recorded: bool = False


@dataclass(frozen=True, slots=True)
class MeetingState:
    """The meeting app's data (lists given as lists are kept as tuples).

    Attributes:
        scheduled: The scheduled meetings, soonest first.
        history: The meeting history, newest first.
        reminders: Ids of the scheduled meetings that remind the user before they start.
        joined: Id of the scheduled meeting the user is in (``None``: none).
        joined_at: When the user joined it, as ``YYYY-MM-DD HH:MM``.
        muted: Whether the user's microphone is off in the meeting.
        camera: Whether the user's camera is on in the meeting.
        me: The owner's name (the profile's ``name``).
        account: The account line of the Me page.
    """

    scheduled: tuple[Meeting, ...]
    history: tuple[Meeting, ...]
    reminders: tuple[str, ...] = ()
    joined: str | None = None
    joined_at: str = ""
    muted: bool = True
    camera: bool = False
    me: str = DEFAULT_OWNER
    account: str = account_line(61_820_473)

    def __post_init__(self) -> None:
        frozen_fields(self, (), ("scheduled", "history", "reminders"))

    def meeting(self, meeting_id: str) -> Meeting:
        """The scheduled or past meeting with id ``meeting_id``.

        Raises:
            KeyError: When there is no such meeting.
        """
        for meeting in (*self.scheduled, *self.history):
            if meeting.id == meeting_id:
                return meeting
        raise KeyError(f"no meeting {meeting_id!r}")

    def upcoming(self, meeting_id: str) -> bool:
        """Whether ``meeting_id`` is a scheduled meeting (not one of the history)."""
        return any(m.id == meeting_id for m in self.scheduled)

    def agenda(self, today: date) -> list[Meeting]:
        """The scheduled meetings as the app lists them on ``today``, soonest first.

        Each stands at its next occurrence (:func:`next_start`).
        """
        return sorted((replace(m, start=next_start(m.start, today)) for m in self.scheduled),
                      key=lambda m: m.start)


def moved_state(state: MeetingState, by: timedelta) -> MeetingState:
    """``state`` with every meeting's start and the time the user joined moved by ``by``."""
    return replace(state, scheduled=moved_each(state.scheduled, by, "start"),
                   history=moved_each(state.history, by, "start"),
                   joined_at=moved(state.joined_at, by))


@functools.lru_cache(maxsize=256)
def next_start(start: str, today: date) -> str:
    """When a scheduled meeting first set for ``start`` next takes place, from ``today`` on.

    Scheduled meetings recur weekly: one whose day has passed takes place on that weekday of
    the first week whose day has not.
    """
    first = at(start)
    weeks = max(0, -(-(today - first.date()).days // 7))
    return (first + timedelta(weeks=weeks)).strftime(TIME_FORMAT)


def at(time: str) -> datetime:
    """``time`` (``YYYY-MM-DD HH:MM``) as a datetime."""
    return datetime.strptime(time, TIME_FORMAT)


def span(meeting: Meeting) -> str:
    """When a meeting runs, as the lists show it: ``14:00–15:00``."""
    start = at(meeting.start)
    return f"{start:%H:%M}–{start + timedelta(minutes=meeting.minutes):%H:%M}"


@functools.lru_cache(maxsize=256)
def day(time: str, today: date) -> str:
    """The day heading of ``time`` on the phone's date ``today``.

    ``Today``, ``Tomorrow``, ``Yesterday`` or ``Wed, Mar 4``.
    """
    when = at(time).date()
    names = {0: "Today", 1: "Tomorrow", -1: "Yesterday"}
    day = f"{weekday_name(when, short=True)}, {month_name(when, short=True)} {when.day}"
    return names.get((when - today).days, day)


def duration(minutes: int) -> str:
    """A length of time in words: ``45 min``, ``1 h``, ``1 h 30 min``."""
    hours, rest = divmod(minutes, 60)
    return " ".join(part for part in (f"{hours} h" if hours else "",
                                      f"{rest} min" if rest or not hours else "") if part)

"""The phone's data: every app's records and the simulated clock, as plain data."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from types import MappingProxyType
from typing import Any, TypeVar

from mobileintent_gym.errors import InvalidStateError

DEFAULT_CLOCK = datetime(2026, 3, 2, 9, 41)
MINUTE_FORMAT = "%Y-%m-%d %H:%M"
"""How apps store a time to the minute (``2026-03-02 09:41``)."""
DATED_DAYS = (date(1900, 1, 1), date(9998, 12, 31))
"""Days content can be dated around (:meth:`PhoneState.moved_to`): its times are written
with four-digit years, and what is scheduled ahead must fit before the year 9999 ends."""
_R = TypeVar("_R")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
"""Day and month names as the phone writes them: English, whatever the process's locale
(``strftime``'s ``%A`` and ``%B`` follow it, so a host program that sets one changed the
screens, and a vector env's sub-envs in the parent and in its workers differed)."""


def weekday_name(day: date, short: bool = False) -> str:
    """``day``'s weekday in English: ``Wednesday``, or ``Wed`` when ``short``."""
    name = WEEKDAYS[day.weekday()]
    return name[:3] if short else name


def month_name(day: date, short: bool = False) -> str:
    """``day``'s month in English: ``September``, or ``Sep`` when ``short``."""
    name = MONTHS[day.month - 1]
    return name[:3] if short else name


def minutes_ago(minutes: int) -> str:
    """The time ``minutes`` before :data:`DEFAULT_CLOCK`, as ``YYYY-MM-DD HH:MM``.

    Apps write their content's times this way: as of the default clock, which
    :meth:`PhoneState.moved_to` moves them from.
    """
    return (DEFAULT_CLOCK - timedelta(minutes=minutes)).strftime(MINUTE_FORMAT)


def moved(time: str, by: timedelta) -> str:
    """``time`` (``YYYY-MM-DD HH:MM``) moved by ``by``; ``""`` (no time) stays ``""``."""
    return (datetime.strptime(time, MINUTE_FORMAT) + by).strftime(MINUTE_FORMAT) if time else ""


def moved_each(records: Iterable[_R], by: timedelta, name: str = "time") -> tuple[_R, ...]:
    """Immutable ``records`` with the time each holds in its field ``name`` moved by ``by``."""
    return tuple(replace(r, **{name: moved(getattr(r, name), by)}) for r in records)


def frozen_fields(record: Any, mappings: Iterable[str] = (),
                  sequences: Iterable[str] = ()) -> None:
    """Make a frozen dataclass's ``mappings`` read-only and its ``sequences`` tuples.

    For an app state's ``__post_init__``: whatever was given (a dict, a list), the state
    holds immutable values, as the phone asks.
    """
    for name in mappings:
        value = getattr(record, name)
        if not isinstance(value, MappingProxyType):
            object.__setattr__(record, name, MappingProxyType(dict(value)))
    for name in sequences:
        object.__setattr__(record, name, tuple(getattr(record, name)))


def toggled(ids: tuple[str, ...], item: str) -> tuple[str, ...]:
    """``ids`` without ``item`` if it holds it, else with ``item`` first (a like, a save)."""
    return tuple(i for i in ids if i != item) if item in ids else (item, *ids)


def moved_within(records: Mapping[str, _R], name: str, by: timedelta) -> dict[str, _R]:
    """``records`` with the times of the records each holds in its field ``name`` moved.

    Those hold their time in ``time`` (``""`` for none, :func:`moved_each`); a record none
    of whose records has a time is kept as it is.
    """
    return {key: replace(r, **{name: moved_each(getattr(r, name), by)})
            if any(held.time for held in getattr(r, name)) else r
            for key, r in records.items()}


def day_age(time: str, today: date, shown: str) -> str:
    """How a feed writes the age of what was posted at ``time`` on the phone's date ``today``.

    ``shown`` (an age as written: ``now``) on its own day, then ``1d``, ``2d`` …: screens
    are rebuilt when the date changes, not every minute. Without a time (``""``), ``shown``.
    """
    if not time:
        return shown
    days = (today - datetime.strptime(time, MINUTE_FORMAT).date()).days
    return shown if days <= 0 else f"{days}d"


@functools.lru_cache(maxsize=1024)
def when(time: str, today: date, clock: bool = True) -> str:
    """How a list shows ``time`` on the phone's date ``today``.

    ``Today 18:42`` / ``Yesterday 09:10`` / ``Feb 27 12:31``; without ``clock`` only the
    day: ``18:42`` for today, ``Yesterday``, ``Feb 27``. No time (``""``) shows as ``""``.
    """
    if not time:
        return ""
    at = datetime.strptime(time, MINUTE_FORMAT)
    days = (today - at.date()).days
    hour = at.strftime("%H:%M")
    day = ("Today" if days == 0 else "Yesterday" if days == 1
           else f"{month_name(at, short=True)} {at.day}")
    if not clock:
        return hour if days == 0 else day
    return f"{day} {hour}"


@dataclass(slots=True)
class PhoneState:
    """What a phone holds: per-app state objects and the time on its clock.

    App states are immutable (frozen dataclasses), so phones and copies share them.

    Attributes:
        apps: App id → that app's state.
        clock: Simulated wall-clock time (a phone's live state: its clock now).
    """

    apps: dict[str, Any] = field(default_factory=dict)
    clock: datetime = DEFAULT_CLOCK

    def copy(self) -> PhoneState:
        """A new PhoneState sharing the immutable app states (a phone never changes them)."""
        return PhoneState(dict(self.apps), self.clock)

    @classmethod
    def default(cls, apps: Mapping[str, Any], seed: int = 0) -> PhoneState:
        """Every app's built-in content for ``seed``."""
        return cls({app_id: app.initial_state(seed) for app_id, app in apps.items()})

    def moved_to(self, clock: datetime, apps: Mapping[str, Any]) -> PhoneState:
        """This state with its clock at ``clock`` and every time in it moved alike.

        Each app moves its own times (``App.moved``) by ``clock - self.clock``, so what was
        ten minutes old is still ten minutes old: content written as of one clock reads
        the same at another.

        Args:
            clock: The new clock.
            apps: App id → app, for every app of the state (a phone's ``apps``).
        """
        by = clock - self.clock
        return PhoneState({app_id: apps[app_id].moved(state, by)
                           for app_id, state in self.apps.items()}, clock)

    def check(self, apps: Mapping[str, Any]) -> None:
        """Raise unless every app state is of its app's type and the clock is a datetime.

        Raises:
            InvalidStateError: Naming the unknown app, the wrong type or the bad clock.
        """
        if not isinstance(self.apps, dict):
            raise InvalidStateError(f"apps must be a dict of app id to state, got "
                                    f"{type(self.apps).__name__}")
        unknown = sorted(set(self.apps) - set(apps))
        if unknown:
            raise InvalidStateError(f"state holds unknown apps {unknown}; phone has {sorted(apps)}")
        if not isinstance(self.clock, datetime):
            raise InvalidStateError(f"clock must be a datetime, got {self.clock!r}")
        for app_id, value in self.apps.items():
            expected = apps[app_id].state_type
            if not isinstance(value, expected):
                raise InvalidStateError(f"state of app {app_id!r} must be a {expected.__name__}, "
                                        f"got {type(value).__name__}")

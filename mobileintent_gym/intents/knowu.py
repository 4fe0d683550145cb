"""KnowU-style data: user profiles with habits (``trigger → action``) and behaviour logs.

**Behaviour logs** are JSON lists of ``{"time", "location", "action", "label", "category"}``
where ``label`` is ``signal`` or ``noise`` (:func:`load_behaviour_log`,
:func:`write_behaviour_log`; a generated session becomes one with :func:`behaviour_log`).

**Habits** come from a KnowU profile's YAML (``user_profile.habits``, needs PyYAML:
``pip install 'mobileintent-gym[data]'``). Each becomes a routine :class:`Habit` when its
action maps to a task the phone can execute (:data:`ACTION_TEMPLATES`, first template the
phone has wins) — sending a message or an email maps to the chat app's reply task, a
call to opening the contact's chat (no app places calls), browsing to the social app's
news (G-X-02) and opening a file to the reader; settings, alarms and galleries have no app
yet and are skipped. Its trigger's ``time`` (a ten-minute window, within the day) or
``time_range`` gives the window, ``days`` or ``day_of_week`` the weekdays; a trigger with
neither (a condition such as low battery) fires by chance at any waking hour.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from mobileintent_gym.checks import is_digits, is_integer
from mobileintent_gym.errors import brief, require
from mobileintent_gym.intents.act2intention import (
    InvalidDataError,
    check_keys,
    parse_time,
    read_json_list,
)
from mobileintent_gym.intents.routine import EVERY_DAY, Habit, Trigger
from mobileintent_gym.intents.schema import Session
from mobileintent_gym.tasks import TEMPLATES

LABELS = ("signal", "noise")
# KnowU action type -> the templates that carry it out, best first.
ACTION_TEMPLATES: dict[str, tuple[str, ...]] = {
    "send_message": ("G-WCT-02", "G-ALI-03", "G-RDT-02"),
    "initiate_call": ("G-WCT-01", "G-ALI-02"),
    "send_email": ("G-WCT-02",),
    "browse_info": ("G-X-02", "G-RDT-01", "G-WCT-03"),
    "open_file": ("G-WRE-01",),
}
_WEEK = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_GROUPS = {"weekday": (0, 1, 2, 3, 4), "weekend": (5, 6)}
_DAY_SEPARATORS = re.compile(r"[\s,;/]+")
_RANGE_DASH = re.compile(r"\s*[-\u2013]\s*")  # "Mon - Fri", "Mon–Fri"
_CONDITION_CHANCE = 0.3
_ENTRY_KEYS = ("time", "location", "action", "label", "category")


@dataclass(frozen=True, slots=True)
class BehaviourEntry:
    """One entry of a KnowU behaviour log.

    Attributes:
        time: When it happened (with the log's UTC offset, if it has one).
        location: Where.
        action: What the user did, in words.
        label: ``signal`` (part of a habit or preference) or ``noise``.
        category: What kind of behaviour it is.
    """

    time: datetime
    location: str
    action: str
    label: str
    category: str


def _entry(data: Any, where: str) -> BehaviourEntry:
    check_keys(data, _ENTRY_KEYS, "an entry", where)
    wrong = next((k for k in _ENTRY_KEYS if not isinstance(data[k], str)), None)
    if wrong is not None:
        raise InvalidDataError(f"{where}: {wrong!r} must be a string, got {brief(data[wrong])}")
    if data["label"] not in LABELS:
        raise InvalidDataError(f"{where}: 'label' must be one of {LABELS}, got {data['label']!r}")
    return BehaviourEntry(parse_time(data["time"], f"{where} 'time'"), data["location"],
                          data["action"], data["label"], data["category"])


def load_behaviour_log(path: str | os.PathLike[str]) -> list[BehaviourEntry]:
    """The entries of a KnowU behaviour log.

    Raises:
        InvalidDataError: When the file cannot be read or an entry is malformed.
    """
    return [_entry(d, f"{path} entry {i + 1}")
            for i, d in enumerate(read_json_list(path, "a behaviour log"))]


def write_behaviour_log(entries: Iterable[BehaviourEntry], path: str | os.PathLike[str]) -> None:
    """Write entries as a KnowU behaviour log (folders are created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [{"time": e.time.isoformat(), "location": e.location, "action": e.action,
                "label": e.label, "category": e.category} for e in entries]
    path.write_text(json.dumps(records, ensure_ascii=False, indent=2), encoding="utf-8")


def behaviour_log(sessions: Sequence[Session]) -> list[BehaviourEntry]:
    """The sessions' segments as KnowU log entries (noise labelled ``noise``).

    One entry per segment: an intention another one interrupted shows twice, once for
    each part the person carried out, both labelled ``signal``.
    """
    entries = []
    for session in sessions:
        for seg in session.segments:
            where = seg.context.place if seg.context is not None else ""
            text = seg.intention[:1].lower() + seg.intention[1:]
            entries.append(BehaviourEntry(seg.time, where, f"At {seg.time:%H:%M}, {text}",
                                          "noise" if seg.is_noise else "signal",
                                          seg.kind if seg.is_noise else seg.event))
    return entries


def _minutes(text: Any, where: str) -> int:
    """Minutes after midnight of an ``HH:MM`` time of day (00:00 to 23:59).

    YAML 1.1 reads an unquoted ``18:00`` as the base-60 integer 1080: that is the same count.
    """
    if is_integer(text) and 0 <= text < 24 * 60:
        return int(text)
    hours, colon, minutes = str(text).strip().partition(":")
    if not (colon and is_digits(hours) and is_digits(minutes) and int(hours) < 24
            and int(minutes) < 60):
        raise InvalidDataError(f"{where}: not a time of day (HH:MM, 00:00-23:59): {text!r}")
    return int(hours) * 60 + int(minutes)


def _range(times: Any, where: str) -> tuple[int, int]:
    """The window of a ``time_range`` of two times within one day."""
    if not (isinstance(times, list | tuple) and len(times) == 2):
        raise InvalidDataError(f"{where}: time_range must be two times, got {times!r}")
    start, end = (_minutes(t, where) for t in times)
    if start > end:
        raise InvalidDataError(f"{where}: time_range {times!r} crosses midnight; a habit's "
                               "window lies within one day (give one habit on each side)")
    return start, end


def _days(trigger: dict, where: str) -> tuple[int, ...]:
    """The weekdays (0 = Monday) of a trigger's ``days``/``day_of_week``.

    A name or a list of them; a string may hold several (``"Mon, Wed"``), ranges
    (``"Monday-Friday"``, ``"Fri-Mon"``), ``weekdays`` or ``weekends``. A name is three
    letters of it or more (``mon``, ``tues``, ``thurs``), a plural (``mondays``) or
    abbreviated with a dot (``tue.``), in any case.
    """
    days = trigger.get("days", trigger.get("day_of_week"))
    if days is None:
        return EVERY_DAY
    names = [days] if isinstance(days, str) else days
    if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
        raise InvalidDataError(f"{where}: days must be weekday names, got {days!r}")
    words = [w for n in names
             for w in _DAY_SEPARATORS.split(_RANGE_DASH.sub("-", n.strip().lower())) if w]
    found = sorted({day for word in words for day in _weekdays(word, where, days)})
    if not found:  # a habit that could never fire
        raise InvalidDataError(f"{where}: no weekday in {days!r}")
    return tuple(found)


def _day(word: str) -> int | None:
    """The weekday a word names: a name's first three letters or more, a plural, a dot."""
    word = word.rstrip(".")
    for name in (word, word[:-1] if word.endswith("s") else ""):  # "weds", "mondays"
        named = {i for i, full in enumerate(_WEEK) if len(name) >= 3 and full.startswith(name)}
        if len(named) == 1:
            return named.pop()
    return None


def _weekdays(word: str, where: str, days: Any) -> tuple[int, ...]:
    """The weekdays one word names: a day, a range of two (wrapping past Sunday), a group."""
    if word.rstrip("s") in _DAY_GROUPS:
        return _DAY_GROUPS[word.rstrip("s")]
    ends = [_day(end) for end in word.split("-")]
    if len(ends) not in (1, 2) or None in ends:
        raise InvalidDataError(f"{where}: unknown weekday {word!r} in {days!r}")
    first, last = ends[0], ends[-1]
    return tuple((first + i) % 7 for i in range((last - first) % 7 + 1))


def habit_from_knowu(name: str, spec: Any, task_target: str = "personal:explicit"
                     ) -> Habit | None:
    """The routine habit of one KnowU habit, or ``None`` when no executable task fits it.

    The action is a mapping with a ``type``, or the type alone (``action: send_message``).

    Raises:
        InvalidDataError: Naming the habit and what is malformed: the habit, its action or
            (for a habit the phone could carry out) its trigger.
    """
    where = f"KnowU habit {name!r}"
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise InvalidDataError(f"{where} must be a mapping (trigger, action), got {brief(spec)}")
    trigger, kind = spec.get("trigger"), spec.get("action")
    trigger = {} if trigger is None else trigger  # none given: a chance at any waking hour
    if isinstance(kind, dict):
        kind = kind.get("type")
    if not isinstance(kind, str | None):
        raise InvalidDataError(f"{where}: action type must be a name, got {brief(kind)}")
    template = next((t for t in ACTION_TEMPLATES.get(kind, ()) if t in TEMPLATES), None)
    if template is None:
        return None
    if not isinstance(trigger, dict):  # a habit it could carry out: its trigger is wrong
        raise InvalidDataError(f"{where}: trigger must be a mapping (time, time_range, "
                               f"days), got {brief(trigger)}")
    chance = 0.9
    if "time" in trigger:  # ten minutes, within the day
        start = _minutes(trigger["time"], where)
        window = (start, min(start + 9, 23 * 60 + 59))
    elif "time_range" in trigger:
        window = _range(trigger["time_range"], where)
    else:
        window, chance = (8 * 60, 22 * 60), _CONDITION_CHANCE
    return Habit(name, f"{template}:{task_target}", Trigger(*window, _days(trigger, where)),
                 chance, source="knowu")


def load_knowu_habits(path: str | os.PathLike[str]) -> tuple[Habit, ...]:
    """The executable habits of a KnowU profile YAML (``user_profile.habits``).

    Raises:
        DependencyNotInstalled: Without PyYAML (``[data]``).
        InvalidDataError: When the file cannot be read, holds no habits section, or a habit
            is malformed (the file and the habit named).
    """
    yaml = require("yaml", "data")
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as err:  # PyYAML's text spans lines, with a caret drawing
        mark = err.problem_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        said = ", ".join(filter(None, (err.context, err.problem)))
        raise InvalidDataError(f"{path}{where}: not YAML: {said}") from err
    except (OSError, ValueError, RecursionError, yaml.YAMLError) as err:  # ValueError: not UTF-8
        said = err.strerror if isinstance(err, OSError) and err.strerror else err
        raise InvalidDataError(f"{path}: {said}") from err
    profile = data.get("user_profile") if isinstance(data, dict) else None
    habits = profile.get("habits") if isinstance(profile, dict) else None
    if not isinstance(habits, dict):
        raise InvalidDataError(f"{path}: no user_profile.habits mapping")
    try:
        found = [habit_from_knowu(name, spec) for name, spec in habits.items()]
    except InvalidDataError as err:  # habit names repeat across files
        raise InvalidDataError(f"{path}: {err}") from err
    return tuple(h for h in found if h is not None)

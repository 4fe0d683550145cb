"""A user's routine: habits with triggers, interests, and the days drawn from them.

A :class:`Routine` is built from a profile (PersonaLens format) and a seed, optionally with
KnowU-style habits (``trigger → action``, :mod:`.knowu`). It holds

* a **schedule** — when the user wakes, commutes, works (or studies) and sleeps, which
  gives the place at any time of day;
* **habits** — a task done when its trigger holds (a time window on some weekdays, at a
  place, or right after another template's intention) with some chance;
* **interests** — weights over the executable tasks for the day's unplanned intentions,
  raised for templates whose PersonaLens domains the user is interested in
  (:data:`~mobileintent_gym.intents.classes.TEMPLATE_INTENTS`);
* a **noise rate** — idle stretches, accidental opens and distractor browsing per intention.

:func:`plan_day` draws one day from these plus chance, so what comes next is partly
predictable from the history and the persona, as with a real person.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

import numpy as np

from mobileintent_gym.intents.classes import TEMPLATE_INTENTS, reachable_templates
from mobileintent_gym.intents.schema import NOISE_KINDS, SegmentKind
from mobileintent_gym.tasks import INSTRUCTION_TYPES, TARGET_TYPES
from mobileintent_gym.users import UserProfile

WEEKDAYS = (0, 1, 2, 3, 4)
WEEKEND = (5, 6)
EVERY_DAY = (0, 1, 2, 3, 4, 5, 6)
MIN_GAP = timedelta(minutes=3)  # planned segments start at least this far apart
# Time slots a profile habit is drawn in: (first minute, last minute, days, place, whether
# it moves with the user's morning, which starts up to 45 minutes earlier or later).
# "work" is the user's workplace (a student's is the campus).
_SLOTS = (
    (7 * 60, 8 * 60, WEEKDAYS, "home", True), (8 * 60 + 15, 9 * 60, WEEKDAYS, "commute", True),
    (12 * 60, 13 * 60 + 30, WEEKDAYS, "work", False),
    (15 * 60, 17 * 60, WEEKDAYS, "work", False),
    (19 * 60, 21 * 60 + 30, EVERY_DAY, "home", False),
    (21 * 60 + 30, 23 * 60, EVERY_DAY, "home", False),
    (10 * 60, 12 * 60, WEEKEND, "home", False), (14 * 60, 17 * 60, WEEKEND, "out", False),
)


def stable_rng(seed: int, *names: str) -> np.random.Generator:
    """A generator for ``seed`` and ``names``, the same in every process."""
    return np.random.default_rng([seed, zlib.crc32("/".join(names).encode("utf-8"))])


@dataclass(frozen=True, slots=True)
class Schedule:
    """When the user is where, in minutes after midnight.

    Attributes:
        wake: Getting up.
        leave: Leaving for work or study on weekdays.
        arrive: Arriving there.
        leave_work: Leaving it.
        home: Back home.
        sleep: Going to bed.
        workplace: What the weekday place is called (``work`` or ``campus``).
    """

    wake: int = 7 * 60
    leave: int = 8 * 60 + 15
    arrive: int = 9 * 60
    leave_work: int = 17 * 60 + 30
    home: int = 18 * 60 + 15
    sleep: int = 23 * 60 + 15
    workplace: str = "work"

    def place(self, when: datetime) -> str:
        """Where the user is at ``when``: home, commute, work (or campus) or out."""
        minute = when.hour * 60 + when.minute
        if when.weekday() in WEEKEND:
            return "out" if 14 * 60 <= minute < 17 * 60 else "home"
        if self.leave <= minute < self.arrive or self.leave_work <= minute < self.home:
            return "commute"
        return self.workplace if self.arrive <= minute < self.leave_work else "home"

    def scene(self, when: datetime) -> str:
        """A few words on the situation at ``when``."""
        part = ("morning" if when.hour < 12 else "afternoon" if when.hour < 18
                else "evening" if when.hour < 22 else "night")
        day = "weekend" if when.weekday() in WEEKEND else "weekday"
        return f"{day} {part}, {self.place(when)}"


@dataclass(frozen=True, slots=True)
class Trigger:
    """When a habit fires.

    Attributes:
        start: First minute of its window, after midnight.
        end: Last minute of its window.
        days: Weekdays it holds on (0 = Monday).
        place: Where the user must be (``None``: anywhere).
        after: A template id or event class whose intention it follows, minutes later
            (``None``: a time-window habit).
    """

    start: int
    end: int
    days: tuple[int, ...] = EVERY_DAY
    place: str | None = None
    after: str | None = None


@dataclass(frozen=True, slots=True)
class Habit:
    """A task the user does when a trigger holds.

    Attributes:
        name: What it is called.
        task: Task id it carries out.
        trigger: When it fires.
        chance: Probability that it fires when the trigger holds.
        source: ``profile`` or ``knowu``.
    """

    name: str
    task: str
    trigger: Trigger
    chance: float
    source: str = "profile"


@dataclass(frozen=True, slots=True)
class Planned:
    """A segment of a day before it is carried out.

    Attributes:
        time: When it starts.
        kind: ``intention`` or a noise kind.
        task: Task id of an intention (``None`` for noise).
        habit: Name of the habit behind it (``None``: chance).
    """

    time: datetime
    kind: SegmentKind
    task: str | None = None
    habit: str | None = None


@dataclass(frozen=True, slots=True)
class Routine:
    """How one user lives with the phone.

    Attributes:
        user: The user's id.
        schedule: Their day.
        habits: Their habits.
        interests: ``(task id, weight)`` of the tasks unplanned intentions are drawn from.
        extra: Mean number of unplanned intentions per day.
        noise: Noise segments per intention.
    """

    user: str
    schedule: Schedule
    habits: tuple[Habit, ...]
    interests: tuple[tuple[str, float], ...]
    extra: float
    noise: float


def template_weights(profile: UserProfile, templates: tuple[str, ...]) -> np.ndarray:
    """A weight per template: 0.5, plus 2 × the share of its domains the user likes."""
    active = set(profile.active_domains())
    shares = [np.mean([d in active for d in TEMPLATE_INTENTS[t].domains]) for t in templates]
    return 0.5 + 2.0 * np.asarray(shares, dtype=float)


def build_routine(profile: UserProfile, seed: int = 0,
                  extra_habits: tuple[Habit, ...] = ()) -> Routine:
    """The routine of ``profile`` for ``seed`` (habits from KnowU go in ``extra_habits``)."""
    rng = stable_rng(seed, "routine", profile.user_id)
    templates = reachable_templates()
    weights = template_weights(profile, templates)
    shift = int(rng.integers(-45, 46))
    student = "student" in str(profile.demographics.get("employment_status", "")).lower()
    schedule = Schedule(wake=7 * 60 + shift, leave=8 * 60 + 15 + shift,
                        arrive=9 * 60 + shift, workplace="campus" if student else "work")
    habits = [_slot_habit(rng, templates, weights, i, schedule)
              for i in range(int(rng.integers(4, 8)))]
    habits.append(_follow_up(rng, templates, weights, habits[0]))
    interests = tuple((f"{t}:{target}:{kind}", float(w) / 4)
                      for t, w in zip(templates, weights, strict=True)
                      for target in TARGET_TYPES for kind in INSTRUCTION_TYPES)
    return Routine(profile.user_id, schedule, (*habits, *extra_habits), interests,
                   extra=float(rng.uniform(3, 6)), noise=float(rng.uniform(0.1, 0.3)))


def _task(rng: np.random.Generator, templates: tuple[str, ...], weights: np.ndarray) -> str:
    template = templates[int(rng.choice(len(templates), p=weights / weights.sum()))]
    target = "personal" if rng.random() < 0.7 else "common"
    return f"{template}:{target}:{INSTRUCTION_TYPES[int(rng.integers(2))]}"


def _slot_habit(rng: np.random.Generator, templates: tuple[str, ...], weights: np.ndarray,
                index: int, schedule: Schedule) -> Habit:
    """A habit in a time slot, placed where the user's schedule puts them then."""
    first, last, days, place, moves = _SLOTS[int(rng.integers(len(_SLOTS)))]
    length = int(rng.integers(20, 61))
    shift = schedule.wake - Schedule().wake if moves else 0  # the user's morning moves it
    start = int(rng.integers(first, max(first + 1, last - length))) + shift
    trigger = Trigger(start, start + length, days,
                      schedule.workplace if place == "work" else place)
    return Habit(f"habit {index + 1}", _task(rng, templates, weights), trigger,
                 float(rng.uniform(0.6, 0.95)))


def _follow_up(rng: np.random.Generator, templates: tuple[str, ...], weights: np.ndarray,
               first: Habit) -> Habit:
    after = first.task.split(":")[0]
    task = _task(rng, templates, weights)
    while task.startswith(after + ":"):  # another template's task, not the trigger's again
        task = _task(rng, templates, weights)
    return Habit("follow-up", task, Trigger(1, 10, after=after),
                 float(rng.uniform(0.5, 0.85)))


def plan_day(routine: Routine, day: date, seed: int = 0) -> list[Planned]:
    """The segments of ``day``: fired habits, follow-ups, chance intentions and noise.

    The same routine, day and seed give the same plan in every process.
    """
    rng = stable_rng(seed, "day", routine.user, day.isoformat())
    midnight = datetime.combine(day, time())
    plan = _fired_habits(routine, midnight, rng)
    plan += _chance_intentions(routine, midnight, rng)
    plan = _spaced(plan)
    plan += _follow_ups(routine, plan, rng)
    plan += _noise(routine, midnight, len(plan), rng)
    return [p for p in _spaced(plan) if p.time.date() == day]


def _at(midnight: datetime, minute: int, rng: np.random.Generator) -> datetime:
    return midnight + timedelta(minutes=minute, seconds=int(rng.integers(60)))


def _fired_habits(routine: Routine, midnight: datetime, rng: np.random.Generator
                  ) -> list[Planned]:
    plan = []
    for habit in routine.habits:
        trig = habit.trigger
        fires = rng.random() < habit.chance  # drawn for every habit: days stay independent
        if trig.after is not None or midnight.weekday() not in trig.days or not fires:
            continue
        when = _at(midnight, int(rng.integers(trig.start, trig.end + 1)), rng)
        if trig.place is None or routine.schedule.place(when) == trig.place:
            plan.append(Planned(when, "intention", habit.task, habit.name))
    return plan


def _waking_minute(routine: Routine, rng: np.random.Generator) -> int:
    return int(rng.integers(routine.schedule.wake, routine.schedule.sleep))


def _chance_intentions(routine: Routine, midnight: datetime, rng: np.random.Generator
                       ) -> list[Planned]:
    tasks = [t for t, _ in routine.interests]
    weights = np.asarray([w for _, w in routine.interests])
    count = int(rng.poisson(routine.extra))
    picks = rng.choice(len(tasks), size=count, p=weights / weights.sum())
    return [Planned(_at(midnight, _waking_minute(routine, rng), rng), "intention",
                    tasks[int(i)]) for i in picks]


def _follow_ups(routine: Routine, plan: list[Planned], rng: np.random.Generator
                ) -> list[Planned]:
    out = []
    for habit in (h for h in routine.habits if h.trigger.after is not None):
        for planned in plan:
            template = planned.task.split(":")[0] if planned.task else None
            if habit.trigger.after not in (template, _event(template)):
                continue
            if rng.random() < habit.chance:
                gap = int(rng.integers(habit.trigger.start, habit.trigger.end + 1))
                out.append(Planned(planned.time + timedelta(minutes=gap), "intention",
                                   habit.task, habit.name))
    return out


def _event(template: str | None) -> str | None:
    return TEMPLATE_INTENTS[template].event if template in TEMPLATE_INTENTS else None


def _noise(routine: Routine, midnight: datetime, intentions: int,
           rng: np.random.Generator) -> list[Planned]:
    count = int(rng.binomial(intentions, min(1.0, routine.noise)))
    kinds = rng.choice(len(NOISE_KINDS), size=count, p=(0.3, 0.4, 0.3))
    return [Planned(_at(midnight, _waking_minute(routine, rng), rng), NOISE_KINDS[int(k)])
            for k in kinds]


def _spaced(plan: list[Planned]) -> list[Planned]:
    """``plan`` in time order, each start at least :data:`MIN_GAP` after the previous."""
    out: list[Planned] = []
    for item in sorted(plan, key=lambda p: (p.time, p.kind, p.task or "")):
        if out and item.time < out[-1].time + MIN_GAP:
            item = Planned(out[-1].time + MIN_GAP, item.kind, item.task, item.habit)
        out.append(item)
    return out

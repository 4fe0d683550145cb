"""The generator: a user lives through days on one simulated phone; sessions come out.

For each day, :func:`~mobileintent_gym.intents.routine.plan_day` draws the segments from the
user's routine; the user carries each out on the same phone (:mod:`.behaviour`), whose data
carries over from segment to segment and day to day. A gap of at least
:data:`LOCK_AFTER` puts the phone away: the next segment starts on the home
screen at its own time (the phone's clock jumps there; the segment is ``fresh``); after a
shorter gap the user goes on from the screen they left. An intention the judge does not
see achieved is given up: its actions are undone and it is left out (``UserLife.dropped``
counts them). Every intention is judged; its steps get descriptions
(:mod:`.describe`). The same user, days and seed give the same sessions in every process.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

import numpy as np

from mobileintent_gym.checks import check_fraction, check_seed, check_type, is_count, is_integer
from mobileintent_gym.errors import MobileIntentError, brief
from mobileintent_gym.intents.behaviour import Attempt, Hand, Manner, Recorded, wander
from mobileintent_gym.intents.describe import describe
from mobileintent_gym.intents.routine import (
    Habit,
    Planned,
    Routine,
    build_routine,
    plan_day,
    stable_rng,
)
from mobileintent_gym.intents.schema import (
    NOISE_EVENT,
    TIME_FORMAT,
    Context,
    IntentionSegment,
    Session,
    Step,
)
from mobileintent_gym.phone import SimPhone, hierarchy
from mobileintent_gym.phone.state import DATED_DAYS, DEFAULT_CLOCK, PhoneState
from mobileintent_gym.tasks import TaskInstance, instantiate
from mobileintent_gym.users import PairConfig, build_user_content, resolve_profile
from mobileintent_gym.users.pair import profile_fingerprint

FIRST_DAY = date(2026, 3, 2)  # a Monday
LOCK_AFTER = timedelta(minutes=10)  # a gap this long puts the phone away between segments
_NOISE_TEXT = {"idle": "Idle on the home screen without opening an app",
               "accidental": "Opened {app} by accident and left it at once",
               "distractor": "Browsed {app} for a moment without a goal"}


@dataclass(frozen=True)
class GeneratorConfig:
    """How sessions are generated.

    Attributes:
        width: Screen width of the phone.
        height: Screen height of the phone.
        manner: How the users handle the phone.
        pair: How PAIR builds each user's content.
        profiles_dir: Where user profiles are looked up first.
        first_day: The first day generated (a ``datetime`` is taken as its day).
        habits: Extra habits per user id (from KnowU profiles, :mod:`.knowu`): pairs of a
            user id and that user's habits, or a mapping of them; stored as pairs. Habits
            of users that are not generated are not used.
        noise: Noise segments per intention for every user, in [0, 1]: each intention
            brings one with this chance (``None``: each routine's own rate, drawn in
            0.1–0.3).
        interleave: Chance that an intention is interrupted after a few actions by the
            day's next planned segment and resumed after it (0: never; then no draw is
            made and the sessions are those of earlier versions).

    Raises:
        ValueError: For a ``noise`` or ``interleave`` that is no number in [0, 1], a
            ``first_day`` that is no date within :data:`DATED_DAYS`, ``habits`` that are
            not user ids with habits, or a width or height that is no positive integer.
        InvalidArgumentError: For a ``manner`` or ``pair`` of another kind.
    """

    width: int = 1080
    height: int = 2400
    manner: Manner = field(default_factory=Manner)
    pair: PairConfig = field(default_factory=PairConfig)
    profiles_dir: str | None = None
    first_day: date = FIRST_DAY
    habits: tuple[tuple[str, tuple[Habit, ...]], ...] = ()
    noise: float | None = None
    interleave: float = 0.0

    def __post_init__(self) -> None:
        for name, kind, says in (("manner", Manner, "a Manner"), ("pair", PairConfig,
                                                                   "a PairConfig")):
            check_type(f"GeneratorConfig {name}", getattr(self, name), kind, says)
        for name in ("width", "height"):
            if not is_count(getattr(self, name)):
                raise ValueError(f"GeneratorConfig {name} must be a positive integer (pixels), "
                                 f"got {getattr(self, name)!r}")
        if self.noise is not None:  # None: each routine's own rate
            check_fraction("noise", self.noise)
        check_fraction("interleave", self.interleave)
        object.__setattr__(self, "first_day", _day(self.first_day))
        object.__setattr__(self, "habits", _habits(self.habits))


def _day(value: object) -> date:
    """``value`` as a date: a ``datetime`` is its day (days are planned on dates).

    Raises:
        ValueError: For anything that is no date, or a date outside :data:`DATED_DAYS`.
    """
    if isinstance(value, datetime):
        value = value.date()
    if not isinstance(value, date) or not DATED_DAYS[0] <= value <= DATED_DAYS[1]:
        raise ValueError(f"first_day must be a date in {DATED_DAYS[0].year}-"
                         f"{DATED_DAYS[1].year}, got {value!r}")
    return value


def _habits(value: object) -> tuple[tuple[str, tuple[Habit, ...]], ...]:
    """``value`` (pairs of user id and habits, or a mapping) as hashable pairs.

    Raises:
        ValueError: For anything else, naming the entry.
    """
    try:
        pairs = list(value.items() if isinstance(value, Mapping) else value)
        found = tuple((user, tuple(habits)) for user, habits in pairs)
    except (TypeError, ValueError) as err:
        raise ValueError(f"habits must be user ids with their habits, got {brief(value, 200)}"
                         ) from err
    for user, habits in found:
        if not isinstance(user, str):
            raise ValueError(f"habits are keyed by user id (a text), got {brief(user, 200)}")
        bad = next((h for h in habits if not isinstance(h, Habit)), None)
        if bad is not None:
            raise ValueError(f"habits of {user!r} must be Habit objects, got {brief(bad, 200)}")
    return found


def _clock(phone: SimPhone) -> datetime:
    return datetime.strptime(phone.clock, TIME_FORMAT)


class UserLife:
    """One user living day after day on one simulated phone.

    Args:
        user: Profile name or path.
        seed: Seed of the routine and of every day (an integer of at least 0).
        config: Generator settings.

    Raises:
        MobileIntentError: For a seed that is not an integer of at least 0.
    """

    def __init__(self, user: str, seed: int = 0, config: GeneratorConfig | None = None) -> None:
        seed = check_seed(seed)
        self.config = config or GeneratorConfig()
        profile = resolve_profile(user, self.config.profiles_dir)
        self.content = build_user_content(profile, self.config.pair)
        extra = dict(self.config.habits).get(profile.user_id, ())
        self.routine: Routine = build_routine(profile, seed, extra)
        if self.config.noise is not None:
            self.routine = replace(self.routine, noise=self.config.noise)
        self.seed, self.user = seed, profile.user_id
        self.phone = SimPhone(self.config.width, self.config.height)
        self.phone.reset(PhoneState(self._left_the_eve(), datetime.combine(
            self.config.first_day, datetime.min.time())))
        self.apps = {app_id: app.label for app_id, app in self.phone.apps.items()}
        self._tasks: dict[str, TaskInstance] = {}
        self._put_away = True
        self.dropped = 0  # intentions the judge found not achieved, left out
        self.lived = -1  # the last day lived by day()

    def _left_the_eve(self) -> dict[str, Any]:
        """The apps' content as the user left it the day before the first day.

        Content is written as of the default clock; moved to that time of the day before,
        none of it but what is scheduled is dated after the first day begins, whichever day
        that is.
        """
        eve = datetime.combine(self.config.first_day - timedelta(days=1), DEFAULT_CLOCK.time())
        return self.content.state.moved_to(eve, self.phone.apps).apps

    def day(self, index: int) -> Session:
        """Live day ``index`` (from 0) and return its session.

        Raises:
            MobileIntentError: Unless ``index`` is an integer after the last day lived
                (days are lived in order: each starts from the phone the one before left)
                whose date is within :data:`DATED_DAYS`.
        """
        if not is_integer(index) or index <= self.lived:
            raise MobileIntentError(f"day {index!r}: days are lived in order, after day "
                                    f"{self.lived}; give a later one")
        self.date(index)
        self.lived = int(index)
        start = self.phone.state.copy()
        segments = tuple(self.live(index))
        first = segments[0].context if segments else Context.at(
            datetime.combine(self.date(index), datetime.min.time()), "home", "")
        return Session(self.user, first, segments, self.seed, start)

    def date(self, index: int) -> date:
        """The date of day ``index``.

        Raises:
            MobileIntentError: When it is after the last of :data:`DATED_DAYS`.
        """
        last = (DATED_DAYS[1] - self.config.first_day).days
        if index > last:
            raise MobileIntentError(f"day {index!r} is after {DATED_DAYS[1]}, the last day a "
                                    f"life from {self.config.first_day} can reach (day {last})")
        return self.config.first_day + timedelta(days=index)

    def live(self, index: int) -> LivingDay:
        """Live day ``index`` segment by segment, from the phone as it is now.

        Each planned segment is carried out when the iteration asks for the next one, so
        whatever happens to the phone in between (an assistant acting on it) is where the
        user goes on from. The iterator is an object (:class:`LivingDay`), so a day under way
        can be copied or pickled.
        """
        return LivingDay(self, index)

    def _breaks(self, plan: list[Planned], when: date) -> dict[int, int]:
        """Planned intentions interrupted by the next segment → actions taken before that.

        An intention is never interrupted by the same task, nor is the segment that
        interrupts one interrupted in turn.
        """
        if self.config.interleave <= 0 or len(plan) < 2:
            return {}
        rng = stable_rng(self.seed, "interleave", self.user, when.isoformat())
        draws, pauses = rng.random(len(plan)), rng.integers(2, 6, len(plan))
        breaks: dict[int, int] = {}
        for i in range(len(plan) - 1):
            if (plan[i].task is not None and plan[i + 1].task != plan[i].task
                    and i - 1 not in breaks and draws[i] < self.config.interleave):
                breaks[i] = int(pauses[i])
        return breaks

    def _begin(self, planned: datetime) -> tuple[datetime, bool]:
        """When the next segment starts, and whether the phone was put away before it."""
        now = _clock(self.phone)
        start = max(planned, now + timedelta(seconds=30))
        fresh = self._put_away or start - now >= LOCK_AFTER
        if fresh:
            self.phone.reset(PhoneState(self.phone.state.apps, start))
        self._put_away = False
        return start, fresh

    def _pick_up(self, planned: datetime, rng: np.random.Generator
                 ) -> tuple[datetime, bool, Hand, Context]:
        """Begin a segment: its start, freshness, the hand that acts and the context."""
        start, fresh = self._begin(planned)
        hand = Hand(self.phone, rng, self.config.manner)
        hand.wait = int((start - _clock(self.phone)).total_seconds())
        schedule = self.routine.schedule
        return start, fresh, hand, Context.at(start, schedule.place(start), schedule.scene(start))

    def carry_out(self, item: Planned, rng: np.random.Generator) -> IntentionSegment | None:
        """Carry out one planned segment on the phone (``None``: an intention given up)."""
        start, fresh, hand, context = self._pick_up(item.time, rng)
        if item.task is None:
            app = sorted(self.apps)[int(rng.integers(len(self.apps)))]
            wander(hand, item.kind, app)
            label = "Home screen" if item.kind == "idle" else self.apps[app]
            return IntentionSegment(start, label, NOISE_EVENT,
                                    _NOISE_TEXT[item.kind].format(app=label),
                                    self._steps(hand.steps), item.kind, context, fresh=fresh)
        before = self.phone.state.copy()
        attempt = Attempt(hand, self._task(item.task))
        if not attempt.run():
            self._give_up(before, start)
            return None
        return self._segment(attempt, start, context, fresh)

    def _give_up(self, before: PhoneState, start: datetime, count: int = 1) -> None:
        """Undo an intention the judge does not see achieved; ``count`` are left out.

        It may be impossible now (the song already plays): the user gives up, and nothing
        of it is kept.
        """
        self.phone.reset(PhoneState(before.apps, start))
        self._put_away, self.dropped = True, self.dropped + count

    def _segment(self, attempt: Attempt, start: datetime, context: Context, fresh: bool,
                 part: int = 0) -> IntentionSegment:
        task = attempt.task
        steps = self._steps(attempt.hand.steps)
        return IntentionSegment(start, self.apps[task.template.app],
                                task.template.intent.event, intention_text(task),
                                steps, "intention", context, task.id,
                                None if part == 1 else attempt.decided is not None, fresh, part)

    def _interleaved(self, item: Planned, other: Planned, pause: int,
                     rng: np.random.Generator) -> list[IntentionSegment]:
        """``item`` interrupted after ``pause`` actions by ``other``, then resumed.

        An intention done (or given up) before the pause is not interrupted. When the
        resumed intention is given up, both are undone and left out.
        """
        start, fresh, hand, context = self._pick_up(item.time, rng)
        before = self.phone.state.copy()
        attempt = Attempt(hand, self._task(item.task))
        attempt.run(pause)
        if not attempt.paused:  # done or given up before the pause: no interruption
            if attempt.gave_up:
                self._give_up(before, start)
            done = [] if attempt.gave_up else [self._segment(attempt, start, context, fresh)]
            return [*done, *filter(None, [self.carry_out(other, rng)])]
        first = self._segment(attempt, start, context, fresh, part=1)
        now = _clock(self.phone)
        between = self.carry_out(Planned(now, other.kind, other.task, other.habit), rng)
        start, fresh, hand, context = self._pick_up(_clock(self.phone), rng)
        attempt.resume(hand)
        if not attempt.run():
            self._give_up(before, first.time, 1 + (between is not None and not between.is_noise))
            return []
        rest = self._segment(attempt, start, context, fresh, part=2)
        return [first, *filter(None, [between]), rest]

    def finish_by_hand(self, task_id: str, rng: np.random.Generator) -> IntentionSegment:
        """The user carries out ``task_id`` from the screen the phone shows now.

        Used after an assistant took the phone and failed the intention: the user finishes
        it by hand (a segment with ``part`` 2, as a resumed intention). Nothing is undone
        when the user fails too; the segment's ``success`` says whether they did not.
        """
        start, fresh, hand, context = self._pick_up(_clock(self.phone), rng)
        attempt = Attempt(hand, self._task(task_id))
        attempt.run()
        return self._segment(attempt, start, context, fresh, part=2)

    def _task(self, task_id: str) -> TaskInstance:
        if task_id not in self._tasks:
            self._tasks[task_id] = instantiate(task_id, self.content)
        return self._tasks[task_id]

    def _steps(self, recorded: list[Recorded]) -> tuple[Step, ...]:
        return tuple(Step(rec.event.action, describe(rec.event, hierarchy.parse(rec.before),
                                                     hierarchy.parse(rec.after), self.apps),
                          None, rec.event) for rec in recorded)

    def close(self) -> None:
        """Release the phone."""
        self.phone.close()


class LivingDay:
    """The segments of one day of a :class:`UserLife`, each lived when it is asked for.

    Args:
        life: The life whose phone the day is lived on.
        index: The day's index (from 0).
    """

    def __init__(self, life: UserLife, index: int) -> None:
        when = life.date(index)
        self.life, self.plan = life, plan_day(life.routine, when, life.seed)
        self._rng = stable_rng(life.seed, "behaviour", life.user, when.isoformat())
        self._breaks = life._breaks(self.plan, when)
        self._next = 0  # the next planned segment
        self._lived: deque[IntentionSegment] = deque()  # lived, not handed out yet
        life._put_away = True  # overnight

    def __iter__(self) -> LivingDay:
        return self

    def __next__(self) -> IntentionSegment:
        """The next segment, lived now.

        After an error the day is over: the phone and the draws are where the failed
        segment left them.
        """
        try:
            return self._advance()
        except BaseException:
            self._next = len(self.plan)
            self._lived.clear()
            raise

    def _advance(self) -> IntentionSegment:
        while not self._lived:
            i = self._next
            if i >= len(self.plan):
                raise StopIteration
            if i in self._breaks:  # interrupted by the next one, then resumed
                self._lived.extend(self.life._interleaved(self.plan[i], self.plan[i + 1],
                                                          self._breaks[i], self._rng))
                self._next += 2
            else:
                segment = self.life.carry_out(self.plan[i], self._rng)
                self._lived.extend(() if segment is None else (segment,))
                self._next += 1
        return self._lived.popleft()


def intention_text(task: TaskInstance) -> str:
    """The intention behind ``task`` in the study's style: app, operation and purpose."""
    return f"{task.instruction.rstrip('.')} {task.template.intent.purpose}."


def generate_sessions(user: str, days: int, seed: int = 0,
                      config: GeneratorConfig | None = None) -> list[Session]:
    """``days`` consecutive sessions of ``user`` on one phone.

    Raises:
        ValueError: When ``days`` is no integer of at least 0.
        MobileIntentError: When the last day would be after the last of
            :data:`DATED_DAYS` (before any day is lived).
    """
    if not is_count(days, least=0):
        raise ValueError(f"days must be an integer >= 0, got {days!r}")
    life = UserLife(user, seed, config)
    try:
        if days:
            life.date(days - 1)
        return [life.day(i) for i in range(days)]
    finally:
        life.close()


def cached_sessions(user: str, days: int, seed: int = 0,
                    config: GeneratorConfig | None = None) -> tuple[Session, ...]:
    """:func:`generate_sessions`, kept for this process (the envs' data set).

    Kept by the profile's content, not by how ``user`` is written: a profile edited since
    (or another file at a relative path after a change of folder) is lived anew, and one
    profile given by name and by path is lived once.
    """
    return _kept_sessions(_Lived(profile_key(user, config), user), days, seed, config)


def profile_key(user: str, config: GeneratorConfig | None = None) -> str:
    """What a user's days are kept by: their profile's content (see :func:`cached_sessions`).

    What an env keeps per user beside those days is kept by it too, so that both change
    together when the profile does.
    """
    return profile_fingerprint(resolve_profile(user, config.profiles_dir if config else None))


@dataclass(frozen=True)
class _Lived:
    """A user as :func:`cached_sessions` keeps their days: by their profile's content."""

    fingerprint: str
    user: str = field(compare=False)  # how to find the profile


@functools.lru_cache(maxsize=64)
def _kept_sessions(lived: _Lived, days: int, seed: int, config: GeneratorConfig | None
                   ) -> tuple[Session, ...]:
    return tuple(generate_sessions(lived.user, days, seed, config))

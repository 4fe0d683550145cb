"""A user's day lived action by action on a shown phone: the Assist env's simulated user.

The user's life (:class:`~mobileintent_gym.intents.generator.UserLife`) carries out each
planned segment on its own phone when the previous one is over; the segment's actions are
then taken again, one per call of :meth:`LivedDay.user_acts`, on the shown phone (a
:class:`~mobileintent_gym.envs.tape.TapedPhone`), so an assistant sees each screen before
the user acts on it. When the assistant takes over, it acts on the shown phone; when it
gives the phone back, the life's phone is brought to the same screen and data
(:meth:`TapedPhone.copy_to`) and the life goes on from there: the next planned segment
starts from whatever the assistant left. After a failed execution the user first finishes
the intention by hand.
"""

from __future__ import annotations

from datetime import datetime

from mobileintent_gym.envs.tape import TapedPhone
from mobileintent_gym.intents.generator import UserLife
from mobileintent_gym.intents.routine import stable_rng
from mobileintent_gym.intents.schema import TIME_FORMAT, IntentionSegment, Step
from mobileintent_gym.metrics.assist import SegmentOutcome
from mobileintent_gym.phone.state import PhoneState


class LivedDay:
    """One day of one user, lived action by action on ``view``.

    Args:
        life: The user's life (its phone is reset to ``start``).
        index: The day's index among the life's days.
        start: The phone's state when the day begins (a generated session's start).
        view: The phone the user's actions are shown on.
        seed: Seed of the user's actions when finishing an intention by hand.
    """

    def __init__(self, life: UserLife, index: int, start: PhoneState, view: TapedPhone,
                 seed: int) -> None:
        self.life, self.view, self.index, self.seed = life, view, index, seed
        life.phone.reset(start)
        view.reset(start)
        self._day = life.live(index)
        self.outcomes: list[SegmentOutcome] = []
        self.segment: IntentionSegment | None = None  # the planned segment under way
        self.number = -1  # its index among the day's segments
        self._steps: tuple[Step, ...] = ()  # the actions the user is taking now
        self._next, self._taken = 0, 0
        self._executed: bool | None = None
        self._finishing: IntentionSegment | None = None
        self._move_on()

    @property
    def over(self) -> bool:
        """Whether the day has ended."""
        return self.segment is None

    def intention(self) -> IntentionSegment | None:
        """The intention the user would hand over now.

        ``None`` on noise, at the day's end and while they finish by hand what an
        assistant failed.
        """
        segment = self.segment
        if segment is None or segment.is_noise or self._finishing is not None:
            return None
        return segment

    @property
    def next_step(self) -> Step | None:
        """The action the user takes next (``None`` once the day is over)."""
        return None if self.over else self._steps[self._next]

    def user_acts(self) -> Step:
        """The user takes their next action on the shown phone; returns it."""
        step = self.next_step
        at = datetime.strptime(step.event.clock, TIME_FORMAT)
        now = datetime.strptime(self.view.clock, TIME_FORMAT)
        self.view.seconds_per_action = (at - now).total_seconds()
        self.view.act(step.action)
        self._next, self._taken = self._next + 1, self._taken + 1
        self._move_on()
        return step

    def take_back(self, success: bool) -> None:
        """The assistant gives the phone back after executing the current intention.

        On success the intention is over; otherwise the user finishes it by hand.
        """
        self.view.copy_to(self.life.phone)
        self._executed = success
        if success:
            self._next = len(self._steps)
        else:
            rng = stable_rng(self.seed, "finish", self.life.user, str(self.index),
                             str(self.number))
            self._finishing = self.life.finish_by_hand(self.segment.task, rng)
            self._steps, self._next = self._finishing.steps, 0
        self._move_on()

    def _move_on(self) -> None:
        """Close the segment whose actions are all taken and begin the next one(s)."""
        while self.segment is None or self._next >= len(self._steps):
            if self.segment is not None:
                self.outcomes.append(self._outcome())
            self.segment = next(self._day, None)
            if self.segment is None:
                return
            self._begin(self.segment)

    def _begin(self, segment: IntentionSegment) -> None:
        if segment.fresh:  # the phone was taken up: home screen, the segment's time
            self.view.reset(PhoneState(self.view.state.apps, segment.time))
        self.number += 1
        self._steps, self._next, self._taken = segment.steps, 0, 0
        self._executed, self._finishing = None, None

    def _outcome(self) -> SegmentOutcome:
        segment = self.segment
        if segment.is_noise:
            return SegmentOutcome(False, len(segment.steps), self._taken)
        done = self._executed or (self._finishing.success if self._finishing else
                                  bool(segment.success))
        return SegmentOutcome(True, len(segment.steps), self._taken, self._executed, done)

"""Carrying out a generated session again on a phone, step by step (:func:`replay`).

The iterator is an object, not a generator, so an env that replays a session for its
screens (Proactive, Assist) can be copied or pickled mid-episode.
"""

from __future__ import annotations

from datetime import datetime

from mobileintent_gym.intents.schema import TIME_FORMAT, IntentionSegment, Session, Step
from mobileintent_gym.phone import SimPhone
from mobileintent_gym.phone.state import PhoneState


class Replay:
    """Iterator over a session's ``(segment, step)`` pairs, acting each on the phone.

    The phone shows the screen each step was taken on when its pair is returned (take
    ``phone.screenshot()`` then); the step is carried out when the next pair is asked
    for, so the screen after a step is the next step's screen, or the phone's when the
    iteration ends.

    Args:
        session: A generated session (with its start state and step events).
        phone: The phone to replay it on (of the size it was generated at).

    Raises:
        ValueError: For a session without a start state (loaded data), or, while
            iterating, a step without an event or one that lands elsewhere than it did (a
            phone of another screen size): its screens would not be the session's.
    """

    def __init__(self, session: Session, phone: SimPhone) -> None:
        if session.start is None:
            raise ValueError(f"session of {session.user!r} on {session.context.date} has no "
                             "start state to replay from (it was loaded, not generated)")
        self.session, self.phone = session, phone
        self._previous = session.start.clock
        self._segment, self._step, self._entered = 0, 0, False
        self._pending: tuple[Step, datetime] | None = None  # returned, not carried out yet

    def __iter__(self) -> Replay:
        return self

    def __next__(self) -> tuple[IntentionSegment, Step]:
        """The next pair, once the one before was carried out.

        After an error the replay is over, as a generator's would be: the phone no longer
        shows the session, so nothing more is carried out on it.
        """
        try:
            return self._advance()
        except BaseException:
            self._pending, self._segment = None, len(self.session.segments)
            raise

    def _advance(self) -> tuple[IntentionSegment, Step]:
        if self._pending is not None:
            self._act(*self._pending)
            self._pending = None
        segments = self.session.segments
        while self._segment < len(segments):
            segment = segments[self._segment]
            if not self._entered:
                self._enter(segment)
            if self._step < len(segment.steps):
                step = segment.steps[self._step]
                self._step += 1
                if step.event is None:
                    raise ValueError(f"step {step.action!r} of {segment.intention!r} has no "
                                     "event")
                self._check(self.phone.route(), step.event.route_before, step)
                self._pending = (step, datetime.strptime(step.event.clock, TIME_FORMAT))
                return segment, step
            self._segment, self._step, self._entered = self._segment + 1, 0, False
        raise StopIteration

    def _enter(self, segment: IntentionSegment) -> None:
        """Begin a segment: a fresh one starts from the phone put away at its time."""
        self._entered = True
        if segment.fresh:
            first = segment is self.session.segments[0]
            apps = self.session.start.apps if first else self.phone.state.apps
            self.phone.reset(PhoneState(apps, segment.time))
            self._previous = segment.time

    def _act(self, step: Step, at: datetime) -> None:
        """Carry out a returned step at the pace that brings the clock to its time."""
        self.phone.seconds_per_action = (at - self._previous).total_seconds()
        self._check(self.phone.act(step.action).event.route_after, step.event.route_after, step)
        self._previous = at

    def _check(self, route: str, recorded: str, step: Step) -> None:
        """Refuse a replayed step whose screen is not the recorded one."""
        if route != recorded:
            session = self.session
            raise ValueError(f"replaying {session.user!r} on {session.context.date}: "
                             f"{step.action!r} went with {recorded!r}, the phone shows "
                             f"{route!r} (is it of the size the session was generated at?)")


def replay(session: Session, phone: SimPhone) -> Replay:
    """Carry out a generated session again on ``phone`` (see :class:`Replay`).

    Raises:
        ValueError: For a session without a start state (loaded data).
    """
    return Replay(session, phone)

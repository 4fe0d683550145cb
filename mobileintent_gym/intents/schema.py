"""Sessions and intention segments: a user's continuous use of one phone on one day.

A :class:`Session` holds the day's context and its ordered :class:`IntentionSegment` s.
A segment is either an **intention** (one self-contained objective carried out in one app:
the task instance behind it, its steps and the judge's verdict) or labelled **noise**
(``idle`` on the home screen, an ``accidental`` open, ``distractor`` browsing). An
**interleaved** intention is left unfinished for another segment and resumed after it: it
comes as two segments with the same intention, ``part`` 1 and ``part`` 2. Each step
keeps its action, its action description and, for generated sessions, the event the phone
logged; screens are rendered on demand by replaying the session
(:func:`mobileintent_gym.intents.replay`) or written as PNG files by the exporter.

Sessions loaded from Act2Intention or KnowU files use the same types with what those files
hold (no task, no events).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from mobileintent_gym.phone.state import weekday_name

if TYPE_CHECKING:
    from mobileintent_gym.phone.events import StepEvent
    from mobileintent_gym.phone.state import PhoneState

SegmentKind = Literal["intention", "idle", "accidental", "distractor"]
NOISE_KINDS: tuple[SegmentKind, ...] = ("idle", "accidental", "distractor")
SEGMENT_KINDS: tuple[SegmentKind, ...] = ("intention", *NOISE_KINDS)
NOISE_EVENT = "Noise"  # the event column of a noise segment in exported files
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


@dataclass(frozen=True, slots=True)
class Context:
    """Where and when something happens.

    Attributes:
        date: ``YYYY-MM-DD``.
        weekday: ``Monday`` … ``Sunday``.
        time: ``HH:MM``.
        place: ``home``, ``work``, ``commute``, ``out`` (or a loaded file's location).
        scene: A few words on the situation (``weekday morning at home``).
    """

    date: str
    weekday: str
    time: str
    place: str
    scene: str

    @classmethod
    def at(cls, when: datetime, place: str, scene: str) -> Context:
        """The context at ``when``."""
        return cls(when.strftime("%Y-%m-%d"), weekday_name(when), when.strftime("%H:%M"),
                   place, scene)


@dataclass(frozen=True, slots=True)
class Step:
    """One action of a segment.

    Attributes:
        action: The action in the Act2Intention format (``CLICK[540,1123]``).
        description: ``"[On/In] <App>, <action details>, to <purpose>"``.
        image_path: The screenshot the action was taken on, relative to the export folder.
        event: What the phone logged for it (generated sessions only).
    """

    action: str
    description: str
    image_path: str | None = None
    event: StepEvent | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class IntentionSegment:
    """One intention (or one stretch of noise) of a session.

    Attributes:
        time: When it began.
        app: Display name of its app (``Music``; ``Home screen`` for idle noise).
        event: Its event class (:data:`NOISE_EVENT` for noise).
        intention: The objective in words (for noise, what the user did without one).
        steps: Its actions in order.
        kind: ``intention`` or a noise kind.
        context: Place and scene when it began.
        task: Id of the task instance behind an intention (generated sessions).
        success: The task judge's verdict on the steps (``None`` for noise and loaded data).
        fresh: It began on the home screen of a phone just taken up, whose clock then
            jumped to ``time`` (generated sessions; the other segments go on from the
            screen the previous one left).
        part: 0 for an intention carried out in one go; 1 for the first part of an
            interleaved intention, left unfinished for another segment (its ``success`` is
            ``None``); 2 for the part that resumes it (and carries the verdict).
    """

    time: datetime
    app: str
    event: str
    intention: str
    steps: tuple[Step, ...] = ()
    kind: SegmentKind = "intention"
    context: Context | None = None
    task: str | None = None
    success: bool | None = None
    fresh: bool = False
    part: int = 0

    @property
    def is_noise(self) -> bool:
        """Whether the segment is noise rather than an intention."""
        return self.kind != "intention"

    @property
    def ends_intention(self) -> bool:
        """Whether an intention ends here: not noise, nor a first part left unfinished.

        Counting these counts each intention once.
        """
        return not self.is_noise and self.part != 1


@dataclass(frozen=True, slots=True)
class Session:
    """One user's use of one phone on one day.

    Attributes:
        user: The user's id.
        context: Date, weekday and the place and scene at the first segment.
        segments: Segments in time order; phone state carries over from one to the next.
        seed: The seed it was generated from (``None`` for loaded data).
        start: The phone state it started from (generated sessions; used to replay it).
    """

    user: str
    context: Context
    segments: tuple[IntentionSegment, ...]
    seed: int | None = None
    start: PhoneState | None = field(default=None, compare=False, repr=False)

    def intentions(self) -> tuple[IntentionSegment, ...]:
        """The intention segments, noise left out."""
        return tuple(s for s in self.segments if not s.is_noise)

    def done(self) -> tuple[IntentionSegment, ...]:
        """Each intention once, where it ended: noise and unfinished first parts left out."""
        return tuple(s for s in self.segments if s.ends_intention)

    def whole(self) -> tuple[IntentionSegment, ...]:
        """:meth:`done`, an interrupted intention's second part holding all its steps.

        Those of its first part come first, then its own, which start where the
        interruption left the phone (its steps back to the app included).
        """
        firsts: dict[str | None, IntentionSegment] = {}
        whole = []
        for segment in self.segments:
            if segment.part == 1:
                firsts[segment.task] = segment
            elif segment.ends_intention:
                first = firsts.pop(segment.task, None) if segment.part == 2 else None
                whole.append(segment if first is None else
                             replace(segment, steps=first.steps + segment.steps))
        return tuple(whole)

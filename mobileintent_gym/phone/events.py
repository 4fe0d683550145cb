"""What the phone records of each step: the event log entry and the result of an action."""

from __future__ import annotations

from dataclasses import dataclass

from mobileintent_gym.phone.ui import Rect
from mobileintent_gym.pickling import fast_state


@fast_state  # sent with each step's info by a vector env's workers
@dataclass(frozen=True, slots=True)
class Hit:
    """The element an action landed on, as a device would expose it.

    Attributes:
        resource_id: Its resource id (may be empty).
        cls: Its Android class name.
        text: Its text or, failing that, its content description.
        bounds: Its visible bounds.
        entity: The id of the record it shows (a track, chat, post …), if any.
        texts: Every text and content description in its subtree, in tree order (what a
            row container shows through its children; used where a device gives no ids).
    """

    resource_id: str
    cls: str
    text: str
    bounds: Rect
    entity: str | None
    texts: tuple[str, ...] = ()


@fast_state  # sent with each step's info by a vector env's workers
@dataclass(frozen=True, slots=True)
class StepEvent:
    """One entry of the per-step event log.

    Attributes:
        index: Position in the log, from 0.
        action: The action in its canonical string format.
        route_before: Route of the screen the action was taken on (the observed screen).
        route_after: Route after the action.
        hit: The element hit by a click or long click, if any.
        visible: Entity ids visible on the observed screen, top to bottom (target exposure).
        visible_after: Entity ids visible after the action.
        typed: Text that reached a field (TYPE or keyboard taps), if any.
        effect: Whether the action changed anything.
        note: Why an action had no effect, or what it did, in a few words.
        clock: Simulated wall-clock time of the action, ``YYYY-MM-DD HH:MM:SS``.
        record: Id of the record the observed screen is about (a conversation, a playlist,
            the track a menu is for), if any (:func:`~mobileintent_gym.phone.touch.screen_record`).
        record_after: Id of the record the screen after the action is about, if any.
    """

    index: int
    action: str
    route_before: str
    route_after: str
    hit: Hit | None
    visible: tuple[str, ...]
    visible_after: tuple[str, ...]
    typed: str | None
    effect: bool
    note: str
    clock: str
    record: str | None = None
    record_after: str | None = None


@dataclass(frozen=True, slots=True)
class ActResult:
    """What :meth:`SimPhone.act` returns.

    Attributes:
        effect: Whether the action changed the phone's state or screen.
        note: Why nothing happened (e.g. ``"no focused field"``) or what did.
        event: The event logged for the action.
    """

    effect: bool
    note: str
    event: StepEvent

    @property
    def route(self) -> str:
        """The route after the action."""
        return self.event.route_after

"""How a simulated person carries out an intention: like a person, not like the oracle.

The user follows the task's scripted route (:class:`~mobileintent_gym.tasks.Oracle`) from
wherever the phone is — going home and tapping the app's icon when another app is in front,
backing out of a screen an earlier intention left open to one the task starts from — with
seeded slips (:class:`Manner`): a detour to another element and BACK, a scroll that
overshoots and comes back, BACK right after a correct tap and the tap again, a typing slip
deleted with the keyboard's delete key and retyped, and pauses between actions (the phone's
clock advances by each pause). Looking for something further down a list, the user scrolls
on and back up once the end is reached; after :attr:`Manner.patience` actions in a row that
change nothing, they give up. Every intention is judged from the phone's event log by the
task's :class:`~mobileintent_gym.tasks.Judge`; success is never assumed. Noise segments
(idle, accidental opens, distractor browsing) are carried out the same way, without a goal.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from mobileintent_gym.actions import Action, ActionType
from mobileintent_gym.checks import check_fraction, positive_integer
from mobileintent_gym.errors import MobileIntentError
from mobileintent_gym.intents.describe import LAUNCHER, app_of
from mobileintent_gym.phone import SimPhone, chrome, hierarchy, keyboard, launcher
from mobileintent_gym.phone.events import StepEvent
from mobileintent_gym.phone.query import rid_suffix
from mobileintent_gym.phone.touch import takes_touch
from mobileintent_gym.phone.ui import Node, center
from mobileintent_gym.tasks import Judge, Oracle, TaskInstance

_MOST_TO_OPEN = 12  # actions a noise segment takes to open its app, at most
_BASE_PAUSE = {ActionType.CLICK: 2.5, ActionType.LONG_CLICK: 3.0, ActionType.SWIPE: 1.8,
               ActionType.PRESS: 1.5, ActionType.TYPE: 1.0, ActionType.COMPLETE: 1.0}


@dataclass(frozen=True, slots=True)
class Manner:
    """How a person handles the phone: chances per opportunity, and patience.

    Attributes:
        detour: Before a step on a plain screen, tap another element (then BACK if it
            opened a screen, or the same element again if it changed the app's data in
            place: a like, a tick).
        overshoot: After a scroll, scroll once more and come back.
        retry: After a tap that opened a screen, go BACK and tap again.
        typo: A typed text has a slip, deleted with the keyboard and retyped.
        long_pause: A step is preceded by a long pause (8–40 s) instead of a short one.
        max_steps: The intention fails after this many steps; slips stop halfway.
        patience: The user gives up after this many actions in a row change nothing.
    """

    detour: float = 0.08
    overshoot: float = 0.35
    retry: float = 0.05
    typo: float = 0.3
    long_pause: float = 0.05
    max_steps: int = 60
    patience: int = 6

    def __post_init__(self) -> None:
        for name in ("detour", "overshoot", "retry", "typo", "long_pause"):
            check_fraction(f"Manner {name}", getattr(self, name))
        for name in ("max_steps", "patience"):
            positive_integer(f"Manner {name}", getattr(self, name))


@dataclass(frozen=True, slots=True)
class Recorded:
    """One action as the user took it, with the dumps of the screens before and after."""

    event: StepEvent
    before: str
    after: str


class Hand:
    """A person's hand on a simulated phone: takes actions after human pauses.

    Args:
        phone: The phone (its clock advances by each pause).
        rng: Source of every choice.
        manner: How the person handles the phone.
    """

    def __init__(self, phone: SimPhone, rng: np.random.Generator, manner: Manner) -> None:
        self.phone, self.rng, self.manner = phone, rng, manner
        self.steps: list[Recorded] = []
        self.wait = 0  # seconds that pass before the next action, on top of its pause

    def take(self, action: Action) -> StepEvent:
        """Take ``action`` after a pause and record it."""
        before = self.phone.hierarchy()
        self.phone.seconds_per_action = self.wait + self._pause(action)
        self.wait = 0
        event = self.phone.act(action).event
        self.steps.append(Recorded(event, before, self.phone.hierarchy()))
        return event

    def _pause(self, action: Action) -> int:
        base = _BASE_PAUSE[action.type] + (0.3 * len(action.text or ""))
        pause = self.rng.lognormal(np.log(base), 0.4)
        if self.rng.random() < self.manner.long_pause:
            pause += self.rng.uniform(8, 40)
        return max(1, round(pause))

    def screen(self) -> Node:
        """The screen in front, parsed."""
        return hierarchy.parse(self.phone.hierarchy())

    def open_app(self, app_id: str) -> Action:
        """The next action towards ``app_id``: HOME from elsewhere, its icon on the home screen.

        Where the icon does not show, HOME closes a search someone left open (an
        assistant, say), and a swipe turns to the page that holds it (the launcher shows
        the apps in the order they were installed).

        Raises:
            MobileIntentError: When the launcher shows no page with the app's icon.
        """
        if self.phone.route() != LAUNCHER:
            return Action.press("HOME")
        screen, apps = self.screen(), list(self.phone.apps.values())
        icons = {n.desc: n for n in screen.walk() if rid_suffix(n.resource_id) == launcher.ICON}
        wanted = self.phone.apps[app_id]
        if wanted.label in icons:
            return Action.click(*center(icons[wanted.label].bounds))
        search = next(n for n in screen.walk() if rid_suffix(n.resource_id) == launcher.SEARCH)
        if search.focused or search.text != launcher.SEARCH_HINT:
            return Action.press("HOME")
        shown = [i for i, app in enumerate(apps) if app.label in icons]
        target = apps.index(wanted)
        if shown and not min(shown) <= target <= max(shown):
            return Action.swipe("LEFT" if target > max(shown) else "RIGHT")
        raise MobileIntentError(f"the launcher shows no icon of {app_id!r}")

    def touchables(self, exclude: tuple[int, int] | None = None) -> list[Node]:
        """Elements of a plain screen (no sheet or dialog) a tap would act on."""
        root = self.screen()
        if len(root.children) != 1:
            return []
        return [n for n in root.walk() if takes_touch(n) and n.bounds[2] > n.bounds[0]
                and (exclude is None or center(n.bounds) != exclude)]


class Attempt:
    """One person carrying out one task instance on the phone in their hand.

    Args:
        hand: The hand (and phone) to use.
        task: The task instance behind the intention.
    """

    def __init__(self, hand: Hand, task: TaskInstance) -> None:
        self.hand, self.task = hand, task
        self.judge, self.oracle = Judge(task), Oracle(task)
        self.decided: int | None = None  # index in hand.steps of the deciding step
        self.judge.start(hand.phone.route(), hand.screen)
        self._keyboard = False
        self._started = False  # reached a screen the task starts from
        self._search = ("", "UP")  # (screen, direction) to scroll when looking for the target
        self._idle = 0  # actions in a row that changed nothing
        self.gave_up = False  # the last run ended for lack of patience or steps

    def run(self, pause_after: int | None = None) -> bool:
        """Act until the judge sees the task done or patience runs out; the verdict.

        With ``pause_after`` the user stops after that many more actions, task undone and
        patience left (:attr:`paused`), to go on later with :meth:`resume`.
        """
        start = len(self.hand.steps)
        limit = self.hand.manner.max_steps
        self.gave_up = False
        while self.decided is None:
            taken = len(self.hand.steps) - start
            if taken >= limit or self._idle >= self.hand.manner.patience:
                self.gave_up = True
                break
            if pause_after is not None and taken >= pause_after:
                break
            self._next(taken < limit // 2)
        return self.decided is not None

    @property
    def paused(self) -> bool:
        """Whether the last :meth:`run` stopped for a pause, neither done nor given up."""
        return self.decided is None and not self.gave_up

    def resume(self, hand: Hand) -> None:
        """Go on with a paused attempt from the screen the phone shows now.

        Its further steps are recorded in ``hand``.
        """
        self.hand, self._idle, self._keyboard = hand, 0, False
        self.judge.start(hand.phone.route(), hand.screen)

    def do(self, action: Action) -> StepEvent:
        """Take one action and judge it."""
        event = self.hand.take(action)
        if self.judge.update(event, self.hand.screen).success and self.decided is None:
            self.decided = len(self.hand.steps) - 1
        self._idle = 0 if event.effect else self._idle + 1
        # The keyboard is surely up right after a tap focused a field on the same screen.
        self._keyboard = (event.hit is not None and event.hit.cls.endswith("EditText")
                          and event.route_after == event.route_before)
        return event

    def _chance(self, name: str, slips: bool) -> bool:
        return slips and self.hand.rng.random() < getattr(self.hand.manner, name)

    def _next(self, slips: bool) -> None:
        phone, app = self.hand.phone, self.task.template.app
        route = phone.route()
        if app_of(route) != app:
            self.do(self.hand.open_app(app))
            return
        # A screen left from an earlier intention may show another record: back out to a
        # screen the task starts from first (the app's home, after leaving it).
        self._started = self._started or route in self.task.template.subgoals[0].screens
        if not self._started:
            self.do(Action.press("BACK"))
            return
        action = self.oracle.act(route, phone.hierarchy())
        if action.type is ActionType.COMPLETE:
            action = Action.press("BACK")  # people do not declare; they look elsewhere
        if action == Action.swipe("UP"):  # the oracle's "the target lies further down"
            self._scroll(route, slips)
            return
        if action.type is ActionType.CLICK and self._chance("detour", slips):
            self._detour((action.x, action.y))
        elif action.type is ActionType.TYPE and self._keyboard and self._chance("typo", slips):
            self._slip(action.text)
        else:
            event = self.do(action)
            self._after(action, event, slips)

    def _scroll(self, route: str, slips: bool) -> None:
        """Look further for the target: down the list, back up once its end is reached."""
        direction = self._search[1] if self._search[0] == route else "UP"
        back = "DOWN" if direction == "UP" else "UP"
        event = self.do(Action.swipe(direction))
        self._search = (route, direction if event.effect else back)
        if (event.effect and self.decided is None and self._chance("overshoot", slips)
                and self.do(Action.swipe(direction)).effect):
            self.do(Action.swipe(back))

    def _after(self, action: Action, event: StepEvent, slips: bool) -> None:
        if self.decided is not None:
            return
        if (action.type is ActionType.CLICK and event.route_after != event.route_before
              and self._chance("retry", slips)):
            self.do(Action.press("BACK"))

    def _detour(self, planned: tuple[int, int]) -> None:
        options = self.hand.touchables(exclude=planned)
        if not options:
            return
        node = options[int(self.hand.rng.integers(len(options)))]
        data = dict(self.hand.phone.state.apps)
        tap = Action.click(*center(node.bounds))
        event = self.do(tap)
        if self.decided is not None:
            return
        if event.route_after != event.route_before:
            if app_of(event.route_after) == self.task.template.app:
                self.do(Action.press("BACK"))
        elif self.hand.phone.state.apps != data:  # a tick it changed in place: tapped back
            self.do(tap)

    def _slip(self, text: str) -> None:
        cut = int(self.hand.rng.integers(0, len(text)))
        self.do(Action.type_text(text[:cut] + _neighbour(text[cut])))
        self.do(Action.click(*delete_key(self.hand.phone)))
        self.do(Action.type_text(text[cut:]))


def _neighbour(char: str) -> str:
    """A key next to ``char`` on the keyboard (what a slipping finger types instead)."""
    for row in keyboard.ROWS[keyboard.LOWER][:3]:
        i = row.find(char.lower())
        if i >= 0:
            return row[i + 1] if i + 1 < len(row) and row[i + 1].isalpha() else row[i - 1]
    return "e"


@cache
def _delete_key(width: int, height: int, density: float) -> tuple[int, int]:
    nav = chrome.bar_heights(density)[1]
    board = keyboard.layout(width, height - nav, density)
    return next(center(rect) for rect, char in board.keys if char == keyboard.BACKSPACE)


def delete_key(phone: SimPhone) -> tuple[int, int]:
    """Where the keyboard's delete key is on ``phone``'s screen."""
    return _delete_key(phone.width, phone.height, phone.density)


def wander(hand: Hand, kind: str, app_id: str) -> None:
    """Carry out a noise segment of ``kind`` (``idle``, ``accidental``, ``distractor``)."""
    rng = hand.rng
    if hand.phone.route() != LAUNCHER:
        hand.take(Action.press("HOME"))
    if kind == "idle":
        for _ in range(int(rng.integers(1, 3))):
            hand.take(Action.swipe("UP" if rng.random() < 0.5 else "DOWN"))
        return
    for _ in range(_MOST_TO_OPEN):
        if app_of(hand.phone.route()) == app_id:
            break
        hand.take(hand.open_app(app_id))
    if kind == "distractor":
        for _ in range(int(rng.integers(2, 5))):
            hand.take(Action.swipe("UP" if rng.random() < 0.75 else "DOWN"))
        options = hand.touchables()
        if options and rng.random() < 0.5:
            node = options[int(rng.integers(len(options)))]
            if hand.take(Action.click(*center(node.bounds))).route_after != LAUNCHER:
                hand.take(Action.press("BACK"))
    if hand.phone.route() != LAUNCHER:
        hand.take(Action.press("HOME"))

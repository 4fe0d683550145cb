"""SimPhone: a simulated Android phone that agents drive like a real device.

The phone keeps one back stack per app (Android tasks, :mod:`.backstack`), routes touches to
the deepest view under the finger, shows a keyboard while a text field is focused, scrolls
the container under a swipe, advances a simulated clock per action and logs every action.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterable
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from mobileintent_gym.actions import Action, ActionLike, ActionType, to_action
from mobileintent_gym.checks import is_count, is_finite, is_integer
from mobileintent_gym.errors import (
    AppActionError,
    DeviceError,
    InvalidActionError,
    InvalidStateError,
    UnknownRouteError,
    raised_at,
)
from mobileintent_gym.phone import chrome, fields, launcher, touch
from mobileintent_gym.phone.app import App, Installable, install
from mobileintent_gym.phone.backstack import BackStacks, Nav
from mobileintent_gym.phone.events import ActResult, Hit, StepEvent
from mobileintent_gym.phone.lru import LRU
from mobileintent_gym.phone.render import TILE_BUDGET, Renderer
from mobileintent_gym.phone.state import DATED_DAYS, PhoneState
from mobileintent_gym.phone.ui import Intent, center
from mobileintent_gym.phone.view import Layer, View

MIN_WIDTH, MIN_HEIGHT, MAX_SIDE = 320, 480, 3840
MIN_ASPECT = 1.5  # height / width: a portrait phone, as tall as 320x480 or taller
MAX_PACE = 10_000 * 366 * 86_400
"""The most seconds an action may move the clock, either way: the calendar's span."""
# The layout's reference screen in density-independent pixels (a 16:9 phone).
_DP_WIDTH, _DP_HEIGHT = 411.43, 731.43
_VIEW_CACHE = 64
_SWIPE_SHARE = 0.8  # a swipe moves content by most of a viewport


def check_screen_size(width: object, height: object) -> None:
    """Accept only sizes a SimPhone can have: 320–3840 px wide, 480–3840 px high, portrait.

    The bound keeps a frame (and a raw screenshot of it) to tens of megabytes. The apps
    lay out a portrait phone: a screen less than 1.5 times as high as it is wide
    (landscape, a square) would cut their screens off.

    Raises:
        DeviceError: Naming the size when it is out of range or not integers.
    """
    sides = (width, height)
    if not all(is_integer(v) for v in sides):
        raise DeviceError(f"screen size must be integers, got {width!r}x{height!r}")
    if not (MIN_WIDTH <= width <= MAX_SIDE and MIN_HEIGHT <= height <= MAX_SIDE):
        raise DeviceError(f"screen {width}x{height} is outside {MIN_WIDTH}-{MAX_SIDE} x "
                          f"{MIN_HEIGHT}-{MAX_SIDE} pixels")
    if height < MIN_ASPECT * width:
        # A size that works: the width kept where a high enough screen fits, else the height.
        taller = math.ceil(MIN_ASPECT * width)
        fix = f"{width}x{taller}" if taller <= MAX_SIDE else f"{int(height / MIN_ASPECT)}x{height}"
        raise DeviceError(f"screen {width}x{height} is not a portrait phone: the height must "
                          f"be at least {MIN_ASPECT} times the width (e.g. {fix})")


def _built_in(apps: dict[str, App], seed: int, clock: datetime) -> PhoneState:
    """The built-in content of ``apps`` for ``seed``, dated around ``clock``.

    Raises:
        InvalidStateError: When there are ``apps`` and ``clock`` is outside
            :data:`~mobileintent_gym.phone.state.DATED_DAYS`.
    """
    state = PhoneState.default(apps, seed)
    if not apps or clock == state.clock:
        return state
    if not DATED_DAYS[0] <= clock.date() <= DATED_DAYS[1]:
        raise InvalidStateError(
            f"the built-in content of {sorted(apps)} cannot be dated around the clock "
            f"{clock}: give their states too, or a clock in {DATED_DAYS[0].year}-"
            f"{DATED_DAYS[1].year}")
    return state.moved_to(clock, apps)


class SimPhone:
    """A simulated Android phone (the embedded default device).

    It starts at home with every app's built-in content for seed 0, built when a call first
    needs it (an app's ``initial_state`` runs then, and its error comes from that call): an
    env loads its user's content over it before, and never builds it.

    Args:
        width: Screen width in pixels.
        height: Screen height in pixels.
        apps: The installed apps in launcher order: apps or bundles of the app registry
            (default: every app of the registry, ``phone.app.DEFAULT_APPS``).
        seconds_per_action: How far the simulated clock advances per action.
        render_cache: Reuse tiles and unchanged regions between frames; ``False`` redraws
            every frame from scratch (the benchmark's baseline).
        tile_budget: Bytes the tile cache may hold.

    Raises:
        DeviceError: When the size is outside 320–3840 × 480–3840 pixels or not portrait
            (:func:`check_screen_size`), before anything is allocated.
        InvalidStateError: When ``seconds_per_action`` is not a finite number within
            :data:`MAX_PACE`.
        NoInitialStateError: For an app that does not override ``initial_state`` (an
            ``InvalidAppError`` and a ``NotImplementedError``).

    Example:
        >>> phone = SimPhone()
        >>> phone.route()
        'launcher'
        >>> app = next(iter(phone.apps.values()))
        >>> phone.open(app.id)
        >>> phone.route() == app.home
        True
    """

    def __init__(self, width: int = 1080, height: int = 2400, *,
                 apps: Iterable[App | Installable] | None = None,
                 seconds_per_action: float = 4.0,
                 render_cache: bool = True, tile_budget: int = TILE_BUDGET) -> None:
        check_screen_size(width, height)
        self.width, self.height = int(width), int(height)
        # Pixels per dp: the reference screen's width, or its height where the screen is
        # shorter than 16:9, so that a layout of the reference's height fits.
        self.density = min(width / _DP_WIDTH, height / _DP_HEIGHT)
        self.apps: dict[str, App] = install(apps)
        self.seconds_per_action = seconds_per_action
        self._renderer = Renderer(width, height, render_cache, tile_budget)
        self._views: LRU[View] = LRU(_VIEW_CACHE)
        self._layers: LRU[Layer] = LRU(_VIEW_CACHE)
        self._versions = itertools.count(1)
        self._loaded: LRU[tuple[Any, int]] = LRU(_VIEW_CACHE)
        self._closed = False
        # The built-in content is loaded when first needed (_live): an env replaces it
        # with a user's at its first reset, and building it took 43 ms of a cold start.
        self._state: PhoneState | None = None
        self.events: list[StepEvent] = []

    # ---- the Device contract -------------------------------------------------------------

    def reset(self, state: PhoneState | None = None, seed: int | None = None) -> None:
        """Load ``state`` (copied; default: built-in content for ``seed``), go home.

        Apps that ``state`` leaves out get their built-in content for ``seed``, dated around
        its clock. A clock with a UTC offset starts at the wall-clock time it gives (the
        offset is dropped).

        Raises:
            InvalidStateError: When ``state`` is not a valid PhoneState, ``seed`` is not a
                non-negative integer, or ``state`` leaves apps out and its clock is outside
                :data:`~mobileintent_gym.phone.state.DATED_DAYS`; the phone is left as it
                was.
        """
        self._check_open(load=False)
        if seed is not None and not is_count(seed, least=0):
            raise InvalidStateError(f"seed must be a non-negative integer, got {seed!r}")
        if state is not None and not isinstance(state, PhoneState):
            raise InvalidStateError(f"state must be a PhoneState, got {type(state).__name__}")
        if state is None:
            loaded = PhoneState.default(self.apps, seed or 0)
        else:
            state.check(self.apps)
            loaded = state.copy()
            # A phone shows wall-clock time: a clock with a UTC offset is the time it shows
            # there (apps compare it with the naive times of their data).
            loaded.clock = loaded.clock.replace(tzinfo=None)
            missing = {k: app for k, app in self.apps.items() if k not in loaded.apps}
            loaded.apps.update(_built_in(missing, seed or 0, loaded.clock).apps)
        self._load(loaded)
        self.events = []

    def _load(self, loaded: PhoneState) -> None:
        """Make ``loaded`` (checked, the phone's own) the live state, at home."""
        self._state = loaded
        self._stacks = BackStacks(self.apps)
        self._stacks.versions.update(
            {app_id: self._version_of(app_id, data) for app_id, data in loaded.apps.items()})
        self._view: View | None = None
        self._view_key: tuple | None = None

    def screenshot(self, fresh: bool = False) -> np.ndarray:
        """The screen as a read-only H×W×3 uint8 array (never modified afterwards).

        While the screen is unchanged the same array comes back; with ``fresh`` a copy of
        it does when an earlier caller still holds it (no memory shared with any frame
        held, as Gymnasium asks of observations).
        """
        self._check_open()
        ops, geometry = chrome.frame_ops(self, self._current())
        return self._renderer.render(ops, geometry, fresh)

    def hierarchy(self) -> str:
        """The current window in uiautomator dump XML."""
        self._check_open()
        return self._current().xml()

    def route(self) -> str:
        """The route of the screen on top: ``launcher`` or ``<app>/<screen>…``."""
        self._check_open()
        return self._current().route

    def keyboard_shown(self) -> bool:
        """Whether the on-screen keyboard shows (a text field has the focus)."""
        self._check_open()
        return self._current().keyboard is not None

    def key_center(self, char: str) -> tuple[int, int] | None:
        """Where the on-screen keyboard's key ``char`` is (``keyboard.BACKSPACE`` too), to tap it.

        ``None`` while no keyboard shows, or when its key set has no such key.
        """
        self._check_open()
        board = self._current().keyboard
        rect = next((r for r, c in board.keys if c == char), None) if board else None
        return center(rect) if rect else None

    def act(self, action: ActionLike) -> ActResult:
        """Carry out one action (an Action, its string form or an action-space sample).

        Raises:
            InvalidActionError: When the action is malformed or its point is off screen;
                nothing changes and nothing is logged.
            AppActionError: A DeviceError, when an app failed part-way; the phone is as
                it was before.
        """
        self._check_open()
        action = to_action(action)
        action.check_inside(self.width, self.height)
        return self._run(action)

    @property
    def seconds_per_action(self) -> float:
        """How far the clock moves per action (negative moves it back: a replay's pace)."""
        return self._pace

    @seconds_per_action.setter
    def seconds_per_action(self, seconds: float) -> None:
        if not (is_finite(seconds) and abs(seconds) <= MAX_PACE):
            raise InvalidStateError(f"seconds_per_action must be a finite number of at most "
                                    f"{MAX_PACE:.0f} seconds either way, got {seconds!r}")
        self._pace = float(seconds)

    def _run(self, action: Action, gesture: tuple[tuple[int, int], int] | None = None
             ) -> ActResult:
        """Carry out ``action`` whole, or not at all.

        Raises:
            AppActionError: A DeviceError, when an app failed to carry it out (or the
                clock would leave the calendar); the phone is as it was before, and nothing
                is logged.
        """
        before = self._current()
        signature = self._stacks.signature()
        undo = self._undo_point()
        try:
            note, hit, typed = self._apply(action, before, gesture)
            self._state.clock = self._moved_clock()
            after = self._current()
        except BaseException as err:  # Ctrl-C included: undone, and raised as it came
            self._roll_back(*undo)
            if not isinstance(err, Exception):
                raise
            raise AppActionError(f"{action} failed on {before.route} and was undone: {err!r}",
                                 raised_at(err)) from err
        effect = self._stacks.signature() != signature
        event = StepEvent(len(self.events), str(action), before.route, after.route, hit,
                          before.visible, after.visible, typed, effect,
                          note or ("" if effect else "no effect"), self.clock,
                          before.record, after.record)
        self.events.append(event)
        return ActResult(effect, event.note, event)

    def _moved_clock(self) -> datetime:
        """The clock after one more action.

        Raises:
            DeviceError: When it would leave the calendar (years 1-9999), naming the pace.
        """
        try:
            return self._state.clock + timedelta(seconds=self._pace)
        except OverflowError:
            raise DeviceError(f"the clock ({self._state.clock}) would leave the calendar at "
                              f"seconds_per_action={self._pace:g}") from None

    def close(self) -> None:
        """Release frames and caches; the phone refuses calls afterwards."""
        self._views.clear()
        self._layers.clear()
        self._loaded.clear()
        self._renderer = Renderer(self.width, self.height, False, 0)
        self._closed = True

    # ---- beyond the contract -------------------------------------------------------------

    def open(self, app_id: str, route: str | None = None, **params: Any) -> None:
        """Bring an app to the front at ``route`` (a deep link, as ``am start`` does).

        Raises:
            UnknownRouteError: When the app or the route does not exist, or the screen
                cannot be shown (a parameter naming no record, or a fault of the screen:
                the message holds its error); the phone is left as it was.
        """
        self._check_open()
        undo = self._undo_point()
        self._stacks.open(app_id, route, tuple(sorted(params.items())))
        try:
            self._current()  # a parameter naming no record fails here, not on a later call
        except Exception as err:  # a record that is missing, a value of another type …
            self._roll_back(*undo)
            shown = route or self._stacks.app(app_id).home
            raise UnknownRouteError(
                f"{app_id!r} cannot show {shown!r} with {params!r} (a record it does not "
                f"hold, or a fault of the screen): {err!r}") from err

    def launch(self, app_id: str) -> None:
        """Bring an app to the front where it was left, as its launcher icon does.

        An app not started (or stopped) starts at its root.

        Raises:
            UnknownRouteError: When no such app is installed.
        """
        self._check_open()
        self._stacks.launch(app_id)

    def running(self, app_id: str) -> bool:
        """Whether ``app_id`` has screens open: started, and neither stopped nor left with BACK."""
        self._check_open()
        return app_id in self._stacks.stacks

    def home(self) -> None:
        """Show the launcher, as the home intent does; apps keep their stacks (as HOME)."""
        self._check_open()
        self._stacks.home()

    def stop(self, app_id: str) -> None:
        """Stop an app as ``am force-stop`` does: its screens close, its data stays.

        Raises:
            UnknownRouteError: When no such app is installed.
        """
        self._check_open()
        self._stacks.stop(app_id)

    @property
    def state(self) -> PhoneState:
        """The live phone state, its clock included (read it; change it only through actions)."""
        self._live()
        return self._state

    @property
    def clock(self) -> str:
        """The simulated time, ``YYYY-MM-DD HH:MM:SS``."""
        self._live()
        return self._state.clock.isoformat(" ", "seconds")

    def foreground_package(self) -> str:
        """Package of the window in front (the launcher's when no app is)."""
        self._live()
        fg = self._stacks.foreground
        return launcher.PACKAGE if fg is None else self.apps[fg].package

    def packages(self) -> dict[str, str]:
        """Package name → app id of every installed app."""
        return {app.package: app.id for app in self.apps.values()}

    def add_canvas(self, key: Hashable, pixels: np.ndarray) -> None:
        """Let screenshots be drawn straight into ``pixels`` once :meth:`draw_into` picks ``key``.

        ``pixels`` is a writable C-contiguous H×W×3 uint8 array (a vector env worker's row
        of shared memory, say); it replaces the canvas ``key`` named before, and the first
        screenshot drawn into it is drawn whole. Call this again after writing to it.

        Raises:
            ValueError: When ``pixels`` is not such an array.
        """
        self._check_open(load=False)
        self._renderer.add_canvas(key, pixels)

    def draw_into(self, key: Hashable | None) -> None:
        """Draw the next screenshots into the canvas ``key`` (``None``: the phone's own).

        A screenshot drawn there is that array, read-only. A canvas that anything still
        holds (the last screenshot drawn into it, a view of it) is not drawn over: the
        screenshot goes to the phone's own buffers instead.

        Raises:
            ValueError: When no canvas was added under ``key``.
        """
        self._check_open(load=False)
        self._renderer.draw_into(key)

    def swipe_between(self, x1: int, y1: int, x2: int, y2: int) -> ActResult:
        """A finger drag from (x1, y1) to (x2, y2); the content under it follows the finger.

        This is ``adb shell input swipe``; a drag shorter than the touch slop is a tap.
        It starts on the screen; its end may lie off it (the finger leaves the screen and
        the window still follows it, as on a phone).

        Raises:
            InvalidActionError: For a start off the screen, or an end that is no two
                integers.
        """
        self._check_open()
        start = Action.click(x1, y1)  # validated, Python ints
        start.check_inside(self.width, self.height)
        if not (is_integer(x2) and is_integer(y2)):
            raise InvalidActionError(f"a swipe's end is two integers, got ({x2!r}, {y2!r})")
        dx, dy = int(x2) - start.x, int(y2) - start.y
        x1, y1 = start.x, start.y
        if max(abs(dx), abs(dy)) < 8 * self.density:
            return self.act(Action.click(x1, y1))
        direction = (("LEFT" if dx < 0 else "RIGHT") if abs(dx) > abs(dy)
                     else ("UP" if dy < 0 else "DOWN"))
        return self._run(Action.swipe(direction), ((x1, y1), max(abs(dx), abs(dy))))

    # ---- internals -----------------------------------------------------------------------

    def _undo_point(self) -> tuple[tuple, dict[str, Any], datetime]:
        """What :meth:`_roll_back` needs to undo what follows."""
        return self._stacks.snapshot(), dict(self._state.apps), self._state.clock

    def _roll_back(self, stacks: tuple, apps: dict[str, Any], clock: datetime) -> None:
        """Undo an action: its stacks (with the front screen's UI state), data and clock."""
        self._stacks.restore(stacks)
        self._state.apps.clear()  # the same dict: handlers hold it
        self._state.apps.update(apps)
        self._state.clock = clock
        self._view = self._view_key = None

    def _check_open(self, load: bool = True) -> None:
        """Refuse a closed phone; with ``load``, load the built-in content if none is yet."""
        if self._closed:
            raise DeviceError("the phone is closed")
        if load:
            self._live()

    def _live(self) -> None:
        """Load the built-in content (seed 0) unless a state is loaded.

        As ``reset()`` would, but the list of events stays the one handed out, and a
        closed phone's ``state`` and ``clock`` are the built-in ones, as they were when a
        phone loaded them at once. An app's ``initial_state`` raising raises here.
        """
        if self._state is None:
            self._load(PhoneState.default(self.apps, 0))

    def _current(self) -> View:
        """The view on top (call it after :meth:`_check_open`, which loads a state)."""
        key = self._key()
        if key == self._view_key:
            return self._view
        view = self._views.get(key)
        if view is None:
            view = self._views.put(key, chrome.build_view(self))
        self._view, self._view_key = view, key
        return view

    def _key(self) -> tuple:
        key = self._stacks.view_key()
        # The launcher draws its page, the date and the time to the minute; apps show
        # times against the date (Today, Yesterday) and greet by the time of day.
        clock = self._state.clock
        if key is not None:
            return (*key, *chrome.clock_face(clock))
        return (None, self._stacks.launcher.key(), clock.date(), clock.hour, clock.minute)

    def _dispatch(self, intent: Intent) -> None:
        name, args = intent[0], intent[1:]
        stacks = self._stacks
        if name == "launch":
            stacks.launch(*args)
        elif name == "open":
            stacks.push(stacks.foreground, *args)
        elif name == "replace":
            stacks.replace(*args)
        elif name == "back":  # an in-app up or cancel control, not the BACK key
            stacks.close_top()
        else:
            self._handle(intent)

    def _handle(self, intent: Intent) -> None:
        """Run an app's own intent; new data raises its version, so no screen goes stale."""
        fg, states = self._stacks.foreground, self._state.apps
        before = states[fg]
        self.apps[fg].handle(Nav(self._stacks, states, fg, self._state.clock), intent)
        after = states[fg]
        if after is not before and after != before:
            self._stacks.versions[fg] = next(self._versions)

    def _version_of(self, app_id: str, data: Any) -> int:
        """The data version of an app state a reset loads.

        Versions are never reused for other data, and app states are immutable, so a reset
        that loads the very state object an earlier reset loaded (the same user's content
        again) gets its version back, and the screens built from it are reused. An entry
        counts for the object it keeps only: a copied phone (deepcopy, pickle) keeps copies
        under the ids of the originals, which other objects may take once those are freed.
        """
        key = (app_id, id(data))
        known = self._loaded.get(key)
        if known is None or known[0] is not data:
            known = self._loaded.put(key, (data, next(self._versions)))
        return known[1]

    def _tap(self, view: View, x: int, y: int, long_press: bool) -> tuple[str, Hit | None,
                                                                            str | None]:
        key = view.keyboard.key_at(x, y) if view.keyboard is not None else None
        if key is not None:
            return fields.key_tap(self._stacks.front(), view, key, self._dispatch)
        node = view.target_at(x, y)  # None on a modal surface too: it stops the touch
        if node is None:
            return "nothing to touch there", None, None
        hit = touch.hit_of(node)
        intent = node.on_long_click if long_press and node.long_clickable else node.on_click
        if intent is None and node.field_key is not None:
            front = self._stacks.front()
            front.focus, front.keyboard = node.field_key, True
            return "", hit, None
        if intent is None:
            return "not clickable", hit, None
        self._dispatch(intent)
        return "", hit, None

    def _scroll(self, view: View, direction: str, start: tuple[int, int] | None,
                distance: int | None) -> str:
        axis = 1 if direction in ("UP", "DOWN") else 0
        x, y = start or (self.width // 2, self.height // 2)
        node = view.scroller_at(x, y, axis, fallback=start is None)
        if node is None:
            return "nothing to scroll"
        extent = node.bounds[axis + 2] - node.bounds[axis]
        delta = (extent if node.paged else distance if distance is not None
                 else round(_SWIPE_SHARE * extent))
        sign = 1 if direction in ("UP", "LEFT") else -1
        offset, max_offset = node.scroll_range
        new = min(max(0, offset + sign * delta), max_offset)
        if new == offset:
            return "already at the end" if sign > 0 else "already at the start"
        self._stacks.front().scroll[node.scroll_key] = new
        return ""

    def _apply(self, action: Action, view: View,
               gesture: tuple[tuple[int, int], int] | None) -> tuple[str, Hit | None, str | None]:
        kind = action.type
        if kind in (ActionType.CLICK, ActionType.LONG_CLICK):
            return self._tap(view, action.x, action.y, kind is ActionType.LONG_CLICK)
        if kind is ActionType.TYPE:
            return fields.type_text(self._stacks.front(), action.text)
        if kind is ActionType.SWIPE:
            return self._scroll(view, action.direction, *(gesture or (None, None))), None, None
        if kind is ActionType.PRESS:
            return self._press(action.key, view), None, None
        return "intention declared complete", None, None

    def _press(self, key: str, view: View) -> str:
        if key == "BACK":
            return self._stacks.back()
        if key == "ENTER":
            return fields.enter(self._stacks.front(), view, self._dispatch)
        return self._stacks.home()


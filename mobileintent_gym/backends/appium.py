"""``AppiumDevice``: a device driven by an Appium server with the UiAutomator2 driver.

Start Appium (``appium --port 4723``, with the ``uiautomator2`` driver installed and a
device or emulator attached), then use ``AppiumDevice("http://127.0.0.1:4723")`` or the
loader spec ``appium:http://127.0.0.1:4723``. The mapping:

* ``screenshot()`` — ``GET /screenshot`` (PNG) → H×W×3 uint8;
* ``hierarchy()`` — ``GET /source`` (UiAutomator2's page source is uiautomator XML);
* ``route()`` — current package and activity, read like :mod:`.adb` reads them;
* ``act()`` — W3C pointer actions for taps, long presses (1 s) and the canonical swipe;
  ``press_keycode`` for HOME/BACK/ENTER; the focused element's ``send_keys`` for text
  (UiAutomator2 types any Unicode text, so no quoting or ASCII limit applies).
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from mobileintent_gym.actions import Action, ActionLike, ActionType, to_action
from mobileintent_gym.adbd.conventions import (
    KEYCODES,
    LONG_PRESS_GESTURE_MS,
    SWIPE_MS,
    route_from_component,
    swipe_gesture,
)
from mobileintent_gym.apps.registry import app_package
from mobileintent_gym.backends.adb import DeviceCommandError, DeviceUnavailableError
from mobileintent_gym.backends.observed import observed_event, read_frame, read_screen
from mobileintent_gym.errors import DeviceError, require
from mobileintent_gym.phone import ActResult, StepEvent
from mobileintent_gym.phone.touch import ScreenDump


class AppiumDevice:
    """A device behind an Appium server, satisfying :class:`~mobileintent_gym.backends.Device`.

    Args:
        url: The Appium server, e.g. ``http://127.0.0.1:4723``.
        udid: The device's serial when several are attached.
        new_command_timeout: Seconds Appium keeps an idle session.
        timeout: Seconds to wait for each answer of the server, a session's start included
            (a first start installs UiAutomator2 on the phone, which takes a while); a
            server that never answers was waited for without end.
        observe: Read the page source before and after each action to log the element hit
            and the visible entities, as the simulated phone does (one page source per
            action: the one after an action serves as the one before the next).

    Raises:
        DependencyNotInstalled: Without Appium-Python-Client.
        DeviceUnavailableError: When no session can be created.
    """

    def __init__(self, url: str, udid: str | None = None, new_command_timeout: int = 300,
                 observe: bool = True, timeout: float = 120.0) -> None:
        webdriver = require("appium.webdriver", "android")
        client_config = require("appium.webdriver.client_config", "android")
        options_module = require("appium.options.android", "android")
        self._errors = require("selenium.common.exceptions", "android")
        # Nothing listening at the URL surfaces as urllib3's errors (MaxRetryError ...).
        self._http_errors = require("urllib3.exceptions", "android").HTTPError
        options = options_module.UiAutomator2Options()
        options.platform_name = "Android"
        options.no_reset = True
        options.new_command_timeout = new_command_timeout
        if udid:
            options.udid = udid
        try:
            self._driver = webdriver.Remote(url, options=options, client_config=client_config
                                            .AppiumClientConfig(url, timeout=timeout))
        except (self._errors.WebDriverException, self._http_errors, OSError) as err:
            raise DeviceUnavailableError(f"no Appium session at {url!r}: {err}") from err
        try:
            size = self._call(self._driver.get_window_size, "window size")
            self.width, self.height = int(size["width"]), int(size["height"])
        except BaseException:  # the session exists on the server: end it, as AdbDevice does
            with contextlib.suppress(Exception):
                self._driver.quit()
            raise
        self.observe = observe
        self.events: list[StepEvent] = []
        self._screen: ScreenDump | None = None

    def reset(self, state: object = None, seed: int | None = None) -> None:
        """Go home and start a new event log (a real device's content cannot be loaded).

        Raises:
            DeviceError: When ``state`` is given.
        """
        if state is not None:
            raise DeviceError(f"AppiumDevice cannot load a phone state ({type(state).__name__})")
        self._call(lambda: self._driver.press_keycode(KEYCODES["HOME"]), "press HOME")
        self.events, self._screen = [], None

    def screenshot(self, fresh: bool = False) -> np.ndarray:
        """The screen as a read-only H×W×3 uint8 array.

        Every call decodes a new frame, so each is ``fresh`` whatever the argument says.

        Raises:
            DeviceCommandError: As :func:`~.observed.read_frame` says (no PNG, another size).
        """
        png = self._call(self._driver.get_screenshot_as_png, "screenshot")
        return read_frame(png, (self.width, self.height), "Appium's screenshot")

    def hierarchy(self) -> str:
        """The page source (uiautomator XML)."""
        return self._call(lambda: self._driver.page_source, "page source")

    def route(self) -> str:
        """The focused screen's route (``package/activity`` on an ordinary device)."""
        package = self._call(lambda: self._driver.current_package, "current package")
        activity = self._call(lambda: self._driver.current_activity, "current activity")
        return route_from_component(package, activity)

    def open(self, app_id: str) -> None:
        """Launch the built-in app ``app_id``'s package (``mobile: activateApp``)."""
        package = app_package(app_id)
        self._call(lambda: self._driver.activate_app(package), f"activate {package}")
        self._screen = None

    def act(self, action: ActionLike) -> ActResult:
        """Carry out one action and log it as :class:`AdbDevice` does.

        ``action`` is an ``Action``, its string form or an action-space sample, as for
        SimPhone.

        Raises:
            InvalidActionError: For a malformed action or a point off screen.
            DeviceError: When Appium fails, or its page source is no uiautomator dump.
        """
        action = to_action(action)
        action.check_inside(self.width, self.height)
        before = self.route()
        seen = self._observe()
        sent = self._send(action)
        after, now = before, seen
        if sent:
            self._screen = None  # the page source before the action is stale
            after, now = self.route(), self._observe()
        event = observed_event(len(self.events), action, (before, after), (seen, now), sent)
        self.events.append(event)
        return ActResult(event.effect, event.note, event)

    def _observe(self) -> ScreenDump | None:
        if not self.observe:
            return None
        if self._screen is None:
            self._screen = read_screen(self.hierarchy(), "page source")
        return self._screen

    def close(self) -> None:
        """End the Appium session; a server already gone has no session left to end.

        Closing must not raise then: ``close`` runs in ``finally`` blocks, where it would
        hide the error that ended the run.
        """
        with contextlib.suppress(DeviceUnavailableError):
            self._call(self._driver.quit, "quit")

    def _send(self, action: Action) -> bool:
        kind, driver = action.type, self._driver
        if kind is ActionType.CLICK:
            self._call(lambda: driver.tap([(action.x, action.y)]), str(action))
        elif kind is ActionType.LONG_CLICK:
            self._call(lambda: driver.tap([(action.x, action.y)], LONG_PRESS_GESTURE_MS),
                       str(action))
        elif kind is ActionType.SWIPE:
            x1, y1, x2, y2 = swipe_gesture(action.direction, self.width, self.height)
            self._call(lambda: driver.swipe(x1, y1, x2, y2, SWIPE_MS), str(action))
        elif kind is ActionType.PRESS:
            self._call(lambda: driver.press_keycode(KEYCODES[action.key]), str(action))
        elif kind is ActionType.TYPE:
            field = self._focused_field()
            if field is None:  # as on the simulated phone: nothing typed, no error
                return False
            self._call(lambda: field.send_keys(action.text), str(action))
        return kind is not ActionType.COMPLETE

    def _focused_field(self) -> Any:
        """The element that has the focus; ``None`` when none has (W3C "no such element")."""
        try:
            return self._call(lambda: self._driver.switch_to.active_element,
                              "find the focused field")
        except DeviceCommandError as err:
            if isinstance(err.__cause__, self._errors.NoSuchElementException):
                return None
            raise

    def _call(self, function, what: str):
        try:
            return function()
        except self._errors.WebDriverException as err:
            raise DeviceCommandError(f"Appium could not {what}: {err.msg}") from err
        except (self._http_errors, OSError) as err:
            raise DeviceUnavailableError(f"Appium server unreachable during {what}: {err}") from err

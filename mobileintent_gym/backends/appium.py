"""``AppiumDevice``: a device driven by an Appium server with the UiAutomator2 driver.

Start Appium (``appium --port 4723``, with the ``uiautomator2`` driver installed and a
device or emulator attached), then use ``AppiumDevice("http://127.0.0.1:4723")`` or the
loader spec ``appium:http://127.0.0.1:4723``. The mapping:

* ``screenshot()`` — ``GET /screenshot`` (PNG) → H×W×3 uint8; the screen's size is the
  first screenshot's (the window rect leaves out a navigation bar that screenshots and
  taps include);
* ``hierarchy()`` — ``GET /source`` (UiAutomator2's page source is uiautomator XML);
* ``route()`` — current package and activity, read like :mod:`.adb` reads them;
* ``open()`` — ``mobile: terminateApp`` then ``mobile: activateApp``, waiting until the app
  is in front (activating alone brings a started app back where it was left);
* ``act()`` — W3C pointer actions for taps, long presses (1 s) and the canonical swipe;
  ``press_keycode`` for HOME/BACK/ENTER; the focused element's ``send_keys`` for text
  (UiAutomator2 types any Unicode text, so no quoting or ASCII limit applies).
"""

from __future__ import annotations

import contextlib
import time
import weakref
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import urlsplit

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
from mobileintent_gym.backends import device_lock
from mobileintent_gym.backends.adb_transport import (
    DeviceCommandError,
    DeviceTimeoutError,
    DeviceUnavailableError,
    host_key,
)
from mobileintent_gym.backends.loader import check_url_secret, public_url
from mobileintent_gym.backends.observed import (
    frame_size,
    observed_event,
    read_frame,
    read_screen,
)
from mobileintent_gym.errors import DeviceError, require
from mobileintent_gym.files import unlock
from mobileintent_gym.phone import ActResult, StepEvent
from mobileintent_gym.phone.touch import ScreenDump

T = TypeVar("T")
POLL_SECONDS = 0.25
"""How often :meth:`AppiumDevice.open` reads which app is in front while it waits."""
FOCUS_TRIES = 4
"""Reads of the focused app before :meth:`AppiumDevice.route` gives up on there being none
(none has the focus while windows change)."""


class AppiumDevice:
    """A device behind an Appium server, satisfying :class:`~mobileintent_gym.backends.Device`.

    Args:
        url: The Appium server, e.g. ``http://127.0.0.1:4723``.
        udid: The device's serial when several are attached.
        new_command_timeout: Seconds Appium keeps an idle session.
        timeout: Seconds to wait for each answer of the server, a session's start included
            (a first start installs UiAutomator2 on the phone, which takes a while), and
            for an opened app to come to the front. An answer that does not come in time
            is not asked for again (urllib3 would ask three more times).
        observe: Read the page source before and after each action to log the element hit
            and the visible entities, as the simulated phone does (one page source per
            action: the one after an action serves as the one before the next).
        exclusive: Hold the device lock of the server and udid, so that a second env on
            this machine is refused, as for adb. ``None`` (the default): for a server on
            this machine (``localhost``, ``127.0.0.1``, ``::1``), whose phones each take
            one session; not for a remote hub, which gives each session a phone of its
            own (a device farm).

    Raises:
        DependencyNotInstalled: Without Appium-Python-Client.
        DeviceConfigError: For a user name or key in ``url`` that holds a raw ``/``,
            ``?`` or ``#`` (percent-encode them).
        DeviceBusyError: When ``exclusive`` and another env on this machine drives the
            device (the same server and udid), until that one's ``close`` or its
            process's end.
        DeviceUnavailableError: When no session can be created.
        DeviceCommandError: When the session's first screenshot cannot be read.

    Errors: the server's W3C errors and HTTP errors (a proxy's 502 page) are
    :class:`DeviceCommandError`, naming what was asked; a session the server no longer
    knows (idle longer than ``new_command_timeout``, UiAutomator2 stopped) and a server
    that cannot be reached are :class:`DeviceUnavailableError`. Messages show the URL
    without the user name and password it may hold.
    """

    def __init__(self, url: str, udid: str | None = None, new_command_timeout: int = 300,
                 observe: bool = True, timeout: float = 120.0,
                 exclusive: bool | None = None) -> None:
        check_url_secret(url)
        webdriver = require("appium.webdriver", "android")
        client_config = require("appium.webdriver.client_config", "android")
        options_module = require("appium.options.android", "android")
        self._errors = require("selenium.common.exceptions", "android")
        urllib3 = require("urllib3", "android")
        # Nothing listening at the URL surfaces as urllib3's errors (MaxRetryError ...).
        self._http_errors = urllib3.exceptions.HTTPError
        self.url, self._timeout = public_url(url), timeout
        # Errors are not chained where the URL holds a key: urllib3's quote it whole.
        self._secret = self.url != url
        self._idle = new_command_timeout
        options = options_module.UiAutomator2Options()
        options.platform_name = "Android"
        options.no_reset = True
        options.new_command_timeout = new_command_timeout
        if udid:
            options.udid = udid
        server, local = _server(url)
        if exclusive or (exclusive is None and local):
            # One env per phone, as for adb: a second session on it ends the first's.
            lock = device_lock.hold(f"appium {server} {udid or ''}", repr(self.url) + (
                f" ({udid})" if udid else ""), "another udid or another Appium server each")
        else:
            lock = None
        self._let_go = weakref.finalize(self, unlock, lock)
        # Selenium reads the pool's arguments from a key of the same name, one level down.
        pool = {"init_args_for_pool_manager": {"retries": urllib3.Retry(
            total=None, connect=2, read=0, redirect=False, status=0, other=0)}}
        try:
            self._driver = webdriver.Remote(url, options=options, client_config=client_config
                                            .AppiumClientConfig(url, timeout=timeout,
                                                                init_args_for_pool_manager=pool))
        except BaseException as err:  # Ctrl-C included: the phone is free again
            self._let_go()
            if not isinstance(err, (self._errors.WebDriverException, self._http_errors,
                                    OSError, ValueError, TypeError, AttributeError, KeyError)):
                raise
            raise DeviceUnavailableError(f"no Appium session at {self.url!r}: "
                                         f"{type(err).__name__}: {public_url(str(err))}"
                                         ) from None if self._secret else err
        self._driver.error_handler = _StatusChecked(self._driver.error_handler,
                                                    self._errors.WebDriverException)
        self._closed = False
        try:
            png = self._call(self._driver.get_screenshot_as_png, "take a screenshot")
            self.width, self.height = frame_size(png, "Appium's first screenshot")
        except BaseException:  # the session exists on the server: end it, as AdbDevice does
            self.close()
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
            raise DeviceError(
                f"AppiumDevice cannot load a phone state ({type(state).__name__}); evaluate "
                "a device that holds the user's content with --device-has-state "
                "(ExecuteEnv(load_state=False))")
        self._call(lambda: self._driver.press_keycode(KEYCODES["HOME"]), "press HOME")
        self.events, self._screen = [], None

    def screenshot(self, fresh: bool = False) -> np.ndarray:
        """The screen as a read-only H×W×3 uint8 array.

        Every call decodes a new frame, so each is ``fresh`` whatever the argument says.

        Raises:
            DeviceCommandError: As :func:`~.observed.read_frame` says (no PNG, another size).
        """
        png = self._call(self._driver.get_screenshot_as_png, "take a screenshot")
        return read_frame(png, (self.width, self.height), "Appium's screenshot")

    def hierarchy(self) -> str:
        """The page source (uiautomator XML)."""
        return self._call(lambda: self._driver.page_source, "read the page source")

    def route(self) -> str:
        """The focused screen's route (``package/activity`` on an ordinary device).

        Raises:
            DeviceCommandError: When no app has had the focus over :data:`FOCUS_TRIES`
                reads (UiAutomator2 reports none while windows change, or the screen is off).
        """
        for attempt in range(FOCUS_TRIES):
            if attempt:
                time.sleep(POLL_SECONDS * attempt)
            package = self._call(lambda: self._driver.current_package,
                                 "read the current package")
            activity = self._call(lambda: self._driver.current_activity,
                                  "read the current activity")
            if isinstance(package, str) and isinstance(activity, str):
                return route_from_component(package, activity)
        raise DeviceCommandError(f"Appium at {self.url!r} reports no app in focus (package "
                                 f"{package!r}, activity {activity!r}): is the screen on?")

    def open(self, app_id: str) -> None:
        """Bring the built-in app ``app_id`` to the front at its home screen.

        The app is stopped first (``mobile: terminateApp``; its data stays), as activating
        a started app brings it back on the screen it was left on, then activated
        (``mobile: activateApp``), which returns before the app is in front: this waits
        until it is, up to ``timeout`` seconds.

        Raises:
            UnknownRouteError: When no built-in app is called ``app_id``.
            DeviceCommandError: When Appium cannot stop or start its package.
            DeviceTimeoutError: When the app has not come to the front in time.
        """
        package = app_package(app_id)
        self._call(lambda: self._driver.terminate_app(package), f"stop {package}")
        self._call(lambda: self._driver.activate_app(package), f"activate {package}")
        self._screen = None
        deadline = time.monotonic() + self._timeout
        while (front := self._call(lambda: self._driver.current_package,
                                   "read the current package")) != package:
            if time.monotonic() > deadline:
                raise DeviceTimeoutError(f"{package} was not in front {self._timeout:g} s "
                                         f"after Appium activated it ({front!r} is)")
            time.sleep(POLL_SECONDS)

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
        """End the Appium session, once; a second call does nothing.

        Never raises: ``close`` runs in ``finally`` blocks, where an error (a server gone,
        a session it ended already) would hide the error that ended the run.
        """
        if self._closed:
            return
        self._closed = True
        try:
            with contextlib.suppress(DeviceError):
                self._call(self._driver.quit, "end the session")
        finally:
            self._let_go()

    def _send(self, action: Action) -> bool:
        kind, driver = action.type, self._driver
        if kind is ActionType.CLICK:
            self._call(lambda: driver.tap([(action.x, action.y)]), f"send {action}")
        elif kind is ActionType.LONG_CLICK:
            self._call(lambda: driver.tap([(action.x, action.y)], LONG_PRESS_GESTURE_MS),
                       f"send {action}")
        elif kind is ActionType.SWIPE:
            x1, y1, x2, y2 = swipe_gesture(action.direction, self.width, self.height)
            self._call(lambda: driver.swipe(x1, y1, x2, y2, SWIPE_MS), f"send {action}")
        elif kind is ActionType.PRESS:
            code = KEYCODES[action.key]
            self._call(lambda: driver.press_keycode(code), f"send {action}")
        elif kind is ActionType.TYPE:
            field = self._focused_field()
            if field is None:  # as on the simulated phone: nothing typed, no error
                return False
            self._call(lambda: field.send_keys(action.text), f"send {action}")
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

    def _call(self, function: Callable[[], T], what: str) -> T:
        """``function()``, its errors as the device errors that say ``what`` was asked."""
        try:
            return function()
        except self._errors.InvalidSessionIdException as err:
            raise DeviceUnavailableError(
                f"the Appium session at {self.url!r} has ended (idle longer than its "
                f"new-command timeout, {self._idle} s, or UiAutomator2 stopped): could not "
                f"{what}") from err
        except self._errors.WebDriverException as err:
            raise DeviceCommandError(f"Appium could not {what}: {err.msg}") from err
        except (self._http_errors, OSError) as err:
            raise DeviceUnavailableError(f"the Appium server at {self.url!r} could not be "
                                         f"reached to {what}: {public_url(str(err))}"
                                         ) from None if self._secret else err
        except (ValueError, TypeError, AttributeError, KeyError) as err:
            raise DeviceCommandError(f"Appium's answer when asked to {what} is not the "
                                     f"protocol's ({type(err).__name__}: {err})") from err


class _StatusChecked:
    """A Selenium error handler that also refuses an HTTP error whose body is no W3C error.

    Appium's own handler reads only the body, so a proxy's "502 Bad Gateway" page passed
    as the answer (a route read as the page, an action logged as done).
    """

    def __init__(self, inner: Any, error: type[Exception]) -> None:
        self._inner, self._error = inner, error

    def check_response(self, response: dict[str, Any]) -> None:
        """Raise the W3C error of ``response``, or one for its HTTP error status."""
        self._inner.check_response(response)
        status = response.get("status")
        if isinstance(status, int) and status >= 400:
            body = " ".join(str(response.get("value")).split())
            raise self._error(f"HTTP {status}: {body[:160]}")


_LOCAL_HOSTS = frozenset({"127.0.0.1", "::1"})
"""Hosts of an Appium server on this machine (``localhost`` named as ``127.0.0.1``), whose
phones :class:`AppiumDevice` locks."""


def _host(host: str) -> str:
    """``host`` written one way; this machine as ``127.0.0.1`` or ``::1``.

    ``localhost`` and ``127.1`` are ``127.0.0.1``; another address reads as an address.
    """
    key = host_key(host)
    if key != "localhost":
        return key
    return "::1" if ":" in host else "127.0.0.1"


def _server(url: str) -> tuple[str, bool]:
    """The server ``url`` names, however it is written, and whether it is on this machine.

    The name has its scheme and host in lower case, no user name or password and no ``/``
    at its end (a URL that does not parse is named as written, and not local).
    """
    try:
        parts = urlsplit(url.strip())
        host = _host(parts.hostname or "")
        port = f":{parts.port}" if parts.port is not None else ""
    except ValueError:
        return url, False
    return (f"{parts.scheme.lower()}://{host}{port}{parts.path.rstrip('/')}",
            host in _LOCAL_HOSTS)

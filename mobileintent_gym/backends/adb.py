"""``AdbDevice``: a real Android device or emulator behind the :class:`Device` contract.

It talks to the adb server through adbutils (``pip install 'mobileintent-gym[android]'``;
the transport is :mod:`.adb_transport`):

* ``screenshot()`` — ``screencap -p``, decoded with Pillow to an H×W×3 uint8 array;
* ``hierarchy()`` — ``uiautomator dump``; parse it with
  :func:`mobileintent_gym.phone.hierarchy.parse` into the simulated phone's node model;
* ``route()`` — the focused ``package/activity`` from ``dumpsys window`` (the exact route on
  the virtual device, see :mod:`mobileintent_gym.adbd.conventions`);
* ``act()`` — ``input tap``, a still 1 s ``input swipe`` for a long press, the canonical
  swipe gesture, ``input keyevent`` (3 HOME, 4 BACK, 66 ENTER) and ``input text``.

**The event log carries what SimPhone's does.** With ``AdbConfig(observe=True)`` (the
default) each action reads a uiautomator dump before and after it and logs, by the rules of
:mod:`mobileintent_gym.phone.touch` that SimPhone applies too, the element a click or long
click hit and the entity ids visible before and after (the virtual device writes them as
``entity-id``; a real device's dump has none, so ``visible`` is empty there). The dump
after one action is the dump before the next unless a command that changes the device
(``reset``, ``open``) ran in between; reads (screenshots, routes, :meth:`hierarchy`) do
not spoil it, and a :meth:`hierarchy` call refreshes it. A phone takes about 1–2 s per
``uiautomator dump``: ``observe=False`` skips them, and the log keeps routes and typed text
only.

**Typed text is never interpreted by the device shell.** Every argument is single-quoted
(:func:`shlex.quote`), ``input text``'s own escape ``%s`` (a space) is written for spaces,
and a literal ``%s`` is sent in two pieces so that it stays literal. ``input text`` can
only type printable ASCII; other text (non-ASCII letters, emoji, tabs, newlines) raises
:class:`UnsupportedTextError` unless ``adb_keyboard=True``, which sends it base64-encoded
to the ADBKeyboard IME (``am broadcast -a ADB_INPUT_B64``; install and enable that IME on
the device first).

Errors are :class:`DeviceError` subclasses raised ``from`` their cause (see
:mod:`.adb_transport` for retries); a device that vanishes gives
:class:`DeviceUnavailableError`.
"""

from __future__ import annotations

import base64
import os
import re
import shlex
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

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
    AdbTransport,
    DeviceCommandError,
    DeviceTimeoutError,
    DeviceUnavailableError,
    device_key,
)
from mobileintent_gym.backends.loader import DeviceConfigError
from mobileintent_gym.backends.observed import observed_event, read_frame, read_screen
from mobileintent_gym.checks import MAX_PORT, is_count, is_finite, xml_invalid
from mobileintent_gym.errors import DeviceError, InvalidActionError, brief
from mobileintent_gym.files import unlock
from mobileintent_gym.phone import ActResult, StepEvent
from mobileintent_gym.phone.touch import ScreenDump

__all__ = ["AdbConfig", "AdbDevice", "DeviceCommandError", "DeviceTimeoutError",
           "DeviceUnavailableError", "UnsupportedTextError", "text_commands"]

_FOCUS = re.compile(
    r"mCurrentFocus=Window\{\S+ \S+ (?P<package>[^\s/}]+)/(?P<activity>[^\s}]+)\}")
_FOCUSED_APP = re.compile(
    r"mFocusedApp=.*?ActivityRecord\{\S+ \S+ (?P<package>[^\s/]+)/(?P<activity>\S+)")
_SIZE = re.compile(r"(Override|Physical) size: (\d{1,9})x(\d{1,9})")
MAX_SIDE = 16384  # pixels a screen side may have (8K panels have 7,680)


class UnsupportedTextError(DeviceError, InvalidActionError):
    """Text that ``input text`` cannot type (non-ASCII or control characters)."""


def _default_server_port() -> int:
    given = os.environ.get("ANDROID_ADB_SERVER_PORT", "5037")
    if not given.isascii() or not given.isdigit():
        raise DeviceConfigError(f"$ANDROID_ADB_SERVER_PORT must be a port number, got "
                                f"{brief(given, 40)}")
    return int(given)


@dataclass(frozen=True)
class AdbConfig:
    """How to reach the device.

    Attributes:
        serial: The adb serial, e.g. ``emulator-5554`` or ``127.0.0.1:15555``.
        server_host: Host of the adb server (adbutils talks to the server, not the device).
        server_port: Port of the adb server: ``$ANDROID_ADB_SERVER_PORT`` as for the adb
            client itself, else 5037.
        timeout: Seconds one device command may take, and :meth:`AdbDevice.open` waits
            for the app it launches to come to the front.
        retries: Extra attempts for reads (screenshot, hierarchy, route) after a timeout.
        retry_delay: Seconds between attempts.
        adb_keyboard: Type non-ASCII text through the ADBKeyboard IME.
        dump_path: Where ``uiautomator dump`` writes on the device.
        observe: Read a uiautomator dump around each action to log the element hit and the
            visible entities (default ``True``); ``False`` saves the dumps (1–2 s each on a
            phone) and leaves ``hit``/``visible`` empty.
    """

    serial: str
    server_host: str = "127.0.0.1"
    server_port: int = field(default_factory=_default_server_port)
    timeout: float = 10.0
    retries: int = 2
    retry_delay: float = 0.3
    adb_keyboard: bool = False
    dump_path: str = "/sdcard/window_dump.xml"
    observe: bool = True

    def __post_init__(self) -> None:
        """Refuse values no device could be reached with, naming them.

        Raises:
            DeviceConfigError: For a serial or host that is no text, a port outside
                1-65535, a timeout that is no number above 0, retries that are no count,
                or a retry delay that is no number of at least 0.
        """
        for name in ("serial", "server_host", "dump_path"):
            if not isinstance(getattr(self, name), str):
                raise DeviceConfigError(f"AdbConfig {name} must be text, got "
                                        f"{brief(getattr(self, name), 60)}")
        checks = (("server_port", is_count(self.server_port) and self.server_port <= MAX_PORT,
                   f"a port in 1-{MAX_PORT}"),
                  ("timeout", is_finite(self.timeout) and self.timeout > 0,
                   "a number of seconds above 0"),
                  ("retries", is_count(self.retries, least=0), "an integer of at least 0"),
                  ("retry_delay", is_finite(self.retry_delay) and self.retry_delay >= 0,
                   "a number of seconds of at least 0"))
        for name, good, wanted in checks:
            if not good:
                raise DeviceConfigError(f"AdbConfig {name} must be {wanted}, got "
                                        f"{brief(getattr(self, name), 60)}")


def text_commands(text: str, adb_keyboard: bool = False) -> list[str]:
    """Shell command lines that type ``text`` literally.

    Raises:
        UnsupportedTextError: For characters ``input text`` cannot type, unless
            ``adb_keyboard``.
    """
    if not all(" " <= char <= "~" for char in text):
        if (bad := xml_invalid(text)) is not None:  # no keyboard types it, nor can UTF-8 say it
            raise UnsupportedTextError(f"no keyboard types {bad!r} (in {text[:40]!r})")
        if adb_keyboard:
            encoded = base64.b64encode(text.encode("utf-8")).decode("ascii")
            return [f"am broadcast -a ADB_INPUT_B64 --es msg {encoded}"]
        bad = next(char for char in text if not " " <= char <= "~")
        raise UnsupportedTextError(
            f"'input text' types printable ASCII only; {bad!r} in {text[:40]!r} needs "
            "AdbConfig(adb_keyboard=True) and the ADBKeyboard IME")
    # "%s" means a space to `input text`; cut a literal "%s" between "%" and "s".
    pieces = re.split(r"(?<=%)(?=s)", text)
    return ["input text " + shlex.quote(piece.replace(" ", "%s")) for piece in pieces]


def _screen_size(answer: str, serial: str) -> tuple[int, int]:
    """The screen's width and height from ``wm size``: the override size where one is set.

    A phone run below its panel's resolution prints ``Physical size`` first and
    ``Override size`` after it; screenshots and taps use the override.

    Raises:
        DeviceCommandError: When the answer names no size.
    """
    sizes = {kind: (int(width), int(height)) for kind, width, height in _SIZE.findall(answer)}
    size = sizes.get("Override") or sizes.get("Physical")
    if size is None or not all(1 <= side <= MAX_SIDE for side in size):
        raise DeviceCommandError(f"cannot read the screen size of {serial!r} from 'wm size' "
                                 f"(1-{MAX_SIDE} pixels a side): {answer.strip()[:200]!r}")
    return size


def _let_go(lock: int | None, link: AdbTransport) -> None:
    """What closing a device, or dropping it, lets go of: its lock, then the adb server."""
    unlock(lock)
    link.close()


class AdbDevice:
    """A device reached through adb, satisfying :class:`~mobileintent_gym.backends.Device`.

    Args:
        config: Where the device is; or pass a serial string for the defaults.

    Raises:
        DependencyNotInstalled: Without adbutils.
        DeviceUnavailableError: When the device is not attached and online.
        DeviceBusyError: When another env on this machine drives it (until that one's
            ``close``, or its process ends).
    """

    def __init__(self, config: AdbConfig | str) -> None:
        self.config = AdbConfig(config) if isinstance(config, str) else config
        # Locked before adb reaches the device: a refused env connected it a second time
        # under its other name (localhost:P beside 127.0.0.1:P), and `adb shell` failed.
        lock = device_lock.hold(device_key(self.config), repr(self.config.serial))
        try:
            self._link = AdbTransport(self.config)
        except BaseException:
            unlock(lock)
            raise
        # Let go by close(), else when the device is dropped (as a file object would):
        # its lock, and its use of the adb server.
        self._let_go: Callable[[], None] = weakref.finalize(self, _let_go, lock, self._link)
        try:
            self.width, self.height = _screen_size(self._link.read("wm size"),
                                                   self.config.serial)
        except BaseException:
            self.close()
            raise
        self.events: list[StepEvent] = []
        self._dump: str | None = None  # the last dump read since a command changed the device
        self._screen: ScreenDump | None = None  # the last dump observed, parsed

    def reset(self, state: object = None, seed: int | None = None) -> None:
        """Go to the home screen and start a new event log.

        HOME is pressed unless a launcher has the focus already: a served phone that has
        just restored its content shows its launcher, and would count the press as an
        action of the episode (its clock one action ahead of the simulated phone's). A
        real device's content cannot be replaced: ``state`` must be ``None`` and ``seed``
        has nothing to seed.

        Raises:
            DeviceError: When ``state`` is given.
        """
        if state is not None:
            raise DeviceError(
                f"AdbDevice cannot load a phone state ({type(state).__name__}); serve the "
                "user's phone with `mobileintent-gym serve-adb --user USER` and evaluate with "
                "--device-has-state (ExecuteEnv(load_state=False))")
        self._dump = None  # a new episode reads the screen afresh
        focus = self._focus()
        if focus is None or route_from_component(*focus) != "launcher":
            self._send([f"input keyevent {KEYCODES['HOME']}"])
        self.events = []

    def open(self, app_id: str) -> None:
        """Bring the built-in app ``app_id`` to the front at its home screen.

        ``am force-stop`` closes the screens it was left on (its data stays), then
        ``monkey -p PACKAGE`` sends the launcher's intent, which would bring a started app
        back where it was. ``monkey`` returns once the intent is sent, before a phone has
        started the app, so this waits (up to ``config.timeout``, reading ``dumpsys
        window`` every ``config.retry_delay`` s) until the app's window has the focus: the
        next observation is of the app, not of the launcher it leaves.

        Raises:
            UnknownRouteError: When no built-in app is called ``app_id``.
            DeviceCommandError: When the device cannot launch its package.
            DeviceTimeoutError: When the app's window has not come to the front in time
                (the message names the window that has the focus).
        """
        package = app_package(app_id)
        quoted = shlex.quote(package)
        self._send([f"am force-stop {quoted}",
                    f"monkey -p {quoted} -c android.intent.category.LAUNCHER 1"])
        self._wait_for_front(package)

    def screenshot(self, fresh: bool = False) -> np.ndarray:
        """The screen as a read-only H×W×3 uint8 array (``screencap -p``).

        Every call decodes a new frame, so each is ``fresh`` whatever the argument says.

        Raises:
            DeviceCommandError: When the answer is no PNG, or one of another size than the
                screen's (a device turned to landscape): that frame would lie outside the
                env's observation space.
        """
        return read_frame(self._link.read_bytes("screencap -p"), (self.width, self.height),
                          "screencap")

    def hierarchy(self) -> str:
        """The view hierarchy in uiautomator dump XML.

        The dump file is removed first (a dump that fails may leave the last one in place);
        what ``uiautomator`` prints before it (some builds print linker warnings) is
        dropped, or quoted when no dump came (``ERROR: could not get idle state.``).

        Raises:
            DeviceCommandError: When no dump came, or one cut short (a device that went
                away mid-answer ends the stream as if it were done).
        """
        path = shlex.quote(self.config.dump_path)
        said, _, xml = self._link.read(f"rm -f {path}; uiautomator dump {path} 2>&1; "
                                       f"cat {path}").partition("<?xml")
        if not xml:
            raise DeviceCommandError(f"uiautomator dump failed: {said.strip()[:300]!r}")
        xml = f"<?xml{xml}".strip()
        if not xml.endswith("</hierarchy>"):
            raise DeviceCommandError(f"uiautomator dump cut short after {len(xml)} "
                                     f"characters: ...{xml[-80:]!r}")
        self._dump = xml
        return xml

    def route(self) -> str:
        """The focused screen's route (``package/activity`` on an ordinary device)."""
        for attempt in range(self.config.retries + 1):
            if attempt:  # the focus is briefly null while windows change
                time.sleep(self.config.retry_delay * attempt)
            if focus := self._focus():
                return route_from_component(*focus)
        raise DeviceCommandError(f"no focused window on {self.config.serial!r}")

    def act(self, action: ActionLike) -> ActResult:
        """Send one action and log it as SimPhone does (see the module notes).

        ``action`` is an ``Action``, its string form or an action-space sample, as for
        SimPhone. ``hit`` (clicks and long clicks), ``visible`` and ``visible_after`` come
        from the dumps before and after the action, ``effect`` says whether the route or
        the dump changed, and ``typed`` is the TYPE action's text. With ``observe=False`` there
        are no dumps: ``hit``/``visible`` stay empty and ``effect`` is ``True`` whenever a
        command was sent (``False`` for COMPLETE).

        Raises:
            InvalidActionError: For a malformed action, a point off screen or text the
                device cannot type.
            DeviceError: When the device rejects or does not run the command, or its
                dump cannot be read.
        """
        action = to_action(action)
        action.check_inside(self.width, self.height)
        commands = self._commands(action)
        before = self.route()
        seen = self._observe()
        after, now = before, seen
        if commands:
            self._send(commands)
            after, now = self.route(), self._observe()
        event = observed_event(len(self.events), action, (before, after), (seen, now),
                               bool(commands))
        self.events.append(event)
        return ActResult(event.effect, event.note, event)

    def shell(self, command: str) -> str:
        """Run a shell command that may change the device; returns its output.

        Raises:
            DeviceCommandError: When it exits non-zero (the message quotes its output).
        """
        self._dump = None
        return self._link.run(command)

    def close(self) -> None:
        """Let go of the device and stop the adb server if this device started it."""
        self._let_go()
        self._link.close()

    def _focus(self) -> tuple[str, str] | None:
        """The focused window's package and activity; ``None`` while no window has it."""
        text = self._link.read("dumpsys window windows")
        match = _FOCUS.search(text) or _FOCUSED_APP.search(text)
        return (match["package"], match["activity"]) if match else None

    def _wait_for_front(self, package: str) -> None:
        """Return once ``package``'s window has the focus (see :meth:`open`).

        Raises:
            DeviceTimeoutError: When it has not within ``config.timeout`` seconds.
        """
        deadline = time.monotonic() + self.config.timeout
        while (focus := self._focus()) is None or focus[0] != package:
            if time.monotonic() >= deadline:
                front = "no window" if focus is None else "/".join(focus)
                raise DeviceTimeoutError(
                    f"{package} did not come to the front of {self.config.serial!r} within "
                    f"{self.config.timeout:g} s of its launch; the focus is on {front}")
            time.sleep(self.config.retry_delay)

    def _observe(self) -> ScreenDump | None:
        """The screen as the last dump shows it, read when none is current; ``None`` when off.

        Raises:
            DeviceCommandError: When the dump is not a uiautomator dump.
        """
        if not self.config.observe:
            return None
        xml = self._dump if self._dump is not None else self.hierarchy()
        if self._screen is None or self._screen.xml is not xml:
            self._screen = read_screen(xml, "uiautomator dump")
        return self._screen

    def _send(self, commands: list[str]) -> None:
        """Run commands that change the device; the dump read before them is stale."""
        self._dump = None
        for command in commands:
            self._link.run(command)

    def _commands(self, action: Action) -> list[str]:
        kind = action.type
        if kind is ActionType.CLICK:
            return [f"input tap {action.x} {action.y}"]
        if kind is ActionType.LONG_CLICK:
            x, y = action.x, action.y
            return [f"input swipe {x} {y} {x} {y} {LONG_PRESS_GESTURE_MS}"]
        if kind is ActionType.SWIPE:
            x1, y1, x2, y2 = swipe_gesture(action.direction, self.width, self.height)
            return [f"input swipe {x1} {y1} {x2} {y2} {SWIPE_MS}"]
        if kind is ActionType.PRESS:
            return [f"input keyevent {KEYCODES[action.key]}"]
        if kind is ActionType.TYPE:
            return text_commands(action.text, self.config.adb_keyboard)
        return []

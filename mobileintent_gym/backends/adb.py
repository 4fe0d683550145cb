"""``AdbDevice``: a real Android device or emulator behind the :class:`Device` contract.

It talks to the adb server through adbutils (``pip install 'mobileintent-gym[android]'``):

* ``screenshot()`` — ``screencap -p``, decoded with Pillow to an H×W×3 uint8 array;
* ``hierarchy()`` — ``uiautomator dump``; parse it with
  :func:`mobileintent_gym.phone.hierarchy.parse` into the simulated phone's node model;
* ``route()`` — the focused ``package/activity`` from ``dumpsys window`` (the exact route on
  the virtual device, see :mod:`mobileintent_gym.adbd.conventions`);
* ``act()`` — ``input tap``, a still 1 s ``input swipe`` for a long press, the canonical
  swipe gesture, ``input keyevent`` (3 HOME, 4 BACK, 66 ENTER) and ``input text``.

**Typed text is never interpreted by the device shell.** Every argument is single-quoted
(:func:`shlex.quote`), ``input text``'s own escape ``%s`` (a space) is written for spaces,
and a literal ``%s`` is sent in two pieces so that it stays literal. ``input text`` can
only type printable ASCII; other text (non-ASCII letters, emoji, tabs, newlines) raises
:class:`UnsupportedTextError` unless ``adb_keyboard=True``, which sends it base64-encoded
to the ADBKeyboard IME (``am broadcast -a ADB_INPUT_B64``; install and enable that IME on
the device first).

Reads are retried (bounded) on timeouts; actions are never retried, since a repeated tap
is a different action. Errors are :class:`DeviceError` subclasses raised ``from`` the
adbutils cause; a device that vanishes gives :class:`DeviceUnavailableError`.

Commands go through adbutils' connection to the adb server, but not through its
``shell()``: that opens a second connection per call to ask the server's version, and
closes each connection with a fixed 10 ms sleep, which made every command take ~22 ms on
loopback instead of ~1 ms (measured with ``benchmarks/adb_roundtrip.py``).
"""

from __future__ import annotations

import base64
import io
import os
import re
import shlex
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
from PIL import Image, UnidentifiedImageError

from mobileintent_gym.actions import Action, ActionType
from mobileintent_gym.adbd.conventions import (
    KEYCODES,
    LONG_PRESS_GESTURE_MS,
    SWIPE_MS,
    route_from_component,
    swipe_gesture,
)
from mobileintent_gym.errors import DeviceError, InvalidActionError, require
from mobileintent_gym.phone import ActResult, StepEvent

_FOCUS = re.compile(
    r"mCurrentFocus=Window\{\S+ \S+ (?P<package>[^\s/}]+)/(?P<activity>[^\s}]+)\}")
_FOCUSED_APP = re.compile(
    r"mFocusedApp=.*?ActivityRecord\{\S+ \S+ (?P<package>[^\s/]+)/(?P<activity>\S+)")
_SIZE = re.compile(r"(?:Override|Physical) size: (\d+)x(\d+)")
_V2_HEADER = struct.Struct("<BI")  # shell v2 packet: id (1 stdout, 2 stderr, 3 exit), length
_V2_EXIT = 3
T = TypeVar("T")


class DeviceUnavailableError(DeviceError):
    """The device is not connected, went away, or the adb server is unreachable."""


class DeviceTimeoutError(DeviceError):
    """The device did not answer in time (after the allowed retries)."""


class DeviceCommandError(DeviceError):
    """A device command failed or answered something unexpected; the message quotes it."""


class UnsupportedTextError(DeviceError, InvalidActionError):
    """Text that ``input text`` cannot type (non-ASCII or control characters)."""


def _default_server_port() -> int:
    return int(os.environ.get("ANDROID_ADB_SERVER_PORT", "5037"))


@dataclass(frozen=True)
class AdbConfig:
    """How to reach the device.

    Attributes:
        serial: The adb serial, e.g. ``emulator-5554`` or ``127.0.0.1:15555``.
        server_host: Host of the adb server (adbutils talks to the server, not the device).
        server_port: Port of the adb server: ``$ANDROID_ADB_SERVER_PORT`` as for the adb
            client itself, else 5037.
        timeout: Seconds one device command may take.
        retries: Extra attempts for reads (screenshot, hierarchy, route) after a timeout.
        retry_delay: Seconds between attempts.
        adb_keyboard: Type non-ASCII text through the ADBKeyboard IME.
        dump_path: Where ``uiautomator dump`` writes on the device.
    """

    serial: str
    server_host: str = "127.0.0.1"
    server_port: int = field(default_factory=_default_server_port)
    timeout: float = 10.0
    retries: int = 2
    retry_delay: float = 0.3
    adb_keyboard: bool = False
    dump_path: str = "/sdcard/window_dump.xml"


def text_commands(text: str, adb_keyboard: bool = False) -> list[str]:
    """Shell command lines that type ``text`` literally.

    Raises:
        UnsupportedTextError: For characters ``input text`` cannot type, unless
            ``adb_keyboard``.
    """
    if not all(" " <= char <= "~" for char in text):
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


def _until_close(connection: Any) -> bytes:
    """Everything the device sends until it closes the stream."""
    return connection.read_until_close(encoding=None)


def _v2_result(connection: Any) -> tuple[int, bytes]:
    """Read shell v2 packets until the exit code: ``(exit code, stdout and stderr)``.

    Raises:
        EOFError: When the stream ends before the exit code (the device went away).
    """
    output = []
    while True:
        kind, length = _V2_HEADER.unpack(connection.read_exact(_V2_HEADER.size))
        data = connection.read_exact(length)
        if kind == _V2_EXIT:
            return (data[0] if data else 255), b"".join(output)
        output.append(data)


class AdbDevice:
    """A device reached through adb, satisfying :class:`~mobileintent_gym.backends.Device`.

    Args:
        config: Where the device is; or pass a serial string for the defaults.

    Raises:
        DependencyNotInstalled: Without adbutils.
        DeviceUnavailableError: When the device is not attached and online.
    """

    def __init__(self, config: AdbConfig | str) -> None:
        self.config = AdbConfig(config) if isinstance(config, str) else config
        self._adbutils = require("adbutils", "android")
        self._client = self._adbutils.AdbClient(self.config.server_host, self.config.server_port,
                                                socket_timeout=self.config.timeout)
        self._device = self._client.device(self.config.serial)
        state = self._call(lambda: self._query("get-state"), "get-state", retry=True)
        if state != "device":
            raise DeviceUnavailableError(f"device {self.config.serial!r} is {state!r}, not online")
        features = self._call(lambda: self._query("features"), "features", retry=True)
        self._shell_v2 = "shell_v2" in features.split(",")
        size = _SIZE.search(self._read("wm size"))
        if size is None:
            raise DeviceCommandError(f"cannot read the screen size of {self.config.serial!r}")
        self.width, self.height = int(size.group(1)), int(size.group(2))
        self.events: list[StepEvent] = []

    def reset(self, state: object = None, seed: int | None = None) -> None:
        """Go to the home screen and start a new event log.

        A real device's content cannot be replaced: ``state`` must be ``None`` and ``seed``
        has nothing to seed.

        Raises:
            DeviceError: When ``state`` is given.
        """
        if state is not None:
            raise DeviceError(f"AdbDevice cannot load a phone state ({type(state).__name__}); "
                              "serve it with `mobileintent-gym serve-adb` instead")
        self._run(f"input keyevent {KEYCODES['HOME']}")
        self.events = []

    def screenshot(self) -> np.ndarray:
        """The screen as an H×W×3 uint8 array (``screencap -p``)."""
        data = self._call(lambda: self._service("exec:screencap -p"), "screencap -p", retry=True)
        try:
            image = Image.open(io.BytesIO(data))
            return np.asarray(image.convert("RGB"))
        except (UnidentifiedImageError, OSError) as err:
            raise DeviceCommandError(f"screencap gave no PNG: {data[:40]!r}") from err

    def hierarchy(self) -> str:
        """The view hierarchy in uiautomator dump XML."""
        path = shlex.quote(self.config.dump_path)
        xml = self._read(f"uiautomator dump {path} >/dev/null && cat {path}")
        if not xml.startswith("<?xml"):
            raise DeviceCommandError(f"uiautomator dump failed: {xml[:200]!r}")
        return xml

    def route(self) -> str:
        """The focused screen's route (``package/activity`` on an ordinary device)."""
        for attempt in range(self.config.retries + 1):
            if attempt:  # the focus is briefly null while windows change
                time.sleep(self.config.retry_delay * attempt)
            text = self._read("dumpsys window windows")
            match = _FOCUS.search(text) or _FOCUSED_APP.search(text)
            if match:
                return route_from_component(match["package"], match["activity"])
        raise DeviceCommandError(f"no focused window on {self.config.serial!r}")

    def act(self, action: Action) -> ActResult:
        """Send one action and log routes before and after it.

        A real device does not say whether an action changed the screen, so the event's
        ``effect`` is ``True`` whenever a command was sent (``False`` for COMPLETE), and
        ``hit``/``visible`` are left empty; parse :meth:`hierarchy` to inspect the screen.

        Raises:
            InvalidActionError: For a point off screen or text the device cannot type.
            DeviceError: When the device rejects or does not run the command.
        """
        action.check_inside(self.width, self.height)
        commands = self._commands(action)
        before = self.route()
        for command in commands:
            self._run(command)
        after = self.route() if commands else before
        note = "intention declared complete" if action.type is ActionType.COMPLETE else ""
        event = StepEvent(len(self.events), str(action), before, after, None, (), (),
                          action.text, bool(commands), note, time.strftime("%Y-%m-%d %H:%M:%S"))
        self.events.append(event)
        return ActResult(event.effect, note, event)

    def close(self) -> None:
        """Nothing to release: adbutils opens a connection per command."""

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

    def _read(self, command: str) -> str:
        data = self._call(lambda: self._service(f"shell:{command}"), command, retry=True)
        return data.decode("utf-8", errors="replace")

    def _run(self, command: str) -> None:
        """Run an action's command once; a non-zero exit status is an error.

        The status comes from shell v2; on devices without it (before Android 7) from
        adbutils' ``echo $?`` fallback.
        """
        if self._shell_v2:
            code, output = self._call(lambda: self._service(f"shell,v2,raw:{command}", _v2_result),
                                      command, retry=False)
        else:
            result = self._call(lambda: self._device.shell2(
                command, timeout=self.config.timeout, encoding=None), command, retry=False)
            code, output = result.returncode, result.output
        if code != 0:
            raise DeviceCommandError(f"{command!r} exited {code}: {output.strip()[:200]!r}")

    def _query(self, request: str) -> str:
        """Ask the adb server about this device (``get-state``, ``features``).

        adbutils' own ``get_state()`` waits up to 600 s whatever its client's timeout says;
        this honours :attr:`AdbConfig.timeout`.
        """
        return self._exchange((f"host-serial:{self.config.serial}:{request}",),
                              lambda connection: connection.read_string_block())

    def _service(self, service: str, read: Callable[[Any], T] = _until_close) -> T:
        """Open ``service`` (``shell:wm size``, ``exec:screencap -p`` ...) and read its answer."""
        return self._exchange((f"host:transport:{self.config.serial}", service), read)

    def _exchange(self, requests: tuple[str, ...], read: Callable[[Any], T]) -> T:
        """Send adb-server requests on one fresh connection, then ``read`` the answer.

        The socket is closed directly: adbutils' ``close()`` sleeps 10 ms (module notes).
        """
        connection = self._client.make_connection(timeout=self.config.timeout)
        try:
            for request in requests:
                connection.send_command(request)
                connection.check_okay()
            return read(connection)
        finally:
            connection.conn.close()

    def _call(self, function: Callable[[], T], what: str, retry: bool) -> T:
        adbutils = self._adbutils
        attempts = self.config.retries + 1 if retry else 1
        attempt = 1
        while True:
            try:
                return function()
            except adbutils.AdbTimeout as err:
                if attempt >= attempts:
                    raise DeviceTimeoutError(
                        f"{what!r} on {self.config.serial!r} timed out after {attempts} "
                        f"attempt(s) of {self.config.timeout}s") from err
            except (adbutils.AdbError, OSError, EOFError) as err:
                raise DeviceUnavailableError(
                    f"{what!r} failed: device {self.config.serial!r} is unreachable ({err})"
                ) from err
            attempt += 1
            time.sleep(self.config.retry_delay)


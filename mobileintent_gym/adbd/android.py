"""Android's device commands on the virtual device, the ones that touch the phone.

``input``, ``screencap``, ``uiautomator``, ``am``, ``monkey``, ``pm`` and ``wm``; ``dumpsys``
lives in :mod:`mobileintent_gym.adbd.dumpsys`. ``input``'s numbers are read as Android
reads them (decimal, finite, within a 32-bit int); anything else is ``Error: Invalid
arguments`` with status 1. The ADBKeyboard IME is installed and in use (see
:mod:`~mobileintent_gym.adbd.ime`): ``am broadcast -a ADB_INPUT_B64 --es msg BASE64`` (or
``ADB_INPUT_TEXT --es msg TEXT``) types any Unicode text into the focused field, as
``input text`` types ASCII.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import io
import logging
import math
import re
import struct
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image

from mobileintent_gym.actions import Action
from mobileintent_gym.adbd.am_args import HOME_CATEGORY, AmArgs, read_intent, requested
from mobileintent_gym.adbd.am_start import NEW_TASK, Intent, Launch, class_name, report
from mobileintent_gym.adbd.conventions import (
    LONG_PRESS_MS,
    activity_for,
    route_from_component,
    swipe_gesture,
)
from mobileintent_gym.adbd.ime import ADB_IME, LATIN_IME, selected
from mobileintent_gym.adbd.javanum import ShellArgs, check_user, java_exception, java_integer
from mobileintent_gym.adbd.keycodes import KEYCODES
from mobileintent_gym.adbd.shell import CommandFn, Invocation, Output
from mobileintent_gym.errors import AppActionError, MobileIntentError
from mobileintent_gym.phone import launcher
from mobileintent_gym.phone.keyboard import BACKSPACE

if TYPE_CHECKING:
    from mobileintent_gym.adbd.device import VirtualDevice

_INPUT_SOURCES = frozenset({"touchscreen", "touchpad", "keyboard", "mouse", "trackball",
                            "stylus", "dpad", "gamepad", "joystick", "touchnavigation"})
# The keys that type: digits, letters (lower case, no modifier held) and space.
_TYPED_KEYS = {code: name.lower() for name, code in KEYCODES.items() if len(name) == 1} | {
    KEYCODES["SPACE"]: " "}
_PHONE_KEYS = {3: "HOME", 4: "BACK", 66: "ENTER"}
_DUMP_PATH = "/sdcard/window_dump.xml"
# pm list packages' options: flags, and those that take a value.
_PM_FLAGS = frozenset({"-a", "-d", "-e", "-f", "-i", "-l", "-s", "-u", "-U", "-3",
                       "--show-versioncode", "--apex-only", "--factory-only"})
_PM_VALUED = frozenset({"--user", "--uid"})


log = logging.getLogger(__name__)


def _usage(message: str) -> Output:
    return Output(stderr=f"{message}\n".encode(), code=1)


_INT_RANGE = 2**31
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)
# ADBKeyboard's broadcasts that type text, and how each carries it in its "msg" extra.
_KEYBOARD_ACTIONS = {"ADB_INPUT_B64": True, "ADB_INPUT_TEXT": False}
_FROM_SHELL = 0x400000  # what am broadcast adds to its intents (FLAG_RECEIVER_FROM_SHELL)
# The packages besides the apps': system ones (with their APKs) and ADBKeyboard.
_SYSTEM_PACKAGES = {launcher.PACKAGE: "/system/priv-app/Launcher3/Launcher3.apk",
                    LATIN_IME.partition("/")[0]: "/system/app/LatinIME/LatinIME.apk"}
_KEYBOARD_PACKAGE = ADB_IME.partition("/")[0]
_DISPLAY_NAMES = ("DEFAULT_DISPLAY", "INVALID_DISPLAY")  # what input's -d takes besides a number
# The launcher's activity as the device reports it, short and in full.
_LAUNCHER_COMPONENTS = frozenset({
    activity_for(launcher.PACKAGE, "launcher"),
    activity_for(launcher.PACKAGE, "launcher").replace("/.", f"/{launcher.PACKAGE}.", 1)})
_TO_FRONT = "Warning: Activity not started, its current task has been brought to the front"
# Monkey's options that take no value, and those that take one (and every --pct-*).
_MONKEY_FLAGS = frozenset({
    "-v", "--ignore-crashes", "--ignore-timeouts", "--ignore-security-exceptions",
    "--ignore-native-crashes", "--kill-process-after-error", "--monitor-native-crashes",
    "--wait-dbg", "--dbg-no-events", "--hprof", "--randomize-throttle", "--bugreport",
    "--randomize-script", "--script-log", "--permission-target-system"})
_MONKEY_VALUED = frozenset({"-p", "-c", "-s", "--throttle", "--pkg-blacklist-file",
                            "--pkg-whitelist-file", "--setup", "-f", "--port", "--profile-wait",
                            "--device-sleep-time", "--periodic-bugreport",
                            "--match-description"})


def _ints(values: list[str]) -> list[int]:
    """Android's reading of numeric arguments: finite decimals within a 32-bit int.

    Raises:
        ValueError: Naming the first value that is not such a number.
    """
    numbers = []
    for value in values:
        number = float(value) if _NUMBER.fullmatch(value) else math.nan
        if not (math.isfinite(number) and -_INT_RANGE <= number < _INT_RANGE):
            raise ValueError(f"not a number in range: {value[:40]!r}")
        numbers.append(int(number))
    return numbers


def _pm_options(args: list[str]) -> tuple[set[str], dict[str, str], str]:
    """``pm list packages``' flags, valued options and filter, read as Android reads them.

    Options come first (``--`` ends them); the first other word is the filter, and what
    follows it is not read. ``--uid`` shows uids too.

    Raises:
        ValueError: For an unknown option, one without its value, or a value that is no
            number.
    """
    flags: set[str] = set()
    values: dict[str, str] = {}
    words = iter(args)
    for word in words:
        if word == "--" or not word.startswith("-"):
            return flags, values, next(words, "") if word == "--" else word
        if word in _PM_VALUED:
            value = next(words, None)
            if value is None:
                raise ValueError(f'java.lang.IllegalArgumentException: Argument expected '
                                 f'after "{word}"')
            _pm_check_value(word, value)
            values[word] = value
            flags |= {"-U"} if word == "--uid" else set()
        elif word in _PM_FLAGS:
            flags.add(word)
        else:
            raise ValueError(f"Unknown option: {word}")
    return flags, values, ""


def _pm_check_value(option: str, value: str) -> None:
    """Refuse a ``--user`` or ``--uid`` value as Android does (a user name, or an int).

    Raises:
        ValueError: With the exception Android prints.
    """
    if option == "--user":
        check_user(value)
    if option == "--uid" and not java_integer(value, 32):
        raise ValueError(f'java.lang.NumberFormatException: For input string: "{value}"')


def package_uids(apps: Iterable[str]) -> dict[str, int]:
    """Every installed package's uid: the system's, ADBKeyboard and ``apps``, by name."""
    names = sorted({*_SYSTEM_PACKAGES, _KEYBOARD_PACKAGE, *apps})
    return {name: 10100 + n for n, name in enumerate(names)}


def _pm_line(name: str, uid: int, flags: set[str]) -> str:
    """One package as ``pm list packages`` writes it with ``flags``."""
    path = _SYSTEM_PACKAGES.get(name, f"/data/app/~~sim/{name}-1/base.apk")
    line = f"package:{f'{path}=' if '-f' in flags else ''}{name}"
    line += " versionCode:1" if "--show-versioncode" in flags else ""
    line += "  installer=null" if "-i" in flags else ""
    return f"{line}{f' uid:{uid}' if '-U' in flags else ''}\n"


def _monkey_options(args: list[str]) -> tuple[dict[str, str], int]:
    """Monkey's options with a value (the last of each wins) and its count.

    Raises:
        ValueError: Saying what monkey says of an unknown option, a missing value or count,
            or a count that is no number.
    """
    options: dict[str, str] = {}
    index = 0
    while index < len(args) and args[index].startswith("-"):
        option = args[index]
        if option == "--":  # the end of the options
            index += 1
            break
        if option in _MONKEY_FLAGS:
            index += 1
            continue
        if option not in _MONKEY_VALUED and not option.startswith("--pct-"):
            raise ValueError(f"Unknown option: {option[:40]}")
        if index + 1 == len(args):
            raise ValueError(f"Argument expected after {option}")
        options[option] = args[index + 1]
        index += 2
    if index == len(args):
        raise ValueError("Count not specified")
    if not java_integer(args[index], 32):
        raise ValueError(f'Count is not a number: "{args[index][:40]}"')
    return options, int(args[index])


def _screencap_args(args: list[str]) -> tuple[set[str], list[str]]:
    """The flags (``h``, ``p``) and files of a screencap, its options read wherever they stand.

    ``-d`` takes the next word, or what is joined to it, as the display's id; letters may
    be grouped (``-hp``).

    Raises:
        ValueError: Naming an option screencap does not have, or ``-d`` without its id.
    """
    flags: set[str] = set()
    files: list[str] = []
    words = iter(args)
    for word in words:
        if word == "--":
            files.extend(words)
        elif word.startswith("-") and word != "-":
            for at, letter in enumerate(word[1:], 1):
                if letter == "d":  # the display's id, unused: there is one display
                    if at == len(word) - 1 and next(words, None) is None:
                        raise ValueError("option requires an argument '-d'")
                    break
                if letter not in "hp":
                    raise ValueError(f"invalid option '-{letter}'")
                flags.add(letter)
                if letter == "h":  # the usage at once: what follows is not read
                    return flags, files
        else:
            files.append(word)
    return flags, files


def _keyboard_text(action: str, message: str) -> str:
    """The text an ADBKeyboard broadcast types (``msg`` decoded for ``ADB_INPUT_B64``).

    Raises:
        ValueError: When a base64 message is not base64 of UTF-8 text.
    """
    if not _KEYBOARD_ACTIONS[action]:
        return message
    try:
        return base64.b64decode(message, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as err:
        raise ValueError(f"msg is not base64 of UTF-8 text: {message[:40]!r}") from err


def android_text(raw: str) -> str:
    """Decode ``input text``'s argument as Android does: ``%s`` stands for a space."""
    out, index = [], 0
    while index < len(raw):
        if raw.startswith("%s", index):
            out.append(" ")
            index += 2
        else:
            out.append(raw[index])
            index += 1
    return "".join(out)


class PhoneCommands:
    """The commands that look at or drive the simulated phone."""

    def __init__(self, device: VirtualDevice) -> None:
        self.device = device
        self.phone = device.phone
        self._png: tuple[np.ndarray, bytes] | None = None

    def table(self) -> dict[str, CommandFn]:
        """Command name to implementation."""
        return {"input": self.input, "screencap": self.screencap,
                "uiautomator": self.uiautomator, "am": self.am, "monkey": self.monkey,
                "pm": self.pm, "wm": self.wm}

    def input(self, inv: Invocation) -> Output:
        """``input [SOURCE] [-d DISPLAY] tap|swipe|draganddrop|text|keyevent ARGS``."""
        args = inv.argv[1:]
        if args and args[0] in _INPUT_SOURCES:
            args = args[1:]
        if args[:1] == ["-d"]:  # the phone has one display: any id Android reads is it
            if len(args) < 2 or not (args[1].upper() in _DISPLAY_NAMES
                                     or java_integer(args[1], 32)):
                return _usage("Error: Invalid arguments for display ID.")
            args = args[2:]
        handlers: dict[str, Callable[[list[str]], Output]] = {
            "tap": self._tap, "swipe": self._swipe, "draganddrop": self._swipe,
            "text": self._text, "keyevent": self._keyevent,
        }
        if not args or args[0] not in handlers:
            return _usage(f"Error: Unknown command: {args[0] if args else '(none)'}")
        try:
            return handlers[args[0]](args[1:])
        except AppActionError as err:  # the app failed, not the arguments
            log.warning("input %s failed in the app: %s", args[0], err)  # with the server's file
            return _usage(f"Error: {args[0]} failed in the app: {err.reason}")
        except (ValueError, MobileIntentError) as err:
            return _usage(f"Error: Invalid arguments for command: {args[0]}: {err}")

    def _tap(self, args: list[str]) -> Output:
        """A tap; one off the screen reaches no window and does nothing, as on a phone."""
        if len(args) != 2:
            raise ValueError(f"expected x y, got {args}")
        x, y = _ints(args)
        if self._on_screen(x, y):
            self.phone.act(Action.click(x, y))
        return Output()

    def _on_screen(self, x: int, y: int) -> bool:
        return 0 <= x < self.phone.width and 0 <= y < self.phone.height

    def _swipe(self, args: list[str]) -> Output:
        """A swipe, as a phone takes it (one off the screen at its start does nothing).

        A swipe that starts off the screen reaches no window; one that leaves the screen
        is a drag all the same (the window follows the finger off its edge).
        """
        if len(args) not in (4, 5):
            raise ValueError(f"expected x1 y1 x2 y2 [duration], got {args}")
        x1, y1, x2, y2, duration = _ints([*args, "300"][:5])
        if not self._on_screen(x1, y1):
            return Output()
        for direction in ("UP", "DOWN", "LEFT", "RIGHT"):
            if (x1, y1, x2, y2) == swipe_gesture(direction, self.phone.width, self.phone.height):
                self.phone.act(Action.swipe(direction))
                return Output()
        slop = 8 * self.phone.density
        if max(abs(x2 - x1), abs(y2 - y1)) < slop and duration >= LONG_PRESS_MS:
            self.phone.act(Action.long_click(x1, y1))
        else:
            self.phone.swipe_between(x1, y1, x2, y2)
        return Output()

    def _text(self, args: list[str]) -> Output:
        """Type the first argument, as Android 11 and later do (the others are ignored)."""
        if not args:
            raise ValueError("no text")
        if not args[0].isascii():  # Android's key map has no keys for it: nothing is typed
            return Output(stderr=b"Error: input text types ASCII only; use the ADBKeyboard "
                                 b"broadcast (ADB_INPUT_B64) for other text\n", code=1)
        self.phone.act(Action.type_text(android_text(args[0])))
        return Output()

    def _keyevent(self, args: list[str]) -> Output:
        codes = []
        for arg in (a for a in args if a not in ("--longpress", "--doubletap")):
            name = arg.upper().removeprefix("KEYCODE_")
            if arg.isdecimal():
                codes.extend(_ints([arg]))
            elif name in KEYCODES:
                codes.append(KEYCODES[name])
            else:
                raise ValueError(f"unknown keycode {arg!r}")
        if not codes:
            raise ValueError("no keycode")
        for code in codes:
            self._key(code)
        return Output()

    def _key(self, code: int) -> None:
        """One key event, as a phone takes it: typing keys reach the focused field.

        DEL is the keyboard's backspace; a letter, digit or space key types its character
        (lower case, as with no modifier held). Keys the simulated phone has no use for
        (volume, power, the D-pad ...) do nothing, and so does a typing key with no field
        focused.
        """
        if code in _PHONE_KEYS:
            self.phone.act(Action.press(_PHONE_KEYS[code]))
        elif code == KEYCODES["DEL"]:
            if (key := self.phone.key_center(BACKSPACE)) is not None:
                self.phone.act(Action.click(*key))
        elif code in _TYPED_KEYS:
            self.phone.act(Action.type_text(_TYPED_KEYS[code]))

    def screencap(self, inv: Invocation) -> Output:
        """``screencap [-p] [-d ID] [FILE]``: PNG with ``-p`` or a ``.png`` file, else raw RGBA.

        Options are read wherever they stand, before or after the file, up to ``--``;
        ``-h`` or a second file shows the usage (status 1).
        """
        usage = "usage: screencap [-hp] [-d display-id] [FILENAME]"
        try:
            flags, files = _screencap_args(inv.argv[1:])
        except ValueError as err:  # -x was written to a file
            return _usage(f"screencap: {err}\n{usage}")
        if "h" in flags or len(files) > 1:  # as Android's: the usage, status 1
            return _usage(usage)
        png = "p" in flags or (files and files[0].endswith(".png"))
        data = self.png() if png else self._raw()
        if not files:
            return Output(data)
        self.device.fs.write(files[0], data)
        return Output()

    def png(self) -> bytes:
        """The current frame as PNG bytes (fast compression: screenshots are hot).

        The phone hands out the same read-only frame while the screen is unchanged, so the
        encoding of the last frame is kept and reused for it.
        """
        frame = self.phone.screenshot()
        if self._png is None or self._png[0] is not frame:
            buffer = io.BytesIO()
            Image.fromarray(frame).save(buffer, format="PNG", compress_level=1)
            self._png = (frame, buffer.getvalue())
        return self._png[1]

    def _raw(self) -> bytes:
        frame = self.phone.screenshot()
        height, width = frame.shape[:2]
        rgba = Image.fromarray(frame).convert("RGBA").tobytes()
        # width, height, PIXEL_FORMAT_RGBA_8888 = 1, dataspace (unknown = 0)
        return struct.pack("<4I", width, height, 1, 0) + rgba

    def uiautomator(self, inv: Invocation) -> Output:
        """``uiautomator dump [--compressed] [FILE]`` (``/dev/tty`` prints the XML)."""
        args = [a for a in inv.argv[1:] if a not in ("--compressed", "--verbose")]
        if not args or args[0] != "dump":
            return _usage("Usage: uiautomator dump [--compressed] [file]")
        path = args[1] if len(args) > 1 else _DUMP_PATH
        xml = self.phone.hierarchy().encode("utf-8")
        if path in ("/dev/tty", "/dev/stdout"):
            return Output(xml + f"UI hierchary dumped to: {path}\n".encode())
        self.device.fs.write(path, xml)
        return Output(f"UI hierchary dumped to: {path}\n".encode())

    def am(self, inv: Invocation) -> Output:
        """``am start [OPTIONS] [-n] PACKAGE/ACTIVITY|PACKAGE``: see :meth:`start`.

        ``am broadcast -a ACTION [--es KEY VALUE]...``: see :meth:`broadcast`;
        ``am force-stop [--user USER] PACKAGE``: see :meth:`force_stop`.
        """
        args = inv.argv[1:]
        if args[:1] == ["broadcast"]:
            return self.broadcast(ShellArgs(args, 1))
        if args[:1] == ["force-stop"]:
            return self.force_stop(args[1:])
        if args[:1] not in (["start"], ["start-activity"]):
            return _usage(f"am: unsupported sub-command {' '.join(args[:1]) or '(none)'}")
        try:
            read = read_intent(ShellArgs(args, 1))
        except ValueError as err:
            return java_exception(args[0], err)
        return self.start(read)

    def start(self, read: AmArgs) -> Output:
        """``am start``: the intent its options and the argument after them name.

        The argument is a component (``PACKAGE/ACTIVITY``, an activity being one of the
        app's routes, as the device reports them), a package, whose app comes back where
        it was, as from its icon, or a URI, which resolves to no app. ``-S`` stops the app
        first (it starts afresh); ``-W`` reports the launch. A route that shows a record
        takes its parameters as string extras (``--es id RECORD``). The home intent (``-c
        android.intent.category.HOME``) shows the launcher. The other options and extras
        are read as for :meth:`broadcast`, and unused. What it prints is
        :func:`~mobileintent_gym.adbd.am_start.report`'s.
        """
        if read.options.get("--user") == "all":  # (Android's message says "service")
            return _usage("Error: Can't start service with user 'all'")
        intent = requested(read)
        stopped = self._stop(intent) if "-S" in read.options else ""
        if stopped is None:
            return _usage(f"Error: Intent does not match any activities: {intent}")
        began = time.monotonic()
        launch = self._launch(intent, read.extras)
        return report(dataclasses.replace(launch, stopped=stopped), "-W" in read.options,
                      time.monotonic() - began)

    def _stop(self, intent: Intent) -> str | None:
        """``-S``: stop the package ``intent`` names; which (``None``: it names none)."""
        package = intent.package_named
        if package in self.phone.packages():
            self.phone.stop(self.phone.packages()[package])
        elif not intent.component:  # no activity matches: only the launcher's home one
            return launcher.PACKAGE if self._home_intent(intent) else None
        return package

    @staticmethod
    def _home_intent(intent: Intent) -> bool:
        """Whether ``intent`` starts the launcher (its activity, or the home category)."""
        return intent.component in _LAUNCHER_COMPONENTS or (
            not intent.package_named and HOME_CATEGORY in intent.categories)

    def _launch(self, intent: Intent, extras: dict[str, tuple[str, str]]) -> Launch:
        """Start what ``intent`` names: an activity, an app, or the launcher."""
        if self._home_intent(intent):
            return self._go_home(intent)
        if intent.component:
            return self._start_activity(intent, extras)
        if intent.package not in self.phone.packages():
            sent = dataclasses.replace(intent, flags=intent.flags | NEW_TASK)
            return Launch(intent, notes=(f"Error: Activity not started, unable to resolve "
                                         f"{sent}",))
        return self._start_app(intent)

    def _go_home(self, intent: Intent) -> Launch:
        """The launcher in front, its task brought there (or the intent delivered to it)."""
        if self.phone.foreground_package() == launcher.PACKAGE:
            return Launch(intent, "UNKNOWN (0)", self.device.component(), (
                "Warning: Activity not started, intent has been delivered to currently "
                "running top-most instance.",))
        self.phone.home()
        return Launch(intent, "HOT", self.device.component(), (_TO_FRONT,))

    def _start_activity(self, intent: Intent, extras: dict[str, tuple[str, str]]) -> Launch:
        """``am start -n PACKAGE/ACTIVITY``: the route the activity names.

        The route's parameters are the string extras (``-e``, ``--es``) named as they are.
        An activity of no app's (or of an app not installed) is Android's "Error type 3";
        the lines after it say what the app's activities are, or why the route is none.
        """
        package, _, activity = intent.component.partition("/")
        route = route_from_component(package, activity) if activity else ""
        app_id = self.phone.packages().get(package, "")
        missing = ("Error type 3",
                   f"Error: Activity class {class_name(intent.component)} does not exist.")
        if not app_id:
            return Launch(intent, notes=missing)
        if not route.startswith(app_id + "/"):  # no activity of the app's
            home = activity_for(package, self.phone.apps[app_id].home)
            return Launch(intent, notes=(*missing, f"(the app's activities are its routes, as "
                                         f"{home}; am start {package} opens it as from its "
                                         "icon)"))
        screen = self.phone.apps[app_id].routes.get(route)
        wanted = screen.params if screen else ()
        params = {key: value for key, (option, value) in extras.items()
                  if option in ("-e", "--es") and key in wanted}
        state = "WARM" if self.phone.running(app_id) else "COLD"
        try:
            self.phone.open(app_id, route, **params)
        except MobileIntentError as err:  # a route that does not exist or needs parameters
            hint = "; pass them as --es NAME VALUE" if len(params) < len(wanted) else ""
            return Launch(intent, notes=(*missing, f"({err}{hint})"))
        return Launch(intent, state, self.device.component())

    def _start_app(self, intent: Intent) -> Launch:
        """``am start PACKAGE``: the installed app as from its icon (its task to the front)."""
        app_id = self.phone.packages()[intent.package]
        running = self.phone.running(app_id)
        self.phone.launch(app_id)
        return Launch(intent, "HOT" if running else "COLD", self.device.component(),
                      (_TO_FRONT,) if running else ())

    def force_stop(self, args: list[str]) -> Output:
        """``am force-stop [--user USER] PACKAGE``: the app's screens close, its data stays.

        Read as Android reads it (status 255 on any error): options first (``--user``
        takes a number, ``all`` or ``current``), then the package; what follows is ignored,
        and a package that is not installed is no error: nothing happens.
        """
        words = ShellArgs(["force-stop", *args], 1)
        try:
            while (option := words.option()) is not None:
                if option != "--user":
                    return Output(stderr=f"Error: Unknown option: {option}\n".encode(),
                                  code=255)
                check_user(words.required())
            package = words.required()
        except ValueError as err:
            return java_exception("force-stop", err)
        app_id = self.phone.packages().get(package)
        if app_id is not None:
            self.phone.stop(app_id)
        return Output()

    def broadcast(self, words: ShellArgs) -> Output:
        """``am broadcast``: ADBKeyboard's text broadcasts type; others reach no receiver.

        While ADBKeyboard is the input method in use (see :mod:`~mobileintent_gym.adbd.ime`),
        ``-a ADB_INPUT_B64 --es msg BASE64`` types the decoded UTF-8 text and ``-a
        ADB_INPUT_TEXT --es msg TEXT`` the text itself into the focused field (sent to
        every receiver, or ``-p com.android.adbkeyboard``).
        """
        try:
            read = read_intent(words)
        except ValueError as err:
            return java_exception("broadcast", err)
        intent = requested(read)
        if intent.action in _KEYBOARD_ACTIONS and self._to_keyboard(intent):
            kind, message = read.extras.get("msg", ("--es", ""))
            message = message if kind in ("-e", "--es") else ""  # ADBKeyboard reads a text
            try:
                self.phone.act(Action.type_text(_keyboard_text(intent.action, message)))
            except (ValueError, MobileIntentError) as err:
                return _usage(f"Error: broadcast {intent.action}: {err}")
        sent = dataclasses.replace(intent, flags=intent.flags | _FROM_SHELL)
        return Output(f"Broadcasting: {sent}\nBroadcast completed: result=0\n".encode())

    def _to_keyboard(self, intent: Intent) -> bool:
        """Whether ADBKeyboard receives ``intent``: it is in use, and the intent is for it."""
        return (selected(self.device.settings) == ADB_IME and not intent.component
                and intent.package in ("", _KEYBOARD_PACKAGE))

    def monkey(self, inv: Invocation) -> Output:
        """``monkey -p PACKAGE [-c CATEGORY] [-v] [-s SEED] [--throttle MS] COUNT``.

        Launches the package, as its launcher icon does (a started app comes back where it
        was left), when ``COUNT`` is at least one; no random events follow. Options it does
        not know, or a missing or non-numeric count, are errors (exit code 255) as on
        Android.
        """
        try:
            options, count = _monkey_options(inv.argv[1:])
        except ValueError as err:
            return Output(stderr=f"** Error: {err}\n".encode(), code=255)
        package = options.get("-p", "")
        if package not in self.phone.packages():
            return Output(b"** No activities found to run, monkey aborted.\n", code=252)
        if count:
            self.phone.launch(self.phone.packages()[package])
        return Output(f"  bash arg: -p\nEvents injected: {min(count, 1)}\n"
                      "## Network stats: elapsed time=1ms\n".encode())

    def pm(self, inv: Invocation) -> Output:
        """``pm list packages [OPTIONS] [FILTER]``, as Android 14 lists them.

        The launcher and Android's keyboard are system (factory) packages, the simulated
        apps and ADBKeyboard third-party ones (``-s``, ``-3``, ``--factory-only``); none
        is disabled (``-d``) or an APEX.
        ``-f``, ``-i``, ``-U`` and ``--show-versioncode`` add the APK path, installer, uid
        and version code; ``--user`` and ``--uid`` take a value. ``FILTER`` keeps the
        names that contain it.
        """
        if inv.argv[1:3] != ["list", "packages"]:
            return _usage("pm: only 'pm list packages' is supported")
        try:
            flags, values, wanted = _pm_options(inv.argv[3:])
        except ValueError as err:  # pm returns -1: status 255
            return Output(stderr=f"Error: {err}\n".encode(), code=255)
        system, third = set(_SYSTEM_PACKAGES), {*self.phone.packages(), _KEYBOARD_PACKAGE}
        uids = package_uids(self.phone.packages())
        chosen = {"-s": system, "--factory-only": system, "-3": third, "-d": set(),
                  "--apex-only": set()}
        listed = set.intersection(set(uids), *(chosen[f] for f in flags if f in chosen))
        uid = int(values.get("--uid", "-1"))
        if uid != -1:  # -1: any uid
            listed = {n for n in listed if uids[n] == uid}
        lines = [_pm_line(n, uids[n], flags) for n in sorted(listed) if wanted in n]
        return Output("".join(lines).encode())

    def wm(self, inv: Invocation) -> Output:
        """``wm size`` and ``wm density`` (read only: the screen cannot be resized)."""
        if inv.argv[1:] == ["size"]:
            return Output(f"Physical size: {self.phone.width}x{self.phone.height}\n".encode())
        if inv.argv[1:] == ["density"]:
            return Output(f"Physical density: {self.device.density_dpi}\n".encode())
        return _usage("wm: only 'wm size' and 'wm density' are supported, without "
                      "arguments (the virtual screen cannot be resized)")

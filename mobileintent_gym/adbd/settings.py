"""``settings`` on the virtual device: the system, secure and global tables.

Agent harnesses set up a device with ``settings put`` (animations off, the screen kept on,
an input method) and read it back with ``settings get``. The tables hold what they are
given for as long as the device serves, with the values a new phone starts with; the
simulated phone does not act on them (it has no animations to turn off, and stays on),
but for the input method in use (see :mod:`~mobileintent_gym.adbd.ime`).

Usage, as Android's ``settings`` command takes it (``--user N|current`` is accepted and
ignored: the device has one user)::

    settings get NAMESPACE KEY            # the value, or "null"
    settings put NAMESPACE KEY VALUE [TAG] [default]
    settings delete NAMESPACE KEY         # "Deleted 1 rows" or "Deleted 0 rows"
    settings list NAMESPACE               # KEY=VALUE lines, sorted

NAMESPACE is ``system``, ``secure`` or ``global`` (any case).
"""

from __future__ import annotations

import threading

from mobileintent_gym.adbd.ime import ADB_IME, LATIN_IME
from mobileintent_gym.adbd.shell import Invocation, Output

NAMESPACES = ("system", "secure", "global")
DEFAULTS: dict[str, dict[str, str]] = {
    "system": {"screen_brightness": "128", "screen_off_timeout": "60000",
               "font_scale": "1.0", "accelerometer_rotation": "0", "user_rotation": "0"},
    "secure": {"default_input_method": ADB_IME,
               "enabled_input_methods": f"{LATIN_IME}:{ADB_IME}",
               "show_ime_with_hard_keyboard": "0", "android_id": "5d1e2c3b4a697887",
               "user_setup_complete": "1"},
    "global": {"window_animation_scale": "1.0", "transition_animation_scale": "1.0",
               "animator_duration_scale": "1.0", "stay_on_while_plugged_in": "0",
               "adb_enabled": "1", "development_settings_enabled": "1",
               "airplane_mode_on": "0", "device_provisioned": "1"},
}
# What each verb takes after the namespace: (fewest, most) arguments.
_ARITY = {"get": (1, 1), "put": (2, 4), "delete": (1, 1), "list": (0, 0)}
USAGE = ("usage: settings [--user N|current] get NAMESPACE KEY\n"
         "       settings [--user N|current] put NAMESPACE KEY VALUE [TAG] [default]\n"
         "       settings [--user N|current] delete NAMESPACE KEY\n"
         "       settings [--user N|current] list NAMESPACE\n"
         "NAMESPACE is one of {system, secure, global}, case-insensitive\n")
INVALID = 255  # Android's shell commands exit -1 on bad arguments


class Settings:
    """The ``settings`` command over tables kept for the device's life (thread-safe).

    Attributes:
        tables: Each namespace's keys and values.
        lock: Held by whoever reads or changes them (``ime`` does too).
    """

    def __init__(self) -> None:
        self.tables = {name: dict(values) for name, values in DEFAULTS.items()}
        self.lock = threading.Lock()

    def __call__(self, inv: Invocation) -> Output:
        """Run ``settings``; bad arguments print the usage and exit 255."""
        args = inv.argv[1:]
        if args[:1] == ["--user"]:
            args = args[2:]
        if not args or args[0] not in _ARITY:
            return _invalid(f"Invalid command: {args[0] if args else ''}")
        verb, rest = args[0], args[1:]
        if not rest or rest[0].lower() not in NAMESPACES:
            return _invalid(f"Invalid namespace: {rest[0] if rest else ''}")
        fewest, most = _ARITY[verb]
        if not fewest <= len(rest) - 1 <= most:
            return _invalid(f"Invalid arguments to {verb}: {' '.join(rest)}")
        with self.lock:
            return Output(self._run(verb, self.tables[rest[0].lower()], rest[1:]).encode())

    @staticmethod
    def _run(verb: str, table: dict[str, str], args: list[str]) -> str:
        if verb == "get":
            return table.get(args[0], "null") + "\n"
        if verb == "put":
            table[args[0]] = args[1]
            return ""
        if verb == "delete":
            return f"Deleted {int(table.pop(args[0], None) is not None)} rows\n"
        return "".join(f"{key}={value}\n" for key, value in sorted(table.items()))


def _invalid(message: str) -> Output:
    return Output(stderr=f"{message}\n{USAGE}".encode(), code=INVALID)

"""``ime`` on the virtual device: its input methods, listed and chosen as Android's ``ime`` does.

Two are installed: Android's keyboard (``com.android.inputmethod.latin/.LatinIME``, a
system app) and ADBKeyboard (``com.android.adbkeyboard/.AdbIME``), both enabled and
ADBKeyboard selected. Which are enabled and which is selected live where a phone keeps
them, in the ``secure`` settings ``enabled_input_methods`` (ids joined by ``:``) and
``default_input_method``, so ``settings put`` changes them as ``ime`` does. ADBKeyboard
types the text of its broadcasts only while it is selected, as on a phone. Usage::

    ime list [-a] [-s]     # enabled ones (-a: every installed one); -s: ids only
    ime enable ID          # "Input method ID: now enabled for user #0"
    ime disable ID         # the selected one gives way to another enabled one
    ime set ID             # select an enabled one
    ime reset              # Android's keyboard alone, enabled and selected

each taking ``--user N|current|all`` (or ``-u``) before the id, for the device's one user.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mobileintent_gym.adbd.javanum import is_user, java_exception
from mobileintent_gym.adbd.shell import Invocation, Output

if TYPE_CHECKING:
    from mobileintent_gym.adbd.settings import Settings

LATIN_IME = "com.android.inputmethod.latin/.LatinIME"
ADB_IME = "com.android.adbkeyboard/.AdbIME"
INSTALLED = (ADB_IME, LATIN_IME)  # in the order ime list shows them
_USAGE = ("ime <command>:\n  list [-a] [-s]\n  enable [--user <USER_ID>] <ID>\n"
          "  disable [--user <USER_ID>] <ID>\n  set [--user <USER_ID>] <ID>\n"
          "  reset [--user <USER_ID>]\n")
_FAILED = 255  # ShellCommandResult.FAILURE (-1)


def selected(settings: Settings) -> str:
    """The id of the input method in use (``default_input_method``; ``""`` for none)."""
    with settings.lock:
        return settings.tables["secure"].get("default_input_method", "")


class Ime:
    """The ``ime`` command over the device's settings (see the module)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def __call__(self, inv: Invocation) -> Output:
        """Run ``ime``.

        No command, ``help`` or ``-h`` print the usage with status 255, as an unknown
        command prints ``Unknown command: X`` (Android's shell commands do so).
        """
        command, args = (inv.argv[1], inv.argv[2:]) if len(inv.argv) > 1 else ("", [])
        if command == "list":
            return self._list(args)
        if command in ("", "help", "-h"):
            return Output(_USAGE.encode(), code=_FAILED)
        if command not in ("enable", "disable", "set", "reset"):
            return Output(f"Unknown command: {command}\n".encode(), code=_FAILED)
        try:
            ime = _after_user(command, args, needed=command != "reset")
        except ValueError as err:
            return java_exception(command, err)
        if command == "reset":
            return self._reset()
        with self.settings.lock:
            return self._select(ime) if command == "set" else self._enable(ime, command == "enable")

    def _list(self, args: list[str]) -> Output:
        """``ime list``: the enabled (``-a``: installed) input methods."""
        if set(args) - {"-a", "-s"}:
            return Output(stderr=f"Unknown option: {sorted(set(args) - {'-a', '-s'})[0]}\n"
                          .encode(), code=_FAILED)
        with self.settings.lock:
            shown = INSTALLED if "-a" in args else [i for i in INSTALLED if i in self._enabled()]
        if "-s" in args:
            return Output("".join(f"{ime}\n" for ime in shown).encode())
        return Output("".join(_described(ime) for ime in shown).encode())

    def _enabled(self) -> list[str]:
        """The enabled input methods' ids, as the settings hold them (under the lock)."""
        held = self.settings.tables["secure"].get("enabled_input_methods", "")
        return [entry.split(";")[0] for entry in held.split(":") if entry]

    def _set_enabled(self, ids: list[str]) -> None:
        self.settings.tables["secure"]["enabled_input_methods"] = ":".join(ids)

    def _enable(self, ime: str, enable: bool) -> Output:
        """``ime enable|disable ID`` (under the lock)."""
        enabled = self._enabled()
        if enable and ime not in INSTALLED:
            return Output(stderr=f"Unknown input method {ime} cannot be enabled for user #0\n"
                          .encode(), code=_FAILED)
        was = ime in enabled
        if enable and not was:
            self._set_enabled([*enabled, ime])
        if not enable and was:
            rest = [other for other in enabled if other != ime]
            self._set_enabled(rest)
            secure = self.settings.tables["secure"]
            if secure.get("default_input_method") == ime:  # another enabled one takes over
                secure["default_input_method"] = rest[0] if rest else ""
        state = "enabled" if enable else "disabled"
        return Output(f"Input method {ime}: {'already' if was == enable else 'now'} {state} "
                      "for user #0\n".encode())

    def _select(self, ime: str) -> Output:
        """``ime set ID``: an installed, enabled input method (under the lock)."""
        if ime not in INSTALLED or ime not in self._enabled():
            return Output(stderr=f"Unknown input method {ime} cannot be selected for user #0\n"
                          .encode(), code=_FAILED)
        self.settings.tables["secure"]["default_input_method"] = ime
        return Output(f"Input method {ime} selected for user #0\n".encode())

    def _reset(self) -> Output:
        """``ime reset``: the system's keyboard alone, enabled and selected."""
        with self.settings.lock:
            self._set_enabled([LATIN_IME])
            self.settings.tables["secure"]["default_input_method"] = LATIN_IME
        return Output(f"Reset current and enabled IMEs for user #0\n  Selected: {LATIN_IME}\n"
                      f"   Enabled: {LATIN_IME}\n".encode())


def _after_user(command: str, args: list[str], needed: bool) -> str:
    """The input method id after an optional ``--user USER`` (or ``-u``).

    What follows it is not read; ``""`` when it is not ``needed`` (``reset``).

    Raises:
        ValueError: With the exception Android throws for a user that is none, or a value
            missing after the option or the command.
    """
    if args[:1] in (["--user"], ["-u"]):
        if len(args) < 2:
            raise ValueError(f"java.lang.IllegalArgumentException: Argument expected after "
                             f"\"{args[0]}\"")
        if not is_user(args[1]):
            raise ValueError(f"java.lang.IllegalArgumentException: Bad user number: "
                             f"{args[1][:40]}")
        args = args[2:]
    if needed and not args:
        raise ValueError(f"java.lang.IllegalArgumentException: Argument expected after "
                         f"\"{command}\"")
    return args[0] if needed else ""


def _described(ime: str) -> str:
    """``ime list``'s lines for one input method (the fields tools read of them)."""
    package, _, name = ime.partition("/")
    service = f"{package}{name}" if name.startswith(".") else name
    return (f"{ime}:\n  mId={ime} mSettingsActivityName=null mIsVrOnly=false "
            "mSupportsSwitchingToNextInputMethod=false\n  mIsDefaultResId=0x0\n"
            f"  Service:\n    ServiceInfo:\n      name={service}\n      packageName={package}\n"
            "      enabled=true exported=true directBootAware=false\n"
            "      permission=android.permission.BIND_INPUT_METHOD\n")

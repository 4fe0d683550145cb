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

from mobileintent_gym.adbd.am_start import full_class
from mobileintent_gym.adbd.javanum import ShellArgs, check_user, java_exception, java_int
from mobileintent_gym.adbd.shell import Invocation, Output

if TYPE_CHECKING:
    from mobileintent_gym.adbd.settings import Settings

LATIN_IME = "com.android.inputmethod.latin/.LatinIME"
ADB_IME = "com.android.adbkeyboard/.AdbIME"
INSTALLED = (ADB_IME, LATIN_IME)  # in the order ``ime list -a`` shows them
_USAGE = """ime <command>:
  list [-a] [-s]
    prints all enabled input methods.
      -a: see all input methods
      -s: only a single summary line of each
  enable [--user <USER_ID>] <ID>
    allows the given input method ID to be used.
  disable [--user <USER_ID>] <ID>
    disallows the given input method ID to be used.
  set [--user <USER_ID>] <ID>
    switches to the given input method ID.
  reset [--user <USER_ID>]
    reset currently selected/enabled IMEs to the default ones.
"""
_FAILED = 255  # ShellCommandResult.FAILURE (-1)
_USER_ALL, _USER_CURRENT = -1, -2


def selected(settings: Settings) -> str:
    """The id of the input method in use (``default_input_method``; ``""`` for none)."""
    with settings.lock:
        return settings.tables["secure"].get("default_input_method", "")


class Ime:
    """The ``ime`` command over the device's settings (see the module)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def __call__(self, inv: Invocation) -> Output:
        """Run ``ime`` (Android's ``cmd input_method ime``).

        No command, ``help`` or ``-h`` print the usage; an unknown command prints
        ``Unknown command: X``, status 255. A user other than the device's one (0) is
        said and nothing is done (status 0), as Android says a user that does not exist.
        """
        command, words = inv.argv[1] if len(inv.argv) > 1 else "", ShellArgs(inv.argv, 2)
        if command in ("", "help", "-h"):
            return Output(_USAGE.encode())
        if command not in ("list", "enable", "disable", "set", "reset"):
            return Output(f"Unknown command: {command}\n".encode(), code=_FAILED)
        try:
            flags, user = _options(words, all_options=command == "list")
            ime = words.required() if command in ("enable", "disable", "set") else ""
        except ValueError as err:
            return java_exception("ime", err)
        refused = _refused_user(user)
        if refused:
            return Output(stderr=refused.encode())
        with self.settings.lock:
            if command == "list":
                return self._list(flags)
            if command == "reset":
                return self._reset()
            return self._select(ime) if command == "set" else self._enable(ime, command)

    def _list(self, flags: set[str]) -> Output:
        """``ime list``: the enabled input methods, in the settings' order.

        ``-a``: every installed one; ``-s``: their ids alone.
        """
        shown = INSTALLED if "-a" in flags else [i for i in self._enabled() if i in INSTALLED]
        if "-s" in flags:
            return Output("".join(f"{ime}\n" for ime in shown).encode())
        return Output("".join(_described(ime) for ime in shown).encode())

    def _entries(self) -> list[str]:
        """``enabled_input_methods``' entries, each an id with its subtypes (``ID;S;S``)."""
        held = self.settings.tables["secure"].get("enabled_input_methods", "")
        return [entry for entry in held.split(":") if entry]

    def _enabled(self) -> list[str]:
        """The enabled input methods' ids, in the settings' order."""
        return [entry.split(";")[0] for entry in self._entries()]

    def _write(self, entries: list[str]) -> None:
        self.settings.tables["secure"]["enabled_input_methods"] = ":".join(entries)

    def _enable(self, ime: str, command: str) -> Output:
        """``ime enable|disable ID``: the entry added or taken out, the others as they were.

        Disabling the one in use hands over to the first other installed one enabled.
        """
        enable = command == "enable"
        if enable and ime not in INSTALLED:
            return Output(stderr=f"Unknown input method {ime} cannot be enabled for user #0\n"
                          .encode(), code=_FAILED)
        was = ime in self._enabled()
        if enable and not was:
            self._write([*self._entries(), ime])
        if not enable and was:
            self._write([entry for entry in self._entries() if entry.split(";")[0] != ime])
            secure = self.settings.tables["secure"]
            if secure.get("default_input_method") == ime:
                secure["default_input_method"] = next(
                    (other for other in self._enabled() if other in INSTALLED), "")
        return Output(f"Input method {ime}: {'already' if was == enable else 'now'} "
                      f"{command}d for user #0\n".encode())

    def _select(self, ime: str) -> Output:
        """``ime set ID``: an installed, enabled input method."""
        if ime not in INSTALLED or ime not in self._enabled():
            return Output(stderr=f"Unknown input method {ime} cannot be selected for user #0\n"
                          .encode(), code=_FAILED)
        self.settings.tables["secure"]["default_input_method"] = ime
        return Output(f"Input method {ime} selected for user #0\n".encode())

    def _reset(self) -> Output:
        """``ime reset``: the system's keyboard enabled and selected.

        The other installed ones are disabled; entries of ones not installed are kept.
        """
        kept = [entry for entry in self._entries()
                if entry.split(";")[0] not in INSTALLED or entry.split(";")[0] == LATIN_IME]
        self._write(kept if LATIN_IME in self._enabled() else [LATIN_IME, *kept])
        self.settings.tables["secure"]["default_input_method"] = LATIN_IME
        return Output(f"Reset current and enabled IMEs for user #0\n  Selected: {LATIN_IME}\n"
                      f"   Enabled: {LATIN_IME}\n".encode())


def _options(words: ShellArgs, all_options: bool) -> tuple[set[str], int]:
    """The flags read and the user (``-u``/``--user``; current by default).

    Flags are ``list``'s ``-a -s``; others are ignored, as Android ignores them. Without
    ``all_options`` reading stops at the user, as Android's does for the commands that
    take only it.

    Raises:
        ValueError: With Android's exception for a missing or bad user, or a joined value
            left unread.
    """
    flags: set[str] = set()
    user = _USER_CURRENT
    while (option := words.option()) is not None:
        if option in ("-u", "--user"):
            user = _user(words.required())
            if not all_options:
                break
        elif option in ("-a", "-s"):
            flags.add(option)
    return flags, user


def _user(value: str) -> int:
    """``--user``'s value as Android reads it (``all``, ``current``/``cur``, a number).

    Raises:
        ValueError: With Android's exception when it is none of them.
    """
    check_user(value)
    named = {"all": _USER_ALL, "current": _USER_CURRENT, "cur": _USER_CURRENT}
    return named[value] if value in named else java_int(value, 32) or 0


def _refused_user(user: int) -> str:
    """What Android says (without a newline) of a user other than the device's one."""
    if user in (0, _USER_ALL, _USER_CURRENT):
        return ""
    return (f"Pseudo user ID {user} is not supported." if user < 0
            else f"User #{user} does not exit.")  # sic: Android's spelling


def _described(ime: str) -> str:
    """``ime list``'s lines for one input method (the fields tools read of them)."""
    return (f"{ime}:\n  mId={ime} mSettingsActivityName=null mIsVrOnly=false "
            "mSupportsSwitchingToNextInputMethod=false\n  mIsDefaultResId=0x0\n"
            f"  Service:\n    ServiceInfo:\n      name={full_class(ime)}\n"
            f"      packageName={ime.partition('/')[0]}\n"
            "      enabled=true exported=true directBootAware=false\n"
            "      permission=android.permission.BIND_INPUT_METHOD\n")

"""How ``am`` reads its arguments: its options, the extras, and the intent they name.

As Android's ``Intent.parseCommandArgs`` with ``am start``'s and ``am broadcast``'s option
handler reads them (through ShellCommand, :class:`~mobileintent_gym.adbd.javanum.ShellArgs`):
options come first, each known one with its values (a one-letter option may carry its first
value joined to it, ``-nPACKAGE/ACTIVITY``); the first word that is no option (or the one
after ``--``) is what to start, and nothing after it is read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mobileintent_gym.adbd.am_start import Intent
from mobileintent_gym.adbd.javanum import ShellArgs, check_user, java_float, java_int, java_integer

MAIN_ACTION = "android.intent.action.MAIN"  # the intent that starts an app from its icon
LAUNCHER_CATEGORY = "android.intent.category.LAUNCHER"
HOME_CATEGORY = "android.intent.category.HOME"  # the home screen's
_VIEW_ACTION = "android.intent.action.VIEW"  # what a URI given as the argument asks for
# The options that make an intent (with the argument after them): am needs one. Some
# extras do too, as in Android's code.
_INTENT_NAMING = frozenset({"-a", "-d", "-t", "-i", "-c", "-n", "-p", "--ela", "--elal",
                            "--ef", "--efa", "--efal", "--ed", "--eda", "--edal", "--esa",
                            "--esal"})
# The intent's flag options and the flag each adds (Intent.FLAG_...).
_INTENT_FLAGS = {
    "--grant-read-uri-permission": 0x1, "--grant-write-uri-permission": 0x2,
    "--debug-log-resolution": 0x8, "--exclude-stopped-packages": 0x10,
    "--include-stopped-packages": 0x20, "--grant-persistable-uri-permission": 0x40,
    "--grant-prefix-uri-permission": 0x80, "--activity-match-external": 0x800,
    "--activity-task-on-home": 0x4000, "--activity-clear-task": 0x8000,
    "--activity-no-animation": 0x10000, "--activity-reorder-to-front": 0x20000,
    "--activity-no-user-action": 0x40000, "--activity-clear-when-task-reset": 0x80000,
    "--activity-launched-from-history": 0x100000,
    "--activity-reset-task-if-needed": 0x200000, "--activity-brought-to-front": 0x400000,
    "--activity-exclude-from-recents": 0x800000, "--activity-previous-is-top": 0x1000000,
    "--activity-clear-top": 0x4000000, "--activity-multiple-task": 0x8000000,
    "--activity-single-top": 0x20000000, "--activity-no-history": 0x40000000,
    "--receiver-include-background": 0x1000000, "--receiver-no-abort": 0x8000000,
    "--receiver-foreground": 0x10000000, "--receiver-replace-pending": 0x20000000,
    "--receiver-registered-only": 0x40000000}
# The flags: the intent's, then am start's and broadcast's own.
_FLAGS = frozenset({
    *_INTENT_FLAGS, "--selector",
    "-D", "--suspend", "-N", "-W", "--streaming", "-S", "--track-allocation",
    "--task-overlay", "--lock-task", "--allow-background-activity-starts", "--async",
    "--splashscreen-show-icon", "--dismiss-keyguard-if-insecure", "--dismiss-keyguard"})
# Options of am start's and broadcast's own that read their value as Integer.parseInt.
_INT_VALUED = frozenset({"--sampling", "--profiler-output-version", "-R", "--display",
                         "--task-display-area-feature-id", "--windowingMode", "--activityType",
                         "--task", "--allow-fgs-start-reason"})
# How many values each option takes.
_VALUES = {
    **dict.fromkeys(_FLAGS, 0),
    **dict.fromkeys(("-a", "-d", "-t", "-i", "-c", "-n", "-p", "-f", "--esn", "-P",
                     "--start-profiler", "--clock-type", "--attach-agent", "--attach-agent-bind",
                     "--user", "--receiver-permission", *_INT_VALUED), 1),
    **dict.fromkeys(("-e", "--es", "--ei", "--el", "--ef", "--ed", "--ez", "--eu", "--ecn",
                     "--eia", "--eial", "--ela", "--elal", "--efa", "--efal", "--eda", "--edal",
                     "--esa", "--esal"), 2)}


def _decodes(value: str) -> bool:
    return java_integer(value, 32, decode=True)


def _every(reads: Callable[[str], bool]) -> Callable[[str], bool]:
    """Whether ``reads`` reads every part of a comma-separated list (an array extra)."""
    return lambda value: all(reads(part) for part in value.split(","))


# The values Android reads as numbers, and whether it reads one as such.
_NUMBERS: dict[str, Callable[[str], bool]] = {
    "--ei": _decodes, "--el": lambda v: java_integer(v, 64), "--ef": java_float,
    "--ed": java_float, "-f": _decodes, **dict.fromkeys(("--eia", "--eial"), _every(_decodes)),
    **dict.fromkeys(("--ela", "--elal"), _every(lambda v: java_integer(v, 64))),
    **dict.fromkeys(("--efa", "--efal", "--eda", "--edal"), _every(java_float)),
    **dict.fromkeys(_INT_VALUED, lambda v: java_integer(v, 32))}


@dataclass
class AmArgs:
    """What ``am``'s arguments say.

    Attributes:
        options: Each option's last value (a flag's ``""``; ``""`` the word after the
            options: what to start), but ``-c``.
        extras: Each extra's key to (its option, its value as written).
        categories: Every ``-c``, each once, in order.
        flags: The intent's flags: ``-f``'s, with the flag options' after it added (a
            later ``-f`` replaces them, as Android's setFlags does).
    """

    options: dict[str, str] = field(default_factory=dict)
    extras: dict[str, tuple[str, str]] = field(default_factory=dict)
    categories: list[str] = field(default_factory=list)
    flags: int = 0


def read_intent(words: ShellArgs) -> AmArgs:
    """``am``'s arguments after its subcommand, read as Android reads them.

    Raises:
        ValueError: Saying what Android's exception says of an option it does not know,
            one without its values, a flag with a value joined to it, a value that is no
            number where one is read (a number extra, ``-f``'s flags, ``--display`` …),
            no boolean (``--ez``), no user (``--user``) or no component (``-n``,
            ``--ecn``), or options that make no intent.
    """
    read = AmArgs()
    while (option := words.option()) is not None:
        if option not in _VALUES:
            raise ValueError(f"java.lang.IllegalArgumentException: Unknown option: {option}")
        values = [words.required() for _ in range(_VALUES[option])]
        _check_value(option, values[-1] if values else "")
        _take(read, option, values)
    argument = words.next()  # what to start (a component, package, URI): nothing after it
    if argument is not None:
        read.options[""] = argument
    named = read.options.keys() | {option for option, _ in read.extras.values()}
    if not (_INTENT_NAMING & named or read.options.get("")):
        raise ValueError("java.lang.IllegalArgumentException: No intent supplied")
    return read


def _take(read: AmArgs, option: str, values: list[str]) -> None:
    """Record one option and its values in ``read``."""
    if _VALUES[option] == 2 or option == "--esn":  # --esn: a null string's key
        read.extras[values[0]] = (option, values[1] if len(values) > 1 else "")
    elif option == "-c":
        if values[0] not in read.categories:
            read.categories.append(values[0])
        read.options[option] = values[0]
    else:
        read.options[option] = values[0] if values else ""
    if option == "-f":
        read.flags = (java_int(values[0], 32, decode=True) or 0) & 0xFFFFFFFF
    read.flags |= _INTENT_FLAGS.get(option, 0)


def _check_value(option: str, value: str) -> None:
    """Refuse ``option``'s (last) value where Android reads it as what it is not.

    That is a number, a boolean, a user or a component.

    Raises:
        ValueError: With the exception Android prints.
    """
    reads = _NUMBERS.get(option)
    if reads is not None and not reads(value):
        bad = next((part for part in value.split(",") if not reads(part)), value)
        raise ValueError(f"java.lang.NumberFormatException: For input string: "
                         f"\"{bad[:40]}\"")
    if option == "--ez" and not (value.lower() in ("true", "t", "false", "f")
                                 or _decodes(value)):
        raise ValueError(f"java.lang.IllegalArgumentException: Invalid boolean value: "
                         f"{value.lower()[:40]}")
    if option == "--user":
        check_user(value)
    if option in ("-n", "--ecn") and not value.partition("/")[2]:  # ComponentName: null
        raise ValueError(f"java.lang.IllegalArgumentException: Bad component name: {value}")


def requested(read: AmArgs) -> Intent:
    """The intent ``am``'s arguments name.

    It is filled in as Android fills it: a component or package given as the argument is
    the launcher's intent for it (its action and category, unless the options give an
    action; the component replaces ``-n``'s); a URI asks to view it (unless ``-d`` or
    ``-t`` were given).
    """
    options, argument = read.options, read.options.get("", "")
    action, categories = options.get("-a", ""), tuple(read.categories)
    data, package, component = options.get("-d", ""), options.get("-p", ""), options.get("-n", "")
    if ":" in argument:
        action = action or _VIEW_ACTION
        data = data if "-d" in options or "-t" in options else argument
    elif argument:
        categories = categories or (() if action else (LAUNCHER_CATEGORY,))
        action = action or MAIN_ACTION
        if "/" in argument:
            component = argument
        else:
            package = package or argument
    return Intent(action, categories, data, options.get("-t", ""), options.get("-i", ""),
                  read.flags, package, component, bool(read.extras))

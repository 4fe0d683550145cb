"""How ``am`` reads its arguments: its options, the extras, and the intent they name.

As Android's ``Intent.parseCommandArgs`` with ``am start``'s and ``am broadcast``'s option
handler reads them: options come first, each known one with its values (a one-letter
option may carry its first value joined to it, ``-nPACKAGE/ACTIVITY``); the first word that
is no option (or the one after ``--``) is what to start, and nothing after it is read.
"""

from __future__ import annotations

from collections.abc import Callable

from mobileintent_gym.adbd.am_start import Intent
from mobileintent_gym.adbd.javanum import is_user, java_float, java_int, java_integer

MAIN_ACTION = "android.intent.action.MAIN"  # the intent that starts an app from its icon
LAUNCHER_CATEGORY = "android.intent.category.LAUNCHER"
HOME_CATEGORY = "android.intent.category.HOME"  # the home screen's
_VIEW_ACTION = "android.intent.action.VIEW"  # what a URI given as the argument asks for
# The options that make an intent (with the argument after them): am needs one. Some
# extras do too, as in Android's code.
_INTENT_NAMING = frozenset({"-a", "-d", "-t", "-i", "-c", "-n", "-p", "--ela", "--elal",
                            "--ef", "--efa", "--efal", "--esa", "--esal"})
# The flags: the intent's, then am start's and broadcast's own.
_FLAGS = frozenset({
    "--grant-read-uri-permission", "--grant-write-uri-permission",
    "--grant-persistable-uri-permission", "--grant-prefix-uri-permission",
    "--exclude-stopped-packages", "--include-stopped-packages", "--debug-log-resolution",
    "--activity-brought-to-front", "--activity-clear-top", "--activity-clear-when-task-reset",
    "--activity-exclude-from-recents", "--activity-launched-from-history",
    "--activity-multiple-task", "--activity-no-animation", "--activity-no-history",
    "--activity-no-user-action", "--activity-previous-is-top", "--activity-reorder-to-front",
    "--activity-reset-task-if-needed", "--activity-single-top", "--activity-clear-task",
    "--activity-task-on-home", "--activity-match-external", "--receiver-registered-only",
    "--receiver-replace-pending", "--receiver-foreground", "--receiver-no-abort",
    "--receiver-include-background", "--selector",
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
                     "--eia", "--eial", "--ela", "--elal", "--efa", "--efal", "--esa",
                     "--esal"), 2)}
# The number extras, and whether Android reads a value as one.
_NUMBER_EXTRAS: dict[str, Callable[[str], bool]] = {
    "--ei": lambda v: java_integer(v, 32, decode=True), "--el": lambda v: java_integer(v, 64),
    "--ef": java_float, "--ed": java_float}

Options = dict[str, str]
"""Each option read (the last of each; a flag's value ``""``; key ``""`` what to start)."""
Extras = dict[str, tuple[str, str]]
"""Each extra's key to (its option, its value as written)."""


def read_intent(args: list[str]) -> tuple[Options, Extras]:
    """``am``'s options and extras, read left to right as Android reads them.

    Raises:
        ValueError: Saying what Android's exception says of an option it does not know,
            one without its values, a flag with a value joined to it, a value that is no
            number where one is read (a number extra, ``-f``'s flags, ``--display`` …),
            no boolean (``--ez``) or no user (``--user``), or options that make no intent.
    """
    options: Options = {}
    extras: Extras = {}
    index = 0
    while index < len(args):
        if args[index] == "--":  # the end of the options: what follows is what to start
            options[""] = args[index + 1] if index + 1 < len(args) else ""
            break
        if not args[index].startswith("-"):  # what to start (a component, package, URI):
            options[""] = args[index]  # the options end there
            break
        option, values, index = _read_option(args, index)
        if _VALUES[option] == 2 or option == "--esn":  # --esn: a null string's key
            extras[values[0]] = (option, values[1] if len(values) > 1 else "")
        else:
            options[option] = values[0] if values else ""
    if not (_INTENT_NAMING & (options.keys() | {o for o, _ in extras.values()})
            or options.get("")):
        raise ValueError("java.lang.IllegalArgumentException: No intent supplied")
    return options, extras


def _read_option(args: list[str], index: int) -> tuple[str, list[str], int]:
    """The option at ``args[index]``, its values, and the index after them.

    Raises:
        ValueError: As :func:`read_intent` says.
    """
    option, joined = _option_and_joined(args[index])
    if option not in _VALUES:
        raise ValueError(f"java.lang.IllegalArgumentException: Unknown option: {option}")
    size = _VALUES[option]
    if joined and not size:
        raise ValueError(f"java.lang.IllegalArgumentException: No argument expected after "
                         f"\"{args[index]}\"")
    taken = size - len(joined)
    read = args[index:index + 1 + taken]  # the option's word and the values after it
    values = joined + read[1:]
    if len(values) < size:  # Android names the last word it read
        raise ValueError(f"java.lang.IllegalArgumentException: Argument expected after "
                         f"\"{read[-1]}\"")
    _check_value(option, values[-1] if values else "")
    return option, values, index + 1 + taken


def _check_value(option: str, value: str) -> None:
    """Refuse ``option``'s (last) value where Android reads it as a number, boolean or user.

    Raises:
        ValueError: With the exception Android prints.
    """
    reads = _NUMBER_EXTRAS.get(option) or (
        (lambda v: java_integer(v, 32, decode=True)) if option == "-f"
        else (lambda v: java_integer(v, 32)) if option in _INT_VALUED else None)
    if reads is not None and not reads(value):
        raise ValueError(f"java.lang.NumberFormatException: For input string: "
                         f"\"{value[:40]}\"")
    if option == "--ez" and not (value.lower() in ("true", "t", "false", "f")
                                 or java_integer(value, 32, decode=True)):
        raise ValueError(f"java.lang.IllegalArgumentException: Invalid bool value: "
                         f"{value.lower()[:40]}")
    if option == "--user" and not is_user(value):
        raise ValueError(f"java.lang.IllegalArgumentException: Bad user number: {value[:40]}")


def _option_and_joined(word: str) -> tuple[str, list[str]]:
    """A one-letter option and the value joined to it (``-nX``: ``-n``, ``[X]``); else as is."""
    if len(word) > 2 and word[1] != "-":
        return word[:2], [word[2:]]
    return word, []


def requested(options: Options, extras: bool) -> Intent:
    """The intent ``am start``'s options and the argument after them name.

    It is filled in as Android fills it: a component or package given as the argument is
    the launcher's intent for it (its action and category, unless the options give an
    action; the component replaces ``-n``'s); a URI asks to view it.
    """
    argument = options.get("", "")
    action, category = options.get("-a", ""), options.get("-c", "")
    data, package, component = options.get("-d", ""), options.get("-p", ""), options.get("-n", "")
    if ":" in argument:
        action, data = action or _VIEW_ACTION, data or argument
    elif argument:
        category = category or ("" if action else LAUNCHER_CATEGORY)
        action = action or MAIN_ACTION
        if "/" in argument:
            component = argument
        else:
            package = package or argument
    flags = java_int(options.get("-f", "0"), 32, decode=True) or 0
    return Intent(action, (category,) if category else (), data, options.get("-t", ""),
                  options.get("-i", ""), flags & 0xFFFFFFFF, package, component, extras)

"""How Android's commands written in Java read their command lines, and say they failed.

Arguments as ShellCommand reads them, numbers as Java parses them, users as ``--user``
takes them, and the exception a command prints when its arguments throw one.
"""

from __future__ import annotations

import re
import string

from mobileintent_gym.adbd.shell import Output

_USERS = ("all", "current", "cur")  # what --user takes besides a number
# Java's floating-point literals: decimal or hexadecimal, NaN, Infinity, an f/d suffix.
_JAVA_FLOAT = re.compile(
    r"[+-]?(NaN|Infinity|((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?"
    r"|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?)", re.ASCII)


def java_integer(text: str, bits: int, decode: bool = False) -> bool:
    """Whether Java's ``Integer.parseInt`` (32 bits) or ``Long.parseLong`` (64) reads it.

    With ``decode``, as ``Integer.decode`` reads it: ``0x``/``#`` hexadecimal and a leading
    ``0`` octal too (am's ``--ei`` reads its value so).
    """
    return java_int(text, bits, decode) is not None


def java_int(text: str, bits: int, decode: bool = False) -> int | None:
    """The number :func:`java_integer` reads in ``text``, or ``None`` when it reads none."""
    sign, digits = (text[0], text[1:]) if text[:1] in ("+", "-") else ("", text)
    base, allowed = 10, string.digits
    if decode and (digits[:2] in ("0x", "0X") or digits[:1] == "#"):
        base, allowed, digits = 16, string.hexdigits, digits[1 if digits[0] == "#" else 2:]
    elif decode and len(digits) > 1 and digits[0] == "0":
        base, allowed, digits = 8, string.octdigits, digits[1:]
    significant = digits.lstrip("0") or "0"
    if not (digits and set(digits) <= set(allowed) and len(significant) <= 22):
        return None  # 22 digits hold 2**64 in any of the bases; int() refuses 4,300
    number = int(sign + significant, base)
    return number if -(2 ** (bits - 1)) <= number < 2 ** (bits - 1) else None


def java_float(text: str) -> bool:
    """Whether Java's ``Float.parseFloat``/``Double.parseDouble`` reads it."""
    return _JAVA_FLOAT.fullmatch(text.strip(" \t\n\r\x0b\x0c\x00")) is not None


def check_user(value: str) -> None:
    """Refuse ``value`` unless ``--user`` takes it: a user's number (Java's int) or a name.

    Raises:
        ValueError: With the exception Android's ``UserHandle.parseUserArg`` throws.
    """
    if not (value in _USERS or java_integer(value, 32)):
        raise ValueError(f"java.lang.IllegalArgumentException: Bad user number: {value}")


def java_exception(command: str, err: Exception) -> Output:
    """What a shell command prints when reading its arguments threw ``err``: status -1.

    ``command`` is the name Android's ShellCommand gives it (``start`` for ``am start``,
    ``ime`` for ``ime``'s commands); an empty line comes first, as Android prints it (its
    stack trace, after the exception, is left out).
    """
    return Output(stderr=f"\nException occurred while executing '{command}':\n{err}\n"
                  .encode(), code=255)


class ShellArgs:
    """A command line read as Android's ShellCommand reads it.

    That is ``getNextOption``, ``getNextArg`` and ``getNextArgRequired``. An option is a
    word starting with ``-`` (``--`` ends them); a one-letter one may carry its value
    joined to it (``-nX``), which the next :meth:`required` reads, and which no later
    :meth:`option` may leave unread.

    Args:
        words: The command's words, those already read (the command, a subcommand)
            first: a missing argument is named after the last word read.
        read: How many of them are read.
    """

    def __init__(self, words: list[str], read: int) -> None:
        self.words, self.at, self.joined = words, read, None

    def option(self) -> str | None:
        """The next option; ``None`` where they end (the next word is no option, or ``--``).

        Raises:
            ValueError: When the last option's joined value was left unread.
        """
        if self.joined is not None:
            raise ValueError(f"java.lang.IllegalArgumentException: No argument expected "
                             f"after \"{self.words[self.at - 1]}\"")
        word = self.words[self.at] if self.at < len(self.words) else None
        if word is None or not word.startswith("-"):
            return None
        self.at += 1
        if word == "--":
            return None
        if len(word) > 2 and word[1] != "-":
            self.joined = word[2:]
            return word[:2]
        return word

    def next(self) -> str | None:
        """The next argument (a joined value first), or ``None`` when none is left."""
        if self.joined is not None:
            value, self.joined = self.joined, None
            return value
        if self.at >= len(self.words):
            return None
        self.at += 1
        return self.words[self.at - 1]

    def required(self) -> str:
        """The next argument.

        Raises:
            ValueError: When there is none, naming the last word read.
        """
        value = self.next()
        if value is None:
            raise ValueError(f"java.lang.IllegalArgumentException: Argument expected after "
                             f"\"{self.words[self.at - 1]}\"")
        return value

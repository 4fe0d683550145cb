"""How Android's toybox commands read their options (its ``lib/args.c``, in short).

Flags may be grouped (``-qv``), a valued option takes the rest of its word or the next one
(``-n5``, ``-n 5``), options may stand anywhere among the operands (or only before them),
``--`` ends them and ``-`` is an operand. A line a command refuses raises
:class:`UsageError` with toybox's message.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from mobileintent_gym.adbd.shell import CommandFn, Invocation, Output


class UsageError(ValueError):
    """A command line a command refuses: its message, without the command's name."""


def read_options(argv: list[str], flags: str, valued: str, *, legacy: str = "",
                 anywhere: bool = True, exclusive: str = "",
                 long: Mapping[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """Options (a flag's value ``""``) and operands, as toybox reads them.

    Args:
        argv: The command line, its name first.
        flags: The letters that take no value.
        valued: The letters that take one.
        legacy: ``-`` (or ``-+``): ``-NUM`` (and ``+NUM``) stand for ``-n NUM``.
        anywhere: Options may follow operands; else they end at the first one.
        exclusive: Letters of which only the last given stays (head's ``nc``).
        long: Long options written ``--NAME=VALUE``, to their letter.

    Raises:
        UsageError: For an option not in ``flags`` or ``valued``, or one without its value.
    """
    options: dict[str, str] = {}
    operands: list[str] = []
    words = iter(argv[1:])
    for word in words:
        name, equals, value = word.partition("=")
        if word == "--":
            operands.extend(words)
        elif legacy and word[:1] in legacy and word[1:].isdigit():
            _set(options, "n", word if word[0] == "+" else word[1:], exclusive)
        elif long and equals and name in long:
            _set(options, long[name], value, exclusive)
        elif word.startswith("-") and word != "-" and (anywhere or not operands):
            _read_cluster(argv[0], word, words, (options, exclusive), flags, valued)
        else:
            operands.append(word)
    return options, operands


def _read_cluster(name: str, word: str, words: Iterator[str],
                  into: tuple[dict[str, str], str], flags: str, valued: str) -> None:
    """Read one ``-abc`` word into ``into`` (the options, and the exclusive letters).

    A valued letter takes the rest of the word, or the next word.

    Raises:
        UsageError: As :func:`read_options` says.
    """
    options, exclusive = into
    for at, letter in enumerate(word[1:], 1):
        if letter in valued:
            value = word[at + 1:] or next(words, None)
            if value is None:
                raise UsageError(f"Missing argument to -{letter}")
            _set(options, letter, value, exclusive)
            return
        if letter not in flags:
            raise UsageError(f"Unknown option '{letter}' (see \"{name} --help\")")
        options[letter] = ""


def _set(options: dict[str, str], letter: str, value: str, exclusive: str) -> None:
    """Record ``value``; of the ``exclusive`` letters only the last given stays."""
    if letter in exclusive:
        for other in exclusive:
            options.pop(other, None)
    options[letter] = value


def refusing(command: CommandFn) -> CommandFn:
    """``command``, with the lines it refuses said as toybox says them.

    A :class:`UsageError` it raises is ``NAME: MESSAGE`` on standard error, status 1.
    """

    def run(inv: Invocation) -> Output:
        try:
            return command(inv)
        except UsageError as err:
            return Output(stderr=f"{inv.argv[0]}: {err}\n".encode(), code=1)

    return run

"""General shell commands of the virtual device: files, text and properties.

Each command takes an :class:`Invocation` and returns an :class:`Output`, with messages and
exit codes shaped like Android's toybox.
"""

from __future__ import annotations

import re
import stat as stat_module
import string
import time
from collections.abc import Mapping

from mobileintent_gym.adbd.filesystem import FileSystemError, MemoryFileSystem
from mobileintent_gym.adbd.limits import TimeLimitExceeded
from mobileintent_gym.adbd.regex_pool import MatchError, RegexPool, Selection
from mobileintent_gym.adbd.shell import CommandFn, Invocation, Output


def _error(name: str, message: str, code: int = 1) -> Output:
    return Output(stderr=f"{name}: {message}\n".encode(), code=code)


def _failed(errors: list[str]) -> Output:
    """A command that tried every operand: ``errors`` said, status 1 if there are any."""
    return Output(stderr="".join(errors).encode(), code=1 if errors else 0)


def _flags(argv: list[str], known: str) -> tuple[set[str], list[str]]:
    """Split ``-abc`` style flags (only letters in ``known``) from operands."""
    flags: set[str] = set()
    operands: list[str] = []
    for arg in argv[1:]:
        if arg.startswith("-") and len(arg) > 1 and set(arg[1:]) <= set(known) and not operands:
            flags |= set(arg[1:])
        else:
            operands.append(arg)
    return flags, operands


def echo(inv: Invocation) -> Output:
    """``echo [-n] WORD...``."""
    flags, words = _flags(inv.argv, "n")
    return Output((" ".join(words) + ("" if "n" in flags else "\n")).encode())


_DURATION = re.compile(r"(\d+\.?\d*|\.\d+)[smhd]?", re.ASCII)  # toybox's: 1.5, 2m, .5s


def logcat(inv: Invocation) -> Output:
    """``logcat [OPTIONS]``: the simulated phone writes no log, so it prints nothing.

    ``-c`` clears nothing, ``-d`` and ``-t`` print the empty log, and a plain ``logcat``
    (``adb logcat``), which on a phone follows the log until stopped, returns at once.
    """
    return Output()


def sleep(inv: Invocation) -> Output:
    """``sleep DURATION...``: returns at once, once each duration reads as one.

    The simulated phone has no wall clock to wait for; sleeping would only stall.
    """
    bad = [arg for arg in inv.argv[1:] if not _DURATION.fullmatch(arg)]
    if bad or len(inv.argv) < 2:
        said = f"invalid time interval {bad[0]!r}" if bad else "missing operand"
        return Output(stderr=f"sleep: {said}\n".encode(), code=1)
    return Output()


class FileCommands:
    """``cat``, ``ls``, ``rm``, ``mkdir`` and ``touch`` over the in-memory file system."""

    def __init__(self, fs: MemoryFileSystem) -> None:
        self.fs = fs

    def table(self) -> dict[str, CommandFn]:
        """Command name to implementation."""
        return {"cat": self.cat, "ls": self.ls, "rm": self.rm, "mkdir": self.mkdir,
                "touch": self.touch}

    def cat(self, inv: Invocation) -> Output:
        """``cat [FILE...]`` (standard input without operands).

        Refuses at once, before reading, when the files would not fit in the command
        line's output limit (``cat`` of one file many times would otherwise build it).
        """
        if len(inv.argv) == 1:
            return Output(inv.stdin)
        inv.budget.check_room(sum((self.fs.stat(p) or (0, 0, 0))[1] for p in inv.argv[1:]))
        out, errors = [], []
        for path in inv.argv[1:]:
            try:
                out.append(self.fs.read(path))
            except FileSystemError as err:
                errors.append(f"cat: {err}\n")
        data = out[0] if len(out) == 1 else b"".join(out)  # one file: its bytes, not a copy
        return Output(data, "".join(errors).encode(), 1 if errors else 0)

    def ls(self, inv: Invocation) -> Output:
        """``ls [-l] [-a] [-1] [-d] [-R] [PATH...]``.

        As toybox prints them: the paths in name order, files first; then each folder's
        listing, headed by its path as written when more than one path is listed (or with
        ``-R``), parted by an empty line. A path that does not exist is only an error.
        """
        flags, paths = _flags(inv.argv, "la1dR")
        files, folders, errors = [], [], []
        for path in paths or ["."]:  # a missing one is said in the order given
            info = self.fs.stat(path)
            if info is None:
                errors.append(f"ls: {self.fs.resolve(path)}: No such file or directory\n")
            elif stat_module.S_ISDIR(info[0]) and "d" not in flags:
                folders.append(path)
            else:
                files.append((path, self._line(path, info, flags)))
        out = [line for _, line in sorted(files)]
        folders.sort()
        headed = len(out) + len(folders) > 1 or "R" in flags
        for folder in folders:
            out += [""] * bool(out) + self._listing(folder, flags, headed)
        text = "".join(line + "\n" for line in out)
        return Output(text.encode(), "".join(errors).encode(), 1 if errors else 0)

    def _listing(self, folder: str, flags: set[str], headed: bool) -> list[str]:
        """The lines listing ``folder`` (as written), headed by its path when ``headed``.

        With ``-R`` each sub-folder's listing follows after an empty line, depth first, as
        toybox prints them (walked without recursion: ``mkdir -p`` makes folders as deep as
        a path may be long).
        """
        lines: list[str] = []
        pending = [folder]
        while pending:
            current = pending.pop()
            try:
                entries = self.fs.entries(self.fs.resolve(current))  # names and stats at once
            except FileSystemError:  # removed by another client meanwhile
                continue
            if headed:
                lines += [""] * bool(lines) + [f"{current}:"]
            if "R" in flags:
                pending += reversed([f"{current.rstrip('/')}/{name}"
                                     for name, (mode, _, _) in entries
                                     if stat_module.S_ISDIR(mode)])
            lines += [self._line(name, found, flags) for name, found in entries]
        return lines

    def _line(self, name: str, found: tuple[int, int, int], flags: set[str]) -> str:
        if "l" not in flags:
            return name
        mode, size, mtime = found
        kind = "d" if stat_module.S_ISDIR(mode) else "-"
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(mtime))  # as toybox writes it
        return f"{kind}{stat_module.filemode(mode)[1:]} 1 shell shell {size:>8} {when} {name}"

    def rm(self, inv: Invocation) -> Output:
        """``rm [-f] [-r] PATH...``."""
        flags, paths = _flags(inv.argv, "frRv")
        errors = []
        for path in paths:
            try:
                self.fs.remove(path, recursive=bool(flags & {"r", "R"}))
            except FileSystemError as err:
                if not ("f" in flags and "No such file" in str(err)):
                    errors.append(f"rm: {err}\n")
        return _failed(errors)

    def mkdir(self, inv: Invocation) -> Output:
        """``mkdir [-p] DIR...``: every operand is tried, errors said at the end (as toybox).

        adb push of a folder runs ``mkdir`` with the target's existing parent first.
        """
        flags, paths = _flags(inv.argv, "p")
        errors = []
        for path in paths:
            if self.fs.exists(path) and "p" not in flags:
                errors.append(f"mkdir: '{path}': File exists\n")
                continue
            try:
                self.fs.make_dir(path)
            except FileSystemError as err:
                errors.append(f"mkdir: {err}\n")
        return _failed(errors)

    def touch(self, inv: Invocation) -> Output:
        """``touch FILE...`` (creates empty files); every operand is tried, as toybox does."""
        errors = []
        for path in inv.argv[1:]:
            if not self.fs.exists(path):
                try:
                    self.fs.write(path, b"")
                except FileSystemError as err:
                    errors.append(f"touch: {err}\n")
        return _failed(errors)


def grep_command(pool: RegexPool, fs: MemoryFileSystem) -> CommandFn:
    """``grep [-i] [-v] [-E] [-F] [-c] [-q] [-o] [-e PATTERN]... [PATTERN] [FILE...]``.

    The files are read, else stdin. Patterns given with ``-e`` (any of them may match)
    stand for the first operand; ``--`` ends the options; POSIX classes (``[[:digit:]]``)
    mean what they mean to grep. With several files each line (or count) is prefixed by
    its file's path, as grep does. The matching runs in one of ``pool``'s child processes,
    killed when the command line's time is up (see :mod:`mobileintent_gym.adbd.regex_pool`).
    """

    def grep(inv: Invocation) -> Output:
        try:
            flags, patterns, operands = _grep_arguments(inv.argv)
            if not patterns and operands:
                patterns = [operands.pop(0)]
            pattern = "|".join(f"(?:{_grep_pattern(p, flags)})" for p in patterns)
        except ValueError as err:
            return _error("grep", str(err), 2)
        if not patterns:
            return _error("grep", "no pattern", 2)
        paths, out, errors, found = operands, [], [], False
        for path in paths or [None]:
            try:
                text = inv.stdin if path is None else fs.read(path)
                chosen = pool.select(pattern, text, ignore_case="i" in flags,
                                     invert="v" in flags, only_matching="o" in flags,
                                     timeout=inv.budget.timeout())
            except FileSystemError as err:
                errors.append(f"grep: {err}\n")
                continue
            except MatchError as err:
                return _error("grep", f"bad regex {' | '.join(patterns)!r}: {err}", 2)
            if chosen is None:
                raise TimeLimitExceeded(inv.budget.limits.time_limit)
            found = found or bool(chosen.count)
            out.append(_grep_output(chosen, flags, path if len(paths) > 1 else None))
        code = 2 if errors else (0 if found else 1)
        return Output(b"" if "q" in flags else b"".join(out), "".join(errors).encode(), code)

    return grep


def _grep_output(chosen: Selection, flags: str, path: str | None) -> bytes:
    """What grep prints of one input: its count (``-c``) or its lines, after ``path:``."""
    prefix = b"" if path is None else path.encode() + b":"
    if "c" in flags:
        return prefix + f"{chosen.count}\n".encode()
    if not prefix:
        return chosen.lines
    return b"".join(prefix + line for line in chosen.lines.splitlines(keepends=True))


_GREP_FLAGS = frozenset("ivEFcqo")
# POSIX bracket classes as Python writes them inside a bracket expression.
_POSIX_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z",
                  "lower": "a-z", "space": r"\s", "blank": r" \t", "xdigit": "0-9A-Fa-f",
                  "punct": re.escape(string.punctuation), "cntrl": r"\x00-\x1f\x7f",
                  "print": r"\x20-\x7e", "graph": r"\x21-\x7e"}
_POSIX_CLASS = re.compile(r"\[:([a-z]+):\]")


def _grep_arguments(argv: list[str]) -> tuple[set[str], list[str], list[str]]:
    """The flags of a grep command line, its ``-e`` patterns and its other operands.

    Raises:
        ValueError: For ``-e`` without a pattern, or an option this grep lacks (before the
            first operand), naming it.
    """
    flags: set[str] = set()
    patterns: list[str] = []
    operands: list[str] = []
    args = iter(argv[1:])
    for arg in args:
        if arg == "--":
            operands.extend(args)
            break
        if operands or not arg.startswith("-") or arg == "-":
            operands.append(arg)
            continue
        if not _grep_cluster(arg):
            raise ValueError(f"unknown option {_unknown_option(arg)!r} (this grep has -"
                             f"{''.join(sorted(_GREP_FLAGS))}, -e PATTERN and --)")
        letters, _, attached = arg[1:].partition("e")
        flags |= set(letters)
        if "e" in arg[1:]:
            pattern = attached or next(args, None)
            if pattern is None:
                raise ValueError("option requires an argument -- 'e'")
            patterns.append(pattern)
    return flags, patterns, operands


def _unknown_option(arg: str) -> str:
    """The option of ``arg`` (a cluster, or a long option) that grep lacks."""
    if arg.startswith("--"):
        return arg.partition("=")[0]
    letters = arg[1:].partition("e")[0]
    return "-" + next(letter for letter in letters if letter not in _GREP_FLAGS)


def _grep_cluster(arg: str) -> bool:
    """Whether ``arg`` is a cluster of grep's flags, maybe ending in ``e`` and a pattern."""
    letters = arg[1:].partition("e")[0]
    return bool(arg[1:]) and set(letters) <= _GREP_FLAGS


def _grep_pattern(pattern: str, flags: set[str]) -> str:
    """A grep pattern as Python's ``re`` reads it (``-F`` fixed, ``-E`` extended, else basic).

    Raises:
        ValueError: For a POSIX class outside brackets (``[:digit:]``) or one grep does
            not know (``[[:digits:]]``).
    """
    if "F" in flags:
        return re.escape(pattern)
    return _classes(pattern if "E" in flags else _basic_to_python(pattern))


def _classes(pattern: str) -> str:
    """``pattern`` with the POSIX classes of its bracket expressions as Python writes them.

    Only bracket expressions are read (an escaped bracket is text); a class alone as one
    (``[:digit:]``) is refused, as grep refuses it.
    """
    out, index = [], 0
    while index < len(pattern):
        if pattern[index] == "\\":
            out.append(pattern[index:index + 2])
            index += 2
        elif pattern[index] == "[":
            end = _bracket_end(pattern, index) + 1
            bracket = pattern[index:end]
            if _POSIX_CLASS.fullmatch(bracket):
                raise ValueError(f"character class syntax is [{bracket}], not {bracket}")
            out.append(_POSIX_CLASS.sub(_posix_class, bracket))
            index = end
        else:
            out.append(pattern[index])
            index += 1
    return "".join(out)


def _bracket_end(pattern: str, start: int) -> int:
    """Where the bracket expression opened at ``start`` closes (the text's end if never)."""
    index = start + 1
    index += pattern.startswith("^", index)
    index += pattern.startswith("]", index)  # a ']' first is a member
    while index < len(pattern) and pattern[index] != "]":
        close = pattern.find(":]", index + 2) if pattern.startswith("[:", index) else -1
        index = close + 2 if close >= 0 else index + 1
    return min(index, len(pattern) - 1)


def _posix_class(match: re.Match[str]) -> str:
    if match[1] not in _POSIX_CLASSES:
        raise ValueError(f"invalid character class {match[0]!r}")
    return _POSIX_CLASSES[match[1]]


def _basic_to_python(pattern: str) -> str:
    """POSIX basic regex: ``+ ? | ( ) { }`` are literal unless escaped."""
    out, index = [], 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern) and pattern[index + 1] in "+?|(){}":
            out.append(pattern[index + 1])
            index += 2
            continue
        out.append("\\" + char if char in "+?|(){}" else char)
        index += 1
    return "".join(out)


def property_commands(props: Mapping[str, str]) -> dict[str, CommandFn]:
    """``getprop [NAME [DEFAULT]]`` over a fixed property table."""

    def getprop(inv: Invocation) -> Output:
        if len(inv.argv) == 1:
            lines = "".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items()))
            return Output(lines.encode())
        default = inv.argv[2] if len(inv.argv) > 2 else ""
        return Output((props.get(inv.argv[1], default) + "\n").encode())

    return {"getprop": getprop}


def basic_commands(pool: RegexPool, fs: MemoryFileSystem) -> dict[str, CommandFn]:
    """Commands that need little but their input (``grep`` matches in ``pool``, reads ``fs``)."""
    return {
        "echo": echo,
        "grep": grep_command(pool, fs),
        "true": lambda inv: Output(),
        "false": lambda inv: Output(code=1),
        "id": lambda inv: Output(b"uid=2000(shell) gid=2000(shell) groups=2000(shell)\n"),
        "sleep": sleep,
        "logcat": logcat,
    }

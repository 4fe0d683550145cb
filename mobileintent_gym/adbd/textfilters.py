r"""Text filters of the virtual device's shell: ``head``, ``tail``, ``wc``, ``tr`` and ``cut``.

Harness scripts pipe ``dumpsys`` and ``uiautomator`` output through them (``dumpsys window
| grep mCurrentFocus | head -n 1``, ``wc -l``, ``tr -d '\r'``). Each reads its files, or
standard input without them (or for ``-``), and prints what Android's toybox prints for
the options below; another option is ``NAME: Unknown option 'X'``, status 1::

    head [-n NUM] [-c NUM] [-q] [-v] [-NUM] [FILE...]    # first 10 lines by default
    tail [-n [+]NUM] [-c [+]NUM] [-NUM] [FILE...]        # last 10; +NUM: from line NUM
    wc [-l] [-w] [-c] [-m] [FILE...]                     # lines, words, bytes by default
    tr [-c] [-d] [-s] SET1 [SET2]                        # ranges a-z, \n \r \t \\ \NNN,
                                                         # [:digit:] and the other classes
    cut -b|-c|-f LIST [-d DELIM] [-s] [FILE...]          # LIST: N, N-M, N-, -M, joined by ,
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mobileintent_gym.adbd.filesystem import FileSystemError, MemoryFileSystem
from mobileintent_gym.adbd.shell import CommandFn, Invocation, Output

_SPACE = b" \t\n\v\f\r"
_CLASSES = {"alpha": b"A-Za-z", "digit": b"0-9", "alnum": b"0-9A-Za-z", "upper": b"A-Z",
            "lower": b"a-z", "space": b"\t-\r ", "blank": b"\t ", "xdigit": b"0-9A-Fa-f",
            "punct": b"!-/:-@[-`{-~", "cntrl": b"\x00-\x1f\x7f", "print": b" -~",
            "graph": b"!-~"}
_ESCAPES = {ord("n"): 10, ord("t"): 9, ord("r"): 13, ord("a"): 7, ord("b"): 8, ord("f"): 12,
            ord("v"): 11, ord("\\"): 92}
_RANGE = re.compile(r"(\d*)(-?)(\d*)$")


class UsageError(ValueError):
    """A command line a filter refuses: its message, without the command's name."""


def _read_options(argv: list[str], flags: str, valued: str, legacy: bool = False
                  ) -> tuple[dict[str, str], list[str]]:
    """Options (a flag's value ``""``) and operands, as toybox reads them.

    Options come before the first operand (``--`` ends them; ``-`` is an operand); letters
    may be grouped (``-qn 5``, ``-n5``). With ``legacy``, a first ``-NUM`` stands for
    ``-n NUM``.

    Raises:
        UsageError: For an option not in ``flags`` or ``valued``, or one without its value.
    """
    options: dict[str, str] = {}
    args = argv[1:]
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "-":
        word = args[index]
        index += 1
        if word == "--":
            break
        if legacy and word[1:].isdigit() and not options:
            options["n"] = word[1:]
            continue
        for at, letter in enumerate(word[1:], 1):
            if letter in valued:
                value = word[at + 1:] or (args[index] if index < len(args) else None)
                if value is None:
                    raise UsageError(f"Missing argument to -{letter}")
                index += not word[at + 1:]
                options[letter] = value
                break
            if letter not in flags:
                raise UsageError(f"Unknown option '{letter}' (see \"{argv[0]} --help\")")
            options[letter] = ""
    return options, args[index:]


def _count(options: dict[str, str], letter: str, signed: bool = False) -> tuple[int, bool]:
    """Option ``letter``'s count, and whether it was written ``+N``.

    ``signed``: ``+N`` (from the start) and ``-N`` (the same as ``N``) are read.

    Raises:
        UsageError: For a value that is no count.
    """
    value = options[letter]
    plus = signed and value.startswith("+")
    digits = value[1:] if plus or (signed and value.startswith("-")) else value
    if value.startswith("-") and not signed and value[1:].isdigit():
        raise UsageError(f"-{letter} < 0")
    if not digits.isdigit() or not digits.isascii():
        raise UsageError(f"not integer: {value}")
    return int(digits), plus


def _inputs(inv: Invocation, fs: MemoryFileSystem, paths: list[str]
            ) -> tuple[Inputs, list[str]]:
    """Each input's name and bytes (standard input for none, or ``-``), and the errors."""
    found, errors = [], []
    for path in paths or ["-"]:
        try:
            found.append((path, inv.stdin if path == "-" else fs.read(path)))
        except FileSystemError as err:
            errors.append(f"{inv.argv[0]}: {err}\n")
    return found, errors


Inputs = list[tuple[str, bytes]]
"""Each input read: its name (``-`` for standard input) and bytes."""


def _filter(fs: MemoryFileSystem, read: Callable[[list[str]], tuple[dict[str, str], list[str]]],
            each: Callable[[dict[str, str], Inputs, int], bytes]) -> CommandFn:
    """A command reading its options with ``read``, printing ``each``'s output of its inputs.

    ``each`` is told how many files the line named (a file that cannot be read is said,
    and the others are read: it still counts for the headers).
    """

    def command(inv: Invocation) -> Output:
        try:
            options, paths = read(inv.argv)
            found, errors = _inputs(inv, fs, paths)
            out = each(options, found, len(paths))
        except UsageError as err:
            return Output(stderr=f"{inv.argv[0]}: {err}\n".encode(), code=1)
        return Output(out, "".join(errors).encode(), 1 if errors else 0)

    return command


def _head(options: dict[str, str], found: Inputs, files: int) -> bytes:
    lines = _count(options, "n")[0] if "n" in options else 10
    size = _count(options, "c")[0] if "c" in options else None
    headed = ("v" in options or files > 1) and "q" not in options
    out = []
    for number, (name, data) in enumerate(found):
        if headed:
            out.append(f"{chr(10) if number else ''}==> {name} <==\n".encode())
        out.append(data[:size] if size is not None
                   else b"".join(data.splitlines(keepends=True)[:lines]))
    return b"".join(out)


def _tail(options: dict[str, str], found: Inputs, files: int) -> bytes:
    by_bytes = "c" in options
    count, plus = _count(options, "c" if by_bytes else "n", signed=True) if (
        by_bytes or "n" in options) else (10, False)
    out = []
    for number, (name, data) in enumerate(found):
        if files > 1:
            out.append(f"{chr(10) if number else ''}==> {name} <==\n".encode())
        parts = data if by_bytes else data.splitlines(keepends=True)
        kept = parts[max(count - 1, 0):] if plus else (parts[-count:] if count else parts[:0])
        out.append(kept if by_bytes else b"".join(kept))
    return b"".join(out)


def _wc(options: dict[str, str], found: Inputs, files: int) -> bytes:
    chosen = [letter for letter in "lwcm" if letter in options] or ["l", "w", "c"]
    # toybox pads to 7 columns, unless one input or one count of standard input is shown
    width = 0 if (files == 1 or (not files and len(chosen) == 1)) else 7
    totals = dict.fromkeys(chosen, 0)
    lines = []
    for name, data in found:
        counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data),
                  "m": len(data.decode("utf-8", "ignore"))}
        lines.append(_wc_line([counts[k] for k in chosen], width, name if files else ""))
        for k in chosen:
            totals[k] += counts[k]
    if files > 1:
        lines.append(_wc_line(list(totals.values()), width, "total"))
    return "".join(lines).encode()


def _wc_line(counts: list[int], width: int, name: str) -> str:
    line = " ".join(f"{count:>{width}}" for count in counts)
    return f"{line} {name}\n" if name else f"{line}\n"


def _tr_set(text: str) -> bytes:
    """The bytes a ``tr`` set names, in order (ranges, escapes and classes expanded)."""
    raw = text.encode()
    for name, members in _CLASSES.items():
        raw = raw.replace(f"[:{name}:]".encode(), members)
    chars, index = [], 0
    while index < len(raw):
        char, index = _tr_char(raw, index)
        if index + 1 < len(raw) and raw[index] == ord("-"):
            end, after = _tr_char(raw, index + 1)
            if end < char:
                raise UsageError(f"range {chr(char)}-{chr(end)} is backwards")
            chars.extend(range(char, end + 1))
            index = after
        else:
            chars.append(char)
    return bytes(chars)


def _tr_char(raw: bytes, index: int) -> tuple[int, int]:
    """The byte at ``raw[index]`` (a backslash escape read whole) and the index after it."""
    if raw[index] != ord("\\") or index + 1 == len(raw):
        return raw[index], index + 1
    octal = re.match(rb"[0-7]{1,3}", raw[index + 1:])
    if octal:
        return int(octal.group(), 8) & 0xFF, index + 1 + octal.end()
    return _ESCAPES.get(raw[index + 1], raw[index + 1]), index + 2


def _tr(options: dict[str, str], sets: list[str], data: bytes) -> bytes:
    deletes, squeezes = "d" in options, "s" in options
    need = 2 if deletes == squeezes else 1  # -d or -s alone take one set
    if not need <= len(sets) <= 2:
        raise UsageError(f"Needs {need} argument{'s' * (need > 1)}")
    first = _tr_set(sets[0])
    if "c" in options or "C" in options:
        first = bytes(sorted(set(range(256)) - set(first)))
    last = _tr_set(sets[-1]) if len(sets) == 2 else first
    if deletes:
        data = data.translate(None, first)
    elif len(sets) == 2:
        if not last:
            raise UsageError("SET2 is empty")
        table = bytearray(range(256))
        for k, char in enumerate(first):
            table[char] = last[min(k, len(last) - 1)]
        data = data.translate(bytes(table))
    if squeezes and last:
        data = re.sub(b"([" + re.escape(last) + b"])\\1+", rb"\1", data)
    return data


def _cut_list(text: str) -> list[tuple[int, int]]:
    """A ``cut`` list's ranges, 1-based and inclusive (an open end is a large number)."""
    ranges = []
    for part in text.split(","):
        match = _RANGE.match(part)
        if match is None or not (match.group(1) or match.group(3)):
            raise UsageError(f"bad list value '{part}'")
        start, end = int(match.group(1) or 1), int(match.group(3) or 2**31)
        if start < 1:
            raise UsageError(f"bad list value '{part}'")
        ranges.append((start, end if match.group(2) else start))
    return ranges


def _cut(options: dict[str, str], found: Inputs, files: int) -> bytes:
    modes = [m for m in "bcf" if m in options]
    if len(modes) != 1:
        raise UsageError("Needs one of -b, -c or -f")
    ranges, delimiter = _cut_list(options[modes[0]]), options.get("d", "\t")
    if len(delimiter.encode()) != 1:
        raise UsageError("the delimiter must be a single character")
    out = []
    for _, data in found:
        for line in data.splitlines():
            chosen = _cut_line(line, modes[0], ranges, delimiter.encode(), "s" in options)
            if chosen is not None:
                out.append(chosen + b"\n")
    return b"".join(out)


def _cut_line(line: bytes, mode: str, ranges: list[tuple[int, int]], delimiter: bytes,
              only_delimited: bool) -> bytes | None:
    """What ``cut`` keeps of one line (``None``: the line is left out, ``-s``)."""
    if mode == "f" and delimiter not in line:
        return None if only_delimited else line
    parts = (line.split(delimiter) if mode == "f"
             else list(line.decode("utf-8", "replace")) if mode == "c" else list(line))
    kept = [k for k in range(len(parts)) if any(a <= k + 1 <= b for a, b in ranges)]
    if mode == "f":
        return delimiter.join(parts[k] for k in kept)
    if mode == "c":
        return "".join(parts[k] for k in kept).encode()
    return bytes(parts[k] for k in kept)


def text_filters(fs: MemoryFileSystem) -> dict[str, CommandFn]:
    """``head``, ``tail``, ``wc``, ``tr`` and ``cut`` over ``fs`` and standard input."""

    def tr(inv: Invocation) -> Output:
        try:
            options, sets = _read_options(inv.argv, "cCds", "")
            return Output(_tr(options, sets, inv.stdin))
        except UsageError as err:
            return Output(stderr=f"tr: {err}\n".encode(), code=1)

    return {
        "head": _filter(fs, lambda argv: _read_options(argv, "qv", "nc", legacy=True), _head),
        "tail": _filter(fs, lambda argv: _read_options(argv, "", "nc", legacy=True), _tail),
        "cut": _filter(fs, lambda argv: _read_options(argv, "s", "bcfd"), _cut),
        "wc": _filter(fs, lambda argv: _read_options(argv, "lwcm", ""), _wc), "tr": tr,
    }

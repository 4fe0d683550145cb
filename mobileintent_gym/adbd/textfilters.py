r"""Text filters of the virtual device's shell: ``head``, ``tail``, ``wc``, ``tr`` and ``cut``.

Harness scripts pipe ``dumpsys`` and ``uiautomator`` output through them (``dumpsys window
| grep mCurrentFocus | head -n 1``, ``wc -l``, ``tr -d '\r'``). Each reads its files, or
standard input without them (or for ``-``), and prints what Android's toybox prints for
the options below, which may stand anywhere but in ``tr`` (before its sets); another
option is ``NAME: Unknown option 'X'``, status 1. Counts are read as toybox reads them
(``0x10``, ``010`` octal, ``1k`` = 1024); only a newline ends a line::

    head [-n NUM] [-c NUM] [-q] [-v] [-NUM] [FILE...]    # first 10 lines by default
    tail [-n [+]NUM] [-c [+]NUM] [-NUM|+NUM] [FILE...]   # last 10; +NUM: from line NUM
    wc [-l] [-w] [-m] [-c] [-L] [FILE...]                # lines, words, bytes by default
    tr [-c] [-d] [-s] SET1 [SET2]                        # ranges a-z, \n \r \t \\ \NNN,
                                                         # [:alpha:] [:digit:] [:space:] …
    cut -b|-c|-f LIST [-d DELIM] [-s] [FILE...]          # LIST: N, N-M, N-, -M, joined by ,

(``--lines=N`` and ``--bytes=N`` too; the last of ``-n`` and ``-c`` wins.)
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mobileintent_gym.adbd.filesystem import FileSystemError, MemoryFileSystem
from mobileintent_gym.adbd.shell import CommandFn, Invocation, Output
from mobileintent_gym.adbd.toybox_args import UsageError, read_options, refusing

_CLASSES = {"alpha": b"A-Za-z", "digit": b"0-9", "alnum": b"A-Za-z0-9", "upper": b"A-Z",
            "lower": b"a-z", "space": b"\t-\r ", "blank": b"\t ", "xdigit": b"0-9A-Fa-f",
            "punct": b"!-/:-@[-`{-~", "cntrl": b"\x00-\x1f\x7f", "print": b" -~", "graph": b"!-~"}
_SELECT_LIMIT = 512  # toybox cut's most ranges
_LONG = {"--lines": "n", "--bytes": "c"}  # head's and tail's long options
_ESCAPES = {ord("n"): 10, ord("t"): 9, ord("r"): 13, ord("a"): 7, ord("b"): 8, ord("f"): 12,
            ord("v"): 11, ord("\\"): 92}
_RANGE = re.compile(r"(\d*)(-?)(\d*)$")


Inputs = list[tuple[str, bytes]]
"""Each input read: its name (``-`` for standard input) and bytes."""


def _count(options: dict[str, str], letter: str, signed: bool = False) -> tuple[int, bool]:
    """Option ``letter``'s count as toybox's ``atolx`` reads it, and whether it was ``+N``.

    A count may be hexadecimal (``0x``) or octal (``0``) and end in a multiplier (``k``
    1024, ``m``, ``g`` … ``b`` 512, ``w`` 2, ``c`` 1). ``signed``: ``+N`` counts from the
    start, ``-N`` is the same as ``N``.

    Raises:
        UsageError: For a value that is no count, or a negative one where none is allowed.
    """
    value = options[letter]
    plus = signed and value.startswith("+")
    match = _COUNT.fullmatch(value)
    if match is None:
        raise UsageError(f"not integer: {value}")
    sign, digits, suffix = match.groups()
    number = int(digits, 0 if digits[:2].lower() == "0x" else 8 if digits[:1] == "0" and (
        len(digits) > 1) else 10) * _MULTIPLIERS[suffix.lower()]
    if sign == "-" and number and not signed:
        raise UsageError(f"-{letter} < 0")
    if number >= 2**63:
        raise UsageError(f"-{letter} > {2**63 - 1}")
    return number, plus


_COUNT = re.compile(r"([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9]\d*)([cwbkmgtpe]?)", re.ASCII)
_MULTIPLIERS = {"": 1, "c": 1, "w": 2, "b": 512,
                **{s: 1024 ** (n + 1) for n, s in enumerate("kmgtpe")}}


def _lines(data: bytes) -> list[bytes]:
    """``data``'s lines, each with its newline (the last may lack one).

    Only a newline ends a line: a carriage return stays in it, as toybox reads lines.
    """
    return re.findall(rb"[^\n]*\n|[^\n]+\Z", data)


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


Reader = Callable[[list[str]], tuple[dict[str, str], list[str]]]
Runner = Callable[[dict[str, str], list[str], Invocation], tuple[bytes, list[str]]]


def _filter(read: Reader, run: Runner) -> CommandFn:
    """A command reading its options with ``read``; ``run`` gives its output and errors.

    A line it refuses is ``NAME: MESSAGE``, status 1 (:func:`refusing`); errors (a file
    that cannot be read) make the status 1 after the output of the others.
    """

    def command(inv: Invocation) -> Output:
        options, operands = read(inv.argv)
        out, errors = run(options, operands, inv)
        return Output(out, "".join(errors).encode(), 1 if errors else 0)

    return refusing(command)


def _over_files(fs: MemoryFileSystem, each: Callable[[dict[str, str], Inputs, int], bytes]
                ) -> Runner:
    """A runner reading the operands as files (standard input for none, or ``-``).

    ``each`` is told how many files the line named: a file that cannot be read is said
    and the others are read, but it still counts (for the headers), as toybox counts it.
    """

    def run(options: dict[str, str], operands: list[str], inv: Invocation
            ) -> tuple[bytes, list[str]]:
        found, errors = _inputs(inv, fs, operands)
        return each(options, found, len(operands)), errors

    return run


def _header(number: int, name: str) -> bytes:
    """The ``==> NAME <==`` line before the ``number``-th of several inputs."""
    return f"{chr(10) if number else ''}==> {name} <==\n".encode()


def _head(options: dict[str, str], found: Inputs, files: int) -> bytes:
    """``head``: the first lines (``-n``) or bytes (``-c``) of each input."""
    lines = _count(options, "n")[0] if "n" in options else 10
    size = _count(options, "c")[0] if "c" in options else None
    headed = ("v" in options or files > 1) and "q" not in options
    out = []
    for number, (name, data) in enumerate(found):
        out.append(_header(number, name) if headed else b"")
        out.append(data[:size] if size is not None else b"".join(_lines(data)[:lines]))
    return b"".join(out)


def _tail(options: dict[str, str], found: Inputs, files: int) -> bytes:
    """``tail``: the last lines (``-n``) or bytes (``-c``) of each input, or from ``+N``."""
    by_bytes = "c" in options
    count, plus = _count(options, "c" if by_bytes else "n", signed=True) if (
        by_bytes or "n" in options) else (10, False)
    out = []
    for number, (name, data) in enumerate(found):
        out.append(_header(number, name) if files > 1 else b"")
        parts = data if by_bytes else _lines(data)
        kept = parts[max(count - 1, 0):] if plus else (parts[-count:] if count else parts[:0])
        out.append(kept if by_bytes else b"".join(kept))
    return b"".join(out)


def _wc(options: dict[str, str], found: Inputs, files: int) -> bytes:
    """``wc``: lines, words, characters, bytes and the longest line's length, as chosen."""
    chosen = [letter for letter in "lwmcL" if letter in options] or ["l", "w", "c"]
    # toybox pads to 7 columns, unless one input or one count of standard input is shown
    width = 0 if (files == 1 or (not files and len(chosen) == 1)) else 7
    rows = [(name, _wc_counts(data)) for name, data in found]
    lines = [_wc_line([counts[k] for k in chosen], width, name if files else "")
             for name, counts in rows]
    if files > 1:
        totals = [max(c[k] for _, c in rows) if k == "L" else sum(c[k] for _, c in rows)
                  for k in chosen]
        lines.append(_wc_line(totals, width, "total"))
    return "".join(lines).encode()


def _wc_counts(data: bytes) -> dict[str, int]:
    """Each of ``wc``'s counts of ``data``."""
    text = data.decode("utf-8", "ignore")
    longest = max((len(line) for line in text.split("\n")), default=0)
    return {"l": data.count(b"\n"), "w": len(data.split()), "m": len(text), "c": len(data),
            "L": longest}


def _wc_line(counts: list[int], width: int, name: str) -> str:
    """One line of ``wc``: the counts, each ``width`` wide, and the input's name."""
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
                raise UsageError("reverse colating order")
            chars.extend(range(char, end + 1))
            index = after
        else:
            chars.append(char)
    return bytes(chars)


def _tr_char(raw: bytes, index: int) -> tuple[int, int]:
    """The byte at ``raw[index]`` (a backslash escape read whole) and the index after it.

    An escape tr does not know stands for the backslash (what follows is read next).
    """
    if raw[index] != ord("\\") or index + 1 == len(raw):
        return raw[index], index + 1
    octal = re.match(rb"[0-7]{1,3}", raw[index + 1:])
    if octal:
        return int(octal.group(), 8) & 0xFF, index + 1 + octal.end()
    if raw[index + 1] in _ESCAPES:
        return _ESCAPES[raw[index + 1]], index + 2
    return raw[index], index + 1


def _tr(options: dict[str, str], sets: list[str], data: bytes) -> bytes:
    """``tr``: ``data`` with SET1's bytes translated, deleted (``-d``) or squeezed (``-s``)."""
    if not sets:
        raise UsageError("Needs 1 argument")
    if len(sets) > 2:
        raise UsageError("Max 2 arguments")
    first = _tr_set(sets[0])
    if "c" in options or "C" in options:
        first = bytes(sorted(set(range(256)) - set(first)))
    last = _tr_set(sets[-1]) if len(sets) == 2 else first
    if "d" in options:
        data = data.translate(None, first)
    elif len(sets) == 2:
        if not last:
            raise UsageError("set2 can't be empty string")
        table = bytearray(range(256))
        for k, char in enumerate(first):
            table[char] = last[min(k, len(last) - 1)]
        data = data.translate(bytes(table))
    if "s" in options and last:
        data = re.sub(b"([" + re.escape(last) + b"])\\1+", rb"\1", data)
    return data


def _cut_list(option: str, text: str) -> list[tuple[int, int]]:
    """A ``cut`` list's ranges, 1-based and inclusive, merged and in order.

    Raises:
        UsageError: For a value that is no range, a backward one, or more than toybox's
            512 of them.
    """
    ranges = []
    for part in text.split(","):
        match = _RANGE.match(part)
        if match is None or (part != "-" and not (match.group(1) or match.group(3))):
            raise UsageError(f"bad -{option} '{part}'")
        start, end = int(match.group(1) or 1), int(match.group(3) or 2**31)
        end = end if match.group(2) else start
        if start < 1 or end < start:
            raise UsageError(f"bad -{option} '{part}'")
        ranges.append((start, end))
    if len(ranges) > _SELECT_LIMIT:
        raise UsageError("select limit")
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _cut(options: dict[str, str], found: Inputs, files: int) -> bytes:
    """``cut``: the chosen bytes (``-b``), characters (``-c``) or fields (``-f``) of each line."""
    modes = [mode for mode in "bcf" if mode in options]
    if len(modes) != 1:
        raise UsageError("Needs one of -CFfcb" if not modes else
                         f"No '{modes[1]}' with '{modes[0]}'")
    for needs_f in "sd":
        if needs_f in options and modes != ["f"]:
            raise UsageError(f"-{needs_f} needs -Ff")
    ranges, delimiter = _cut_list(modes[0], options[modes[0]]), options.get("d", "\t")
    if len(delimiter.encode()) != 1:
        raise UsageError("the delimiter must be a single character")
    out = []
    for _, data in found:
        for line in _lines(data):
            chosen = _cut_line(line.rstrip(b"\n"), modes[0], ranges, delimiter.encode(),
                               "s" in options)
            out.append(b"" if chosen is None else chosen + b"\n")
    return b"".join(out)


def _cut_line(line: bytes, mode: str, ranges: list[tuple[int, int]], delimiter: bytes,
              only_delimited: bool) -> bytes | None:
    """What ``cut`` keeps of one line (``None``: the line is left out, ``-s``)."""
    if mode == "f" and delimiter not in line:
        return None if only_delimited else line
    if mode == "b":
        return b"".join(line[start - 1:end] for start, end in ranges)
    if mode == "c":  # characters; bytes that are none stay as they were
        text = line.decode("utf-8", "surrogateescape")
        return "".join(text[start - 1:end] for start, end in ranges).encode(
            "utf-8", "surrogateescape")
    fields = line.split(delimiter)
    return delimiter.join(field for start, end in ranges for field in fields[start - 1:end])


def _tr_run(options: dict[str, str], sets: list[str], inv: Invocation
            ) -> tuple[bytes, list[str]]:
    return _tr(options, sets, inv.stdin), []


def text_filters(fs: MemoryFileSystem) -> dict[str, CommandFn]:
    """``head``, ``tail``, ``wc``, ``tr`` and ``cut`` over ``fs`` and standard input."""
    return {
        "head": _filter(lambda argv: read_options(argv, "qv", "nc", legacy="-", exclusive="nc",
                                                  long=_LONG), _over_files(fs, _head)),
        "tail": _filter(lambda argv: read_options(argv, "", "nc", legacy="-+", exclusive="nc",
                                                  long=_LONG), _over_files(fs, _tail)),
        "wc": _filter(lambda argv: read_options(argv, "lwcmL", ""), _over_files(fs, _wc)),
        "cut": _filter(lambda argv: read_options(argv, "s", "bcfd"), _over_files(fs, _cut)),
        "tr": _filter(lambda argv: read_options(argv, "cCds", "", anywhere=False), _tr_run),
    }

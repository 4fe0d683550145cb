"""The child process that matches ``grep``'s regular expressions for the virtual device.

Started by :mod:`mobileintent_gym.adbd.regex_pool` as ``python -I regex_child.py``; it
imports nothing but the standard library. Requests arrive on stdin and answers leave on
stdout as :mod:`multiprocessing.connection` messages:

* request: flags (1 byte: bit 0 ignore case, bit 1 invert, bit 2 only the matches),
  pattern length (u32), the pattern (UTF-8), then the text to search;
* answer: status (1 byte: 0 matched, 1 bad pattern), number of lines chosen (u32), then
  the chosen lines (each ending in a newline) or, with bit 2, each non-empty match in
  them on a line of its own (none for inverted selections, as grep prints); or the error
  message.

A pattern that backtracks without end keeps this process busy, never the server: the
server kills it when the command's time is up. Its memory is capped too (1 GiB of address
space), and lines are read one at a time rather than split into a list.
"""

from __future__ import annotations

import contextlib
import os
import re
import struct
from collections.abc import Iterator
from multiprocessing.connection import Connection

HEADER = struct.Struct("<BI")
IGNORE_CASE, INVERT, ONLY_MATCHING = 1, 2, 4
MATCHED, BAD_PATTERN = 0, 1
MEMORY_LIMIT = 1 << 30


def answer(request: bytes) -> bytes:
    """The answer to one request (format in the module notes)."""
    flags, length = HEADER.unpack_from(request)
    pattern = request[HEADER.size : HEADER.size + length].decode("utf-8")
    text = request[HEADER.size + length :]
    try:
        regex = re.compile(pattern, re.IGNORECASE if flags & IGNORE_CASE else 0)
    except re.error as err:
        return HEADER.pack(BAD_PATTERN, 0) + str(err).encode("utf-8")
    invert = bool(flags & INVERT)
    chosen = [line for line in lines(text.decode("utf-8", errors="replace"))
              if bool(regex.search(line)) != invert]
    shown = chosen
    if flags & ONLY_MATCHING:
        shown = [] if invert else [found.group() for line in chosen
                                   for found in regex.finditer(line) if found.group()]
    return HEADER.pack(MATCHED, len(chosen)) + "".join(f"{line}\n" for line in shown).encode()


def lines(text: str) -> Iterator[str]:
    """The lines of ``text`` (split at newlines only, as grep does), one at a time."""
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        yield text[start:end]
        start = end + 1


def main() -> None:
    """Answer requests until the server closes stdin (POSIX: ``resource``, ``os.nice``)."""
    import resource  # here, not at the top: the command line imports this module anywhere

    os.nice(10)  # a runaway pattern must not slow the server's own threads down
    with contextlib.suppress(ValueError, OSError):  # some systems (macOS) refuse the cap
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    requests = Connection(0, writable=False)
    answers = Connection(1, readable=False)
    while True:
        try:
            request = requests.recv_bytes()
        except EOFError:
            return
        answers.send_bytes(answer(request))


if __name__ == "__main__":
    main()

"""Regular expressions matched in child processes that can be killed.

Python's ``re`` engine holds the interpreter lock while it matches, so a pattern that
backtracks catastrophically (``grep -E '^(a+)+$'`` on a line of thirty ``a``) would stall
every thread of the server, its event loop included, for minutes; and a thread cannot be
stopped. ``grep`` on the virtual device therefore hands its matching to a child process
(:mod:`.regex_child`), waits at most until the command's deadline, and kills the child when
time is up. Idle children are kept for the next ``grep``; new ones start on demand.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import weakref
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from mobileintent_gym.adbd.regex_child import (
    BAD_PATTERN,
    HEADER,
    IGNORE_CASE,
    INVERT,
    ONLY_MATCHING,
)
from mobileintent_gym.errors import MobileIntentError

_CHILD = Path(__file__).with_name("regex_child.py")


class MatchError(MobileIntentError, ValueError):
    """A pattern ``re`` cannot compile (the message is ``re``'s), or a child that died."""


@dataclass(frozen=True)
class Selection:
    """The lines a pattern chose and how many; ``lines`` ends each in a newline.

    With ``only_matching``, ``lines`` holds each match in them instead, one to a line.
    """

    lines: bytes
    count: int


class _Child:
    """One matching process and the two ends of its pipes."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-I", str(_CHILD)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, close_fds=True)
        # The connections own duplicates of the pipe ends; the file objects are not used.
        self.requests = Connection(os.dup(self.process.stdin.fileno()), readable=False)
        self.answers = Connection(os.dup(self.process.stdout.fileno()), writable=False)
        self.process.stdin.close()
        self.process.stdout.close()

    def kill(self) -> None:
        self.process.kill()
        self.process.wait()
        self.requests.close()
        self.answers.close()


class RegexPool:
    """Child processes for ``grep``'s matching; safe to use from many threads at once.

    Args:
        idle: Children kept waiting between matches.
    """

    def __init__(self, idle: int = 2) -> None:
        self._idle_max = idle
        self._idle: list[_Child] = []
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _kill_all, self._idle)

    def select(self, pattern: str, text: bytes, *, ignore_case: bool = False,
               invert: bool = False, only_matching: bool = False,
               timeout: float | None = None) -> Selection | None:
        """The lines of ``text`` that ``pattern`` matches (or, with ``invert``, does not).

        With ``only_matching`` (``grep -o``) the selection's text is each non-empty match
        on a line of its own (nothing for ``invert``); its count is still of lines.

        Returns:
            The selection, or ``None`` when it took longer than ``timeout`` seconds (the
            child doing it has been killed); no ``timeout`` waits as long as it takes.

        Raises:
            MatchError: When ``pattern`` does not compile, or no child could start or one
                died (out of memory, say).
        """
        flags = ((IGNORE_CASE if ignore_case else 0) | (INVERT if invert else 0)
                 | (ONLY_MATCHING if only_matching else 0))
        raw = pattern.encode("utf-8", errors="replace")
        child = self._take()
        try:
            child.requests.send_bytes(HEADER.pack(flags, len(raw)) + raw + text)
            if not child.answers.poll(None if timeout is None else max(timeout, 0.0)):
                child.kill()
                return None
            answer = child.answers.recv_bytes()
        except (EOFError, OSError) as err:
            child.kill()
            raise MatchError(f"the matching process ended without an answer ({err!r})") from err
        except BaseException:
            child.kill()
            raise
        self._give_back(child)
        status, count = HEADER.unpack_from(answer)
        body = answer[HEADER.size :]
        if status == BAD_PATTERN:
            raise MatchError(body.decode("utf-8", errors="replace"))
        return Selection(body, count)

    def close(self) -> None:
        """Kill every idle child (a ``select`` in progress still finishes)."""
        self._finalizer()

    def _take(self) -> _Child:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        try:
            return _Child()
        except OSError as err:
            raise MatchError(f"cannot start a matching process: {err}") from err

    def _give_back(self, child: _Child) -> None:
        with self._lock:
            if len(self._idle) < self._idle_max and self._finalizer.alive:
                self._idle.append(child)
                return
        child.kill()


def _kill_all(children: list[_Child]) -> None:
    while children:
        children.pop().kill()

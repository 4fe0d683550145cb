"""How :class:`~mobileintent_gym.envs.vector.SharedMemoryVectorEnv` talks with its workers.

A Ctrl-C held back while messages travel (:class:`CtrlC`), waiting on the workers' pipes
(:func:`ready`), and reading their answers: a payload each, or the first sub-env's error
raised with the sub-env named (:func:`payloads`, :func:`raise_answer`).
"""

from __future__ import annotations

import copy
import inspect
import math
import multiprocessing.connection
import select
import signal
import threading
import time
from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from mobileintent_gym.envs.vector_in_parent import ParentWorker
from mobileintent_gym.envs.vector_worker import WorkerError

WAKE_SECONDS = 0.1
"""The longest a wait for answers sleeps at a time.

A Ctrl-C whose signal lands just before the wait enters the OS (or in another thread)
does not interrupt the OS's wait: Python runs its handler when the main thread next runs
Python code, and a wait for an answer that only comes after the Ctrl-C (an env stuck in a
step) would never end.
"""


class CtrlC:
    """Ctrl-C (SIGINT) held back while messages to and from the workers are on their way.

    Inside ``with CtrlC() as ctrl_c:`` a Ctrl-C waits for the block's end (however it
    ends: a sub-env's error too), then goes to the handler that was installed (Python's
    raises ``KeyboardInterrupt``; a program's own, say one that saves and stops): no
    message is cut in two, and the workers a call sends commands all get theirs. In
    :meth:`wait`, for answers (where nothing is half read), it goes to that handler at
    once, as does one held back before the wait: a long wait can be interrupted. One
    block per call, not per message: swapping the handler costs some 10 µs. Outside the
    main thread, where Python runs no handler, or under a handler not installed from
    Python, nothing is held.
    """

    def __enter__(self) -> CtrlC:
        self._previous = signal.getsignal(signal.SIGINT)
        self._holding = (self._previous is not None
                         and threading.current_thread() is threading.main_thread())
        self._waiting, self._caught = False, False
        if self._holding:
            signal.signal(signal.SIGINT, self._arrived)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._holding:
            signal.signal(signal.SIGINT, self._previous)
            if self._caught:  # also when the block ends with an env's error
                signal.raise_signal(signal.SIGINT)

    def wait(self, pipes: list[Any], timeout: float | None = None) -> list[Any]:
        """:func:`ready` ``(pipes, timeout)``, which a Ctrl-C interrupts.

        A worker in this process, last in ``pipes`` as it is the last worker, carries out
        what it was sent, with a Ctrl-C held back until it is done (an env's step is never
        cut in two), and is returned with the pipes that already had an answer: nothing
        is slept on then, and in a pool a worker process that finished waits for its next
        step no longer than it takes to read it.
        """
        if pipes and isinstance(pipes[-1], ParentWorker):
            here, pipes = pipes[-1], pipes[:-1]
            found = ready(pipes, 0) if pipes else []  # before: it would look finished later
            here.work()
            if here.poll():
                return [*found, here]
            if found or not pipes:
                return found
        self._waiting = True  # from here a Ctrl-C goes to the handler at once
        try:
            if self._caught:
                self._caught = False
                self._deliver(inspect.currentframe())
            return _sliced(pipes, timeout)
        finally:
            self._waiting = False

    def _arrived(self, number: int, frame: Any) -> None:
        if self._waiting:
            self._deliver(frame)
        else:
            self._caught = True

    def _deliver(self, frame: Any) -> None:
        """What the installed handler does with a Ctrl-C, now.

        A handler may install another ("press Ctrl-C again to stop at once"): that one
        gets the next Ctrl-C, held back as before, and stays installed after the block.
        """
        if callable(self._previous):
            try:
                self._previous(signal.SIGINT, frame)
            finally:
                installed = signal.getsignal(signal.SIGINT)
                if installed != self._arrived:
                    self._previous = installed
                    signal.signal(signal.SIGINT, self._arrived)
        elif self._previous == signal.SIG_DFL:  # the process ends, as it would have
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.raise_signal(signal.SIGINT)


def _sliced(pipes: list[Any], timeout: float | None) -> list[Any]:
    """:func:`ready` ``(pipes, timeout)``, asleep at most :data:`WAKE_SECONDS` at a time.

    Between two sleeps Python runs the handler of a Ctrl-C that the OS's wait missed.
    """
    deadline = math.inf if timeout is None else time.monotonic() + timeout
    while True:
        left = max(0.0, deadline - time.monotonic())
        found = ready(pipes, min(WAKE_SECONDS, left))
        if found or left <= WAKE_SECONDS:
            return found


def ready(pipes: list[Any], timeout: float | None) -> list[Any]:
    """The ``pipes`` with an answer to read (or closed), waiting up to ``timeout`` seconds.

    As ``multiprocessing.connection.wait``, but where the OS has poll(2) it is called
    directly: that function builds a selector and registers every pipe in Python on each
    call, 17.9 µs for 16 pipes against 5.4 µs here (timeit, one answer waiting on each).
    """
    if not hasattr(select, "poll"):  # Windows
        return multiprocessing.connection.wait(pipes, timeout)
    poller, by_number = select.poll(), {}
    for pipe in pipes:
        by_number[pipe.fileno()] = pipe
        poller.register(pipe.fileno(), select.POLLIN)
    found = poller.poll(None if timeout is None else math.ceil(max(0.0, timeout) * 1000))
    return [by_number[number] for number, _ in found]


def first_error(answers: Sequence[tuple[str, Any]]) -> int | None:
    """The first sub-env whose answer is an error, if any."""
    return next((i for i, (status, _) in enumerate(answers) if status == "error"), None)


def payloads(answers: Sequence[tuple[str, Any]]) -> list[Any]:
    """The answers' payloads.

    Raises:
        Exception: The first error among them (see :func:`raise_answer`).
    """
    failed = first_error(answers)
    if failed is not None:
        raise_answer(answers[failed][1], failed)
    return [payload for _, payload in answers]


def raise_answer(error: tuple[Exception, str], index: int) -> None:
    """Raise sub-env ``index``'s error, naming it, with the worker's traceback as the cause.

    The sub-env is named in the error's ``env_id`` attribute (where the error takes one)
    and, on Python 3.11+, in a note printed under its message.
    """
    err, trace = error
    if getattr(err, "env_id", None) is not None:  # one error stood for several sub-envs
        err = _copied(err)
    with suppress(Exception):  # an error type may refuse attributes (a frozen dataclass)
        err.env_id = index
    with suppress(Exception):  # the note sets __notes__ (no add_note before Python 3.11)
        err.add_note(f"(raised by sub-env {index})")
    raise err from (WorkerError(f"in sub-env {index}'s worker:\n{trace}") if trace else None)


def _copied(err: Exception) -> Exception:
    """A copy of ``err`` without the sub-env a raise named in it (``err`` if it has none).

    An error raised before (a worker's death, for each of its sub-envs) is then not changed
    under whoever holds it.
    """
    try:
        copied = copy.copy(err)
    except Exception:
        return err
    notes = getattr(err, "__notes__", None)
    if isinstance(notes, list):
        copied.__notes__ = [n for n in notes if not n.startswith("(raised by sub-env ")]
    return copied

"""Ctrl-C in a training loop: at once while it rolls out, after the step that changes weights.

A run stopped in the middle of an optimiser step holds weights no checkpoint should keep;
stopped anywhere else, it can be saved where it stands. :class:`Stopping` holds Ctrl-C
back outside the parts of an update that change nothing (rolling out, validating), and
delivers it at the end of the update, where the trainer saves a checkpoint.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType, TracebackType
from typing import Any


class Stopping:
    """Where Ctrl-C (SIGINT) stops a training loop run inside ``with stopping:``.

    Inside :meth:`abortable` blocks it raises ``KeyboardInterrupt`` at once; elsewhere it
    is held until :meth:`check`. A second Ctrl-C while one is held raises at once, wherever
    the loop is (:attr:`forced`): a run that hangs can always be stopped. An error out of
    a :meth:`changing` block (an interrupt raised by other code too) leaves the weights
    half changed. Outside the main thread (where Python cannot take signals) nothing is
    held, and a stop is never whole; nor under a SIGINT handler not installed from Python.

    Example:
        >>> stopping = Stopping()
        >>> with stopping:
        ...     with stopping.abortable():
        ...         pass  # roll out: Ctrl-C stops here at once
        ...     with stopping.changing():
        ...         pass  # the optimiser step: Ctrl-C waits
        ...     stopping.check()  # and lands here
        >>> stopping.whole
        True
    """

    def __init__(self) -> None:
        self.requested = False  # a Ctrl-C is held
        self.forced = False  # a second one stopped the loop where it was
        self._abortable = 0
        self._torn = False  # an error left a change of the weights half done
        self._previous: Any = None
        self._installed = self._active = False

    @property
    def whole(self) -> bool:
        """The last loop stopped with no change of its weights half done (it can be saved)."""
        return self._installed and not (self.forced or self._torn)

    def __enter__(self) -> Stopping:
        if self._active:
            raise RuntimeError("this Stopping already holds Ctrl-C back for a loop")
        self.requested = self.forced = self._torn = self._installed = False
        self._previous = signal.getsignal(signal.SIGINT)
        # As vector_calls.CtrlC: a handler not set from Python (None) could not be set
        # back, so it is left in place, and nothing is held.
        if self._previous is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, self._arrived)
            self._installed = self._active = True
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._active:
            signal.signal(signal.SIGINT, self._previous)
            self._active = False

    @contextlib.contextmanager
    def changing(self) -> Iterator[None]:
        """A part that changes the weights: any error out of it leaves them half changed."""
        try:
            yield
        except BaseException:
            self._torn = True
            raise

    @contextlib.contextmanager
    def abortable(self) -> Iterator[None]:
        """A part that changes no weights: Ctrl-C stops it at once."""
        self._abortable += 1
        try:
            yield
        finally:
            self._abortable -= 1

    def check(self) -> None:
        """Deliver a held Ctrl-C.

        Raises:
            KeyboardInterrupt: When Ctrl-C was pressed since the loop began.
        """
        if self.requested:
            raise KeyboardInterrupt

    def _arrived(self, signum: int, frame: FrameType | None) -> None:
        if self._abortable:
            self.requested = True
            raise KeyboardInterrupt
        if self.requested:
            self.forced = True
            raise KeyboardInterrupt
        self.requested = True
        print("\nstopping once the weights are updated (Ctrl-C again: at once, unsaved)",
              file=sys.stderr)

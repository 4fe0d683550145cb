"""What one command line may cost the virtual device: time and output.

A command line's :class:`Budget` starts from its :class:`ShellLimits`. The shell checks the
time before each command and charges each command's output; commands that can wait or
compute for long check it themselves (``grep``'s matching process is killed when time is
up, a command waiting for the phone gives up, ``cat`` refuses files that cannot fit).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from mobileintent_gym.errors import MobileIntentError

MIB = 1024 * 1024


@dataclass(frozen=True)
class ShellLimits:
    """What one command line may cost the device.

    Attributes:
        time_limit: Seconds a command line may run (10 s); past it, it is stopped and ends
            with status 137, as a killed command does.
        output_limit: Bytes its commands may write in all (64 MiB), counting what passes
            through pipes, command substitutions and redirections; past it, it stops with
            status 1. A raw ``screencap`` of the largest simulated screen (3840×3840) fits.
    """

    time_limit: float = 10.0
    output_limit: int = 64 * MIB


class LimitExceeded(MobileIntentError):
    """A command line went past one of its :class:`ShellLimits`; it ends with ``code``."""

    code = 1


class TimeLimitExceeded(LimitExceeded):
    """The command line ran out of time."""

    code = 137

    def __init__(self, limit: float) -> None:
        super().__init__(f"killed: over the {limit:g} s time limit")


class InputLimitExceeded(LimitExceeded):
    """A client sent a command line more standard input than its output limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"input over the {limit} byte limit")


class OutputLimitExceeded(LimitExceeded):
    """The command line's commands wrote more than the output limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"output over the {limit} byte limit")


class Budget:
    """What is left of a command line's :class:`ShellLimits` while it runs.

    Its time counts from ``started`` (a ``time.monotonic()`` reading; default: now).
    """

    def __init__(self, limits: ShellLimits, started: float | None = None) -> None:
        self.limits = limits
        self.deadline = (time.monotonic() if started is None else started) + limits.time_limit
        self.room = limits.output_limit

    def remaining(self) -> float:
        """Seconds left (may be negative once over)."""
        return self.deadline - time.monotonic()

    def timeout(self) -> float | None:
        """Seconds a wait may last now: ``None`` without a time limit, else at least 0."""
        return None if math.isinf(self.deadline) else max(self.remaining(), 0.0)

    def check_time(self) -> None:
        """Raise :class:`TimeLimitExceeded` once the time is up."""
        if self.remaining() <= 0:
            raise TimeLimitExceeded(self.limits.time_limit)

    def check_room(self, size: int) -> None:
        """Raise :class:`OutputLimitExceeded` when ``size`` more bytes would not fit."""
        if size > self.room:
            raise OutputLimitExceeded(self.limits.output_limit)

    def spend(self, size: int) -> None:
        """Count ``size`` bytes of output (raising when they do not fit)."""
        self.check_room(size)
        self.room -= size


# No limits: what a shell built without any has (tests, direct use).
UNLIMITED = ShellLimits(math.inf, 1 << 62)

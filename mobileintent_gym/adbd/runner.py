"""Command lines off the event loop: worker threads, and their output relayed as produced.

The event loop only moves packets. Each command line runs on a worker thread of the
server's pool, and each of its pipelines' output is handed to the loop as soon as it
exists, to be sent on its stream while the command line goes on. A connection runs at most
:attr:`CommandRunner.per_connection` command lines at once (the rest wait their turn on the
loop, holding no thread), so that no one client can occupy every thread.

A command line stops itself at its time limit (:class:`~.limits.ShellLimits`); should a
worker still be busy a moment later, the client is answered with the time-limit error at
once and whatever the worker writes afterwards is dropped.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import math
import threading
import time
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import NamedTuple

from mobileintent_gym.adbd.device import VirtualDevice
from mobileintent_gym.adbd.limits import TimeLimitExceeded
from mobileintent_gym.adbd.shell import Input
from mobileintent_gym.errors import MobileIntentError

# Sends one piece of output (fd 1 stdout, 2 stderr) on a stream.
Send = Callable[[int, bytes], Awaitable[None]]
GRACE = 1.0  # seconds past the time limit before the loop stops waiting for a worker
PENDING = 1  # pieces of output a worker may have waiting for the client before it waits too
_END = object()
log = logging.getLogger(__name__)


class Ended(NamedTuple):
    """How a command line ended: its exit code, whether it ran ``exit``, or an error ended it.

    See :class:`~.shell.ShellResult` for which ``exit`` counts and what ``aborted`` means.
    """

    code: int
    exited: bool = False
    aborted: bool = False


class OutputDropped(MobileIntentError):
    """The stream of a command line went away (or gave up on it): stop producing output."""


class CommandRunner:
    """Runs one device's command lines on a pool of worker threads.

    Args:
        device: The device whose shell runs them.
        threads: Worker threads for the whole server.
        per_connection: Command lines one connection may run at once.
    """

    def __init__(self, device: VirtualDevice, threads: int = 32, per_connection: int = 4) -> None:
        self.device = device
        self.per_connection = per_connection
        self._pool = concurrent.futures.ThreadPoolExecutor(threads, "adbd-command")

    def session(self) -> Session:
        """The runner as one connection uses it (with that connection's share of threads)."""
        return Session(self, asyncio.Semaphore(self.per_connection))

    def close(self) -> None:
        """Let running command lines finish, start no new ones."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    def submit(self, command_line: str, emit: Callable[[int, bytes], None], stdin: Input,
               started: float, dropped: threading.Event) -> asyncio.Future[Ended]:
        """Start ``command_line`` on a worker; the future gives how it ended.

        Its time limit counts from ``started`` (a ``time.monotonic()`` reading), and a
        line still waiting for a worker once ``dropped`` is set (its client was told it
        was killed) never runs.
        """
        return asyncio.get_running_loop().run_in_executor(
            self._pool, self._work, command_line, emit, stdin, started, dropped)

    def _work(self, command_line: str, emit: Callable[[int, bytes], None],
              stdin: Input, started: float, dropped: threading.Event) -> Ended:
        if dropped.is_set():
            return Ended(TimeLimitExceeded.code)
        try:
            result = self.device.run(command_line, stdin, emit, started)
        except OutputDropped:
            return Ended(TimeLimitExceeded.code)
        except Exception as err:  # a command's own failure must never read as success
            log.exception("command line %r failed", command_line)
            with suppress(OutputDropped):
                emit(2, f"/system/bin/sh: {command_line[:80]}: {err}\n".encode())
            return Ended(1)
        return Ended(result.code, result.exited, result.aborted)


class Session:
    """One connection's way of running command lines."""

    def __init__(self, runner: CommandRunner, slots: asyncio.Semaphore) -> None:
        self.runner = runner
        self.device = runner.device
        self._slots = slots

    async def run(self, command_line: str, send: Send, stdin: Input = b"",
                  wanted: Callable[[], bool] = lambda: True) -> Ended:
        """Run ``command_line``, sending its output as it comes; returns how it ended.

        ``wanted`` is asked once the line has one of the connection's slots: a line whose
        client gave up on it while it waited (closed its stream) is dropped unrun, status 1.
        """
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[object] = asyncio.Queue()
        dropped = threading.Event()
        room = threading.Semaphore(PENDING)  # a client that does not read holds its worker back

        def emit(fd: int, data: bytes) -> None:
            try:
                if not dropped.is_set() and room.acquire(
                        timeout=_left(deadline)) and not dropped.is_set():
                    loop.call_soon_threadsafe(queue.put_nowait, (fd, data))
                    return
            except RuntimeError:  # the loop has closed: the server stopped
                pass
            raise OutputDropped("the stream no longer takes this command line's output")

        await self._slots.acquire()
        if not wanted():
            self._slots.release()
            return Ended(1)
        # Counted from here, as the relay's: the wait for a slot is not the line's time,
        # the wait for a worker is.
        started = time.monotonic()
        deadline = started + self.device.limits.time_limit + GRACE
        try:
            future = self.runner.submit(command_line, emit, stdin, started, dropped)
        except BaseException:
            self._slots.release()
            raise
        future.add_done_callback(lambda _: self._slots.release())
        future.add_done_callback(lambda _: queue.put_nowait(_END))
        try:
            return await self._relay(future, queue, send, room)
        finally:
            dropped.set()
            room.release(PENDING)  # wake a worker waiting for room: it finds the output dropped

    async def _relay(self, future: asyncio.Future[Ended], queue: asyncio.Queue[object],
                     send: Send, room: threading.Semaphore) -> Ended:
        loop = asyncio.get_running_loop()
        limit = self.device.limits.time_limit
        deadline = loop.time() + limit + GRACE
        while True:
            wait = None if future.done() else max(deadline - loop.time(), 0.0)
            try:
                item = await asyncio.wait_for(queue.get(), wait)
            except (TimeoutError, asyncio.TimeoutError):
                await send(2, f"/system/bin/sh: {TimeLimitExceeded(limit)}\n".encode())
                return Ended(TimeLimitExceeded.code)
            if item is _END:
                return future.result()
            await send(*item)
            room.release()


def _left(deadline: float) -> float | None:
    """Seconds left until ``deadline`` for a wait (``None``, no bound, for an infinite one)."""
    return None if math.isinf(deadline) else max(deadline - time.monotonic(), 0.0)
